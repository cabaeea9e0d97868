package heuristic

import (
	"encoding/base64"
	"math"
	"strings"
)

// This file is a small, fast secret scanner for outbound text. It names
// the kind of secret it found and never returns the value. A fuller DLP
// package replaces it later; keep it compact.

// charset selects the bytes a token may hold after its prefix.
type charset uint8

const (
	csAlnum    charset = iota // A-Z a-z 0-9
	csUpperNum                // A-Z 0-9
	csWord                    // alnum and _
	csURL                     // alnum, _ and -
	csDotted                  // alnum, _, - and .
)

func (c charset) has(b byte) bool {
	switch {
	case b >= '0' && b <= '9', b >= 'A' && b <= 'Z':
		return true
	case b >= 'a' && b <= 'z':
		return c != csUpperNum
	case b == '_':
		return c >= csWord
	case b == '-':
		return c >= csURL
	case b == '.':
		return c == csDotted
	}
	return false
}

// prefixed is a secret recognised by a fixed prefix and a token length.
type prefixed struct {
	prefix   string
	set      charset
	min, max int // token length after the prefix (max 0: unbounded)
	kind     string
}

// prefixedSecrets is ordered so that longer prefixes precede shorter ones
// sharing a start ("sk-ant-" before "sk-").
var prefixedSecrets = [...]prefixed{
	{"AKIA", csUpperNum, 16, 16, "an AWS access key id"},
	{"ASIA", csUpperNum, 16, 16, "an AWS access key id"},
	{"ghp_", csAlnum, 36, 0, "a GitHub token"},
	{"gho_", csAlnum, 36, 0, "a GitHub token"},
	{"ghu_", csAlnum, 36, 0, "a GitHub token"},
	{"ghs_", csAlnum, 36, 0, "a GitHub token"},
	{"ghr_", csAlnum, 36, 0, "a GitHub token"},
	{"github_pat_", csWord, 22, 0, "a GitHub token"},
	{"glpat-", csURL, 20, 0, "a GitLab token"},
	{"xoxb-", csURL, 10, 0, "a Slack token"},
	{"xoxa-", csURL, 10, 0, "a Slack token"},
	{"xoxp-", csURL, 10, 0, "a Slack token"},
	{"xoxr-", csURL, 10, 0, "a Slack token"},
	{"xoxs-", csURL, 10, 0, "a Slack token"},
	{"sk_live_", csAlnum, 20, 0, "a Stripe live key"},
	{"rk_live_", csAlnum, 20, 0, "a Stripe live key"},
	{"sk-ant-", csURL, 32, 0, "an Anthropic API key"},
	{"sk-proj-", csURL, 20, 0, "an OpenAI API key"},
	{"sk-svcacct-", csURL, 20, 0, "an OpenAI API key"},
	{"sk-admin-", csURL, 20, 0, "an OpenAI API key"},
	{"sk-", csAlnum, 32, 0, "an OpenAI API key"},
	{"AIza", csURL, 35, 35, "a Google API key"},
	{"npm_", csAlnum, 36, 36, "an npm token"},
	{"hf_", csAlnum, 30, 0, "a Hugging Face token"},
	{"pypi-AgE", csURL, 50, 0, "a PyPI token"},
	{"SG.", csDotted, 60, 0, "a SendGrid API key"},
}

// findSecret returns the kind of the first secret found in s.
func findSecret(s string) (kind string, ok bool) {
	if len(s) < 16 {
		return "", false
	}
	if k, ok := findServiceAccountKey(s); ok {
		return k, true
	}
	if k, ok := findPEM(s); ok {
		return k, true
	}
	for i := range prefixedSecrets {
		if findPrefixed(s, &prefixedSecrets[i]) {
			return prefixedSecrets[i].kind, true
		}
	}
	if findJWT(s) {
		return "a JSON web token", true
	}
	return findAssigned(s)
}

func isAlnum(b byte) bool { return csAlnum.has(b) }

// findPrefixed looks for every occurrence of the prefix with a left word
// boundary and a token of the right length and charset after it.
func findPrefixed(s string, p *prefixed) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], p.prefix)
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		if i > 0 && (isAlnum(s[i-1]) || s[i-1] == '_') {
			continue
		}
		j := i + len(p.prefix)
		k := j
		for k < len(s) && p.set.has(s[k]) {
			k++
		}
		n := k - j
		if n < p.min || (p.max > 0 && n > p.max) {
			continue
		}
		if p.prefix == "sk-" && !mixedAlnum(s[j:k]) || documented(s[j:k]) {
			continue
		}
		return true
	}
}

// documented reports a vendor's documentation placeholder (AWS's
// AKIAIOSFODNN7EXAMPLE and ...EXAMPLEKEY): published, not anyone's secret.
// The dlp package draws the same line.
func documented(tok string) bool {
	return strings.HasSuffix(tok, "EXAMPLE") || strings.HasSuffix(tok, "EXAMPLEKEY")
}

// mixedAlnum reports whether t holds both letters and digits (a random
// key does; "sk-" followed by a word does not).
func mixedAlnum(t string) bool {
	var letter, digit bool
	for i := 0; i < len(t); i++ {
		c := t[i]
		digit = digit || c >= '0' && c <= '9'
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return letter && digit
}

// findPEM finds "-----BEGIN ... PRIVATE KEY[ BLOCK]-----".
func findPEM(s string) (string, bool) {
	for off := 0; ; {
		i := strings.Index(s[off:], "-----BEGIN ")
		if i < 0 {
			return "", false
		}
		i += off
		off = i + 1
		head := s[i+11:]
		end := strings.Index(head, "-----")
		if end < 0 || end > 40 {
			continue
		}
		if strings.Contains(head[:end], "PRIVATE KEY") {
			return "a private key block", true
		}
	}
}

// findServiceAccountKey finds a "private_key" JSON member with a long value.
func findServiceAccountKey(s string) (string, bool) {
	i := strings.Index(s, `"private_key"`)
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(s[i+13:], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return "", false
	}
	if j := strings.IndexByte(rest[1:], '"'); j >= 64 || (j < 0 && len(rest) > 64) {
		return "a service-account private key", true
	}
	return "", false
}

// findJWT finds header.payload.signature in base64url whose header decodes
// to a JSON object naming "alg".
func findJWT(s string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], "eyJ")
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		if i > 0 && csURL.has(s[i-1]) {
			continue
		}
		h := tokenEnd(s, i, csURL)
		if h-i < 10 || h >= len(s) || s[h] != '.' {
			continue
		}
		p := tokenEnd(s, h+1, csURL)
		if p-h-1 < 10 || p >= len(s) || s[p] != '.' {
			continue
		}
		if tokenEnd(s, p+1, csURL)-p-1 < 16 {
			continue // unsecured (alg "none", empty signature): it proves nothing
		}
		var buf [384]byte
		hdr := s[i:h]
		if base64.RawURLEncoding.DecodedLen(len(hdr)) > len(buf) {
			continue
		}
		n, err := base64.RawURLEncoding.Decode(buf[:], []byte(hdr))
		if err != nil || n == 0 || buf[0] != '{' {
			continue
		}
		if strings.Contains(string(buf[:n]), `"alg"`) {
			return true
		}
	}
}

func tokenEnd(s string, i int, set charset) int {
	for i < len(s) && set.has(s[i]) {
		i++
	}
	return i
}

// assignKeys are names whose assigned value is a secret; the AWS names
// demand the 40-byte secret key shape, the others a high-entropy value.
var assignKeys = [...]string{"aws_secret_access_key", "secret_access_key", "secretaccesskey",
	"password", "passwd", "client_secret", "api_key", "apikey", "api-key", "access_token",
	"auth_token", "secret_key", "private_key", "secret", "token", "pwd"}

// findAssigned finds `key = value`, `key: value`, `"key": "value"` and
// `key=value` (URL query) assignments of secret names to values that look
// generated rather than written: long, mixed, high entropy, and not a
// placeholder, variable reference or code expression.
func findAssigned(s string) (string, bool) {
	low := s
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			low = strings.ToLower(s)
			break
		}
	}
	for _, key := range assignKeys {
		for off := 0; ; {
			i := strings.Index(low[off:], key)
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			v, ok := assignedValue(s, i+len(key))
			if !ok {
				continue
			}
			if documented(v) {
				continue
			}
			if strings.HasSuffix(key, "access_key") || key == "secretaccesskey" {
				if len(v) == 40 && isBase64ish(v) {
					return "an AWS secret access key", true
				}
				continue
			}
			if looksGenerated(v) {
				return "a " + strings.ReplaceAll(key, "_", " ") + " value", true
			}
		}
	}
	return "", false
}

// assignedValue reads the value assigned right after a key ending at j.
func assignedValue(s string, j int) (string, bool) {
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	switch {
	case strings.HasPrefix(s[j:], ":="):
		j += 2
	case j < len(s) && (s[j] == '=' || s[j] == ':'):
		j++
	default:
		return "", false
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '"' || s[j] == '\'') {
		j++
	}
	k := j
	for k < len(s) && !strings.ContainsRune(" \t\r\n\"'`,;&<>", rune(s[k])) {
		k++
	}
	return s[j:k], k > j
}

func isBase64ish(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '/' && c != '+' && c != '=' {
			return false
		}
	}
	return true
}

// looksGenerated reports whether v reads as a secret value: 8..200 bytes,
// letters plus digits or symbols, entropy ≥ 3 bits per byte, and not a
// placeholder, reference or call.
func looksGenerated(v string) bool {
	if len(v) < 8 || len(v) > 200 {
		return false
	}
	switch v[0] {
	case '$', '<', '{', '%', '*', '[', '(', '@':
		return false
	}
	if strings.ContainsAny(v, "()[]{}") {
		return false
	}
	lv := strings.ToLower(v)
	for _, ph := range [...]string{"xxxx", "****", "changeme", "example", "placeholder", "your", "redacted", "secret", "password", "token", "dummy", "fake", "test"} {
		if strings.Contains(lv, ph) {
			return false
		}
	}
	var letter, other bool
	var counts [256]uint16
	for i := 0; i < len(v); i++ {
		c := v[i]
		counts[c]++
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			letter = true
		} else {
			other = true
		}
	}
	if !letter || !other {
		return false
	}
	return entropy(&counts, len(v)) >= 3.0
}

// entropy is the Shannon entropy in bits per byte.
func entropy(counts *[256]uint16, n int) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log2(p)
		}
	}
	return h
}
