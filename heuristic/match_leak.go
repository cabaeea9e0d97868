package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// secretIssuers maps a secret kind to the registrable domains that
// legitimately receive it (as a header or URL credential, not a body).
var secretIssuers = map[string][]string{
	"a GitHub token":       {"github.com", "githubusercontent.com", "ghcr.io"},
	"a GitLab token":       {"gitlab.com"},
	"a Slack token":        {"slack.com"},
	"a Stripe live key":    {"stripe.com"},
	"an Anthropic API key": {"anthropic.com"},
	"an OpenAI API key":    {"openai.com"},
	"a Google API key":     {"googleapis.com"},
	"an npm token":         {"npmjs.org", "npmjs.com"},
	"a Hugging Face token": {"huggingface.co"},
	"a PyPI token":         {"pypi.org"},
	"a SendGrid API key":   {"sendgrid.com"},
}

func issuerOf(kind, host string) bool {
	r := registrable(host)
	for _, d := range secretIssuers[kind] {
		if r == d {
			return true
		}
	}
	return false
}

// requestHost returns the host an outbound typed action talks to.
func requestHost(a *action.Action) string {
	u, ok := action.URLOf(a)
	if !ok {
		return ""
	}
	h, _ := urlHost(u)
	return h
}

// matchSecretLeak fires when outbound text (a request body, header or
// URL, a mail, a message, typed browser text, MCP arguments, a clone URL)
// holds secret material. A token sent as a credential to its own issuer
// (an Authorization header to api.github.com, a token in a clone URL's
// userinfo for github.com) is its intended use, not a leak.
func matchSecretLeak(in *Input) (string, bool) {
	host := requestHost(in.Action)
	for _, t := range in.Action.Payload.Texts() {
		if t.Name == "url" {
			if d, ok := urlLeak(t.Value, host); ok {
				return d, true
			}
			continue
		}
		kind, ok := findSecret(t.Value)
		if !ok {
			if kind, ok = findPII(t.Value); ok && action.SinkOf(in.Action.Type).External() {
				return kind + " in " + t.Name, true
			}
			continue
		}
		if strings.HasPrefix(t.Name, "headers.") && issuerOf(kind, host) {
			continue
		}
		return kind + " in " + t.Name, true
	}
	return "", false
}

// urlLeak scans a URL: secrets in the userinfo are allowed towards their
// issuer; secrets anywhere else (host, path, query) are a leak.
func urlLeak(u, host string) (string, bool) {
	rest := u
	if i := strings.Index(u, "://"); i >= 0 {
		auth := u[i+3:]
		if j := strings.IndexAny(auth, "/?#"); j >= 0 {
			auth = auth[:j]
		}
		if k := strings.LastIndexByte(auth, '@'); k >= 0 {
			if kind, ok := findSecret(auth[:k]); ok && !issuerOf(kind, host) {
				return kind + " in url", true
			}
			rest = u[:i+3] + u[i+3+k+1:]
		}
	}
	if kind, ok := findSecret(rest); ok {
		return kind + " in url", true
	}
	return "", false
}
