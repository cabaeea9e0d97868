package approval

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/parallax/parallax/dlp"
)

// Credential-shaped test values (they pass the dlp validators; none is
// a live credential).
const (
	ghToken    = "ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"
	awsKeyID   = "AKIAUJZDEGXDNCF32EPF"
	slackToken = "xoxb-288200182633-0434839548620-6Vw5DQL05HA064GiIjHGb3CX"
	bearer     = "7eNWVQ4vnakJkS1pAWTN3lg8zV5yPU8d0FZfWe7i"
	card       = "4539578763621486"
	password   = "Zq8#vL2!pW9xK4mT"
	pemBody    = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDRk2x9"
)

func detector(t testing.TB) *dlp.Detector {
	t.Helper()
	d, err := dlp.New()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// assertNoSecret fails if shown, or any string in it once decoded as
// JSON, holds one of the secrets.
func assertNoSecret(t testing.TB, where, shown string, secrets ...string) {
	t.Helper()
	texts := []string{shown}
	var v any
	if json.Unmarshal([]byte(shown), &v) == nil {
		texts = append(texts, flatten(v)...)
	}
	for _, s := range secrets {
		for _, x := range texts {
			if strings.Contains(x, s) {
				t.Errorf("%s shows the secret %.8s…", where, s)
				return
			}
		}
	}
}

func flatten(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, flatten(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, k)
			out = append(out, flatten(e)...)
		}
		return out
	}
	return nil
}

func TestRedactPayload(t *testing.T) {
	d := detector(t)
	tests := []struct {
		name    string
		payload string
		secret  string
		keep    string // a harmless part that must survive
	}{
		{"token in a command", `{"command":"git push https://x-access-token:` + ghToken + `@github.com/o/r.git"}`, ghToken, "git push"},
		{"token behind a JSON escape", `{"command":"echo gh\u0070_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"}`, ghToken, "echo"},
		{"escaped all the way", `{"command":"echo \u0067\u0068\u0070\u005fMxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"}`, ghToken, "echo"},
		{"aws key id", `{"command":"aws configure set aws_access_key_id ` + awsKeyID + `"}`, awsKeyID, "aws configure"},
		{"slack token in a header", `{"method":"POST","url":"https://slack.com/api/chat.postMessage","headers":{"Authorization":"Bearer ` + slackToken + `"}}`, slackToken, "slack.com"},
		{"bearer header", `{"headers":{"Authorization":"Bearer ` + bearer + `"}}`, bearer, "Authorization"},
		{"password by key", `{"password":"` + password + `"}`, password, "password"},
		{"secret as a key", `{"` + ghToken + `":"x"}`, ghToken, `"x"`},
		{"card as a number", `{"amount":12,"card":` + card + `}`, card, "amount"},
		{"private key", `{"path":"/home/dev/other/k","content":"-----BEGIN PRIVATE KEY-----\n` + pemBody + `\nq7Lw3Zp0Ye1m8TfVbN4cU6sHjK2oXa5iRgPd\n-----END PRIVATE KEY-----\n"}`, pemBody, "/home/dev/other/k"},
		{"nested arrays", `{"arguments":{"list":[1,"` + ghToken + `",{"k":"` + ghToken + `"}]}}`, ghToken, "list"},
		{"not JSON", `command=` + ghToken, ghToken, "command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(redactPayload(d, json.RawMessage(tc.payload)))
			if !json.Valid([]byte(got)) {
				t.Fatalf("shown payload is not JSON: %s", got)
			}
			assertNoSecret(t, "payload", got, tc.secret)
			if !strings.Contains(got, tc.keep) {
				t.Errorf("shown payload lost %q: %s", tc.keep, got)
			}
			if !strings.Contains(got, "[REDACTED:") {
				t.Errorf("shown payload has no mask: %s", got)
			}
		})
	}
}

func TestRedactPayloadClean(t *testing.T) {
	// Clean payloads come back as they were (object keys sorted).
	d := detector(t)
	for _, p := range []string{`{"command":"make test"}`, `{"content":"hello <world> & co","path":"/home/dev/a"}`, `{}`} {
		if got := string(redactPayload(d, json.RawMessage(p))); got != p {
			t.Errorf("clean payload changed: got %s, want %s", got, p)
		}
	}
	if got := string(redactPayload(d, nil)); got != "{}" {
		t.Errorf("empty payload: got %s, want {}", got)
	}
}

// TestSecretsNeverShown puts one request with secrets in its payload, its
// reason and its session through a script, a terminal and a webhook, and
// checks what each was shown, what the webhook received and the audit
// file's bytes.
func TestSecretsNeverShown(t *testing.T) {
	clock := newFakeClock()
	y := newTTY(t)
	h := newHookRig(t, clock.Now)
	s := NewScript("script", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{s, y.Terminal, h.hook}})
	a := cmdAsk("s1 "+awsKeyID, "net_egress", "secret", "curl")
	a.ActionType = "http_request"
	a.Scope = Scope{Hosts: []string{"api.example.com"}}
	a.Payload = json.RawMessage(`{"method":"POST","url":"https://api.example.com/v1","headers":{"Authorization":"Bearer ` + bearer + `"},"body":"token=` + ghToken + `"}`)
	a.Reason = "sends " + ghToken + " to api.example.com"
	res := start(r.b, context.Background(), a)
	ask := waitAsk(t, s)
	y.out.waitFor(t, "approve?", 1)
	posted := h.rc.next(t)
	secrets := []string{ghToken, bearer, awsKeyID}
	shown, _ := json.Marshal(ask)
	assertNoSecret(t, "script channel", string(shown), secrets...)
	assertNoSecret(t, "webhook body", string(posted.body), secrets...)
	assertNoSecret(t, "terminal", y.out.String(), secrets...)
	if !strings.Contains(y.out.String(), "api.example.com") {
		t.Errorf("terminal lost the host: %s", y.out.String())
	}
	y.typeLine(t, "n")
	if got := waitResult(t, res); got.ans.Decision != Deny {
		t.Fatalf("got %+v", got.ans)
	}
	raw, err := os.ReadFile(r.log)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{ghToken, bearer} {
		if strings.Contains(string(raw), sec) {
			t.Errorf("the audit log holds the secret %.8s…", sec)
		}
	}
}

// TestRedactPayloadDeep: a payload nested past the bound is shown as
// nothing, without being decoded or walked.
func TestRedactPayloadDeep(t *testing.T) {
	d := detector(t)
	raw := json.RawMessage(`{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`)
	if got := redactPayload(d, raw); string(got) != redactedAll {
		t.Errorf("got %.80s, want %s", got, redactedAll)
	}
}
