package shield

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/egresscases"
	"github.com/parallax/parallax/verdict"
)

// TestGateEgressLabelled runs the outbound labelled set (issue 21) through
// the gate under the default preset: each attack must be contained
// (BLOCK, or ESCALATE where that is its expectation: a public address, a
// hash-named host), each look-alike must get exactly its expectation
// (ALLOW; ESCALATE where the policy asks review for the channel itself).
// -v prints the decisions by channel.
func TestGateEgressLabelled(t *testing.T) {
	g := newTestGate(t, "default")
	type counts struct{ block, escalate, allow int }
	by := map[string]*counts{}
	for _, c := range egresscases.Cases() {
		v := g.Evaluate(context.Background(), Request{Type: c.Type, Payload: json.RawMessage(c.Payload), Session: "egress-" + c.Name})
		key := c.Channel + map[bool]string{true: " attack", false: " benign"}[c.Attack]
		n := by[key]
		if n == nil {
			n = &counts{}
			by[key] = n
		}
		switch v.Decision {
		case verdict.Block:
			n.block++
		case verdict.Escalate:
			n.escalate++
		default:
			n.allow++
		}
		got := v.Decision.String()
		ok := got == c.Want || c.Attack && c.Want == "ESCALATE" && v.Decision == verdict.Block
		if !ok {
			t.Errorf("%s (%s): got %s (%s: %s), want %s", c.Name, c.Channel, got, v.Rule, v.Reason, c.Want)
		}
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %6s %8s %6s\n", "channel", "BLOCK", "ESCALATE", "ALLOW")
	for _, k := range keys {
		fmt.Fprintf(&b, "%-18s %6d %8d %6d\n", k, by[k].block, by[k].escalate, by[k].allow)
	}
	t.Log("\n" + b.String())
}

// Header values are credentials in use: a key in its vendor's header to
// its issuer passes, Basic credentials in Authorization pass, and the
// same key hex-encoded in any other header is data leaving.
func TestHeaderCredentialInUseIsNotData(t *testing.T) {
	const key = "sk-ant-api03-_tKsf2rcDkdfrUnW5gcF-Ha6ili8GjHEAD6_Wj9KfzjsQGMrb9h-ImB-LK777pzNk8cL6j5IXAAjlsHUqJoUD_-Ydua-5AA"
	g := newTestGate(t, "default")
	tests := []struct {
		name    string
		payload map[string]any
		want    verdict.Decision
	}{
		{"api key to its issuer", map[string]any{"method": "GET", "url": "https://api.anthropic.com/v1/models",
			"headers": map[string]string{"x-api-key": key}}, verdict.Allow},
		{"basic credentials", map[string]any{"method": "GET", "url": "https://registry.example.com/v2/",
			"headers": map[string]string{"Authorization": "Basic ZGVwbG95OlM0bmRib3gtUjNnaXN0cnk="}}, verdict.Allow},
		{"session cookie to its site", map[string]any{"method": "GET", "url": "https://github.com/settings",
			"headers": map[string]string{"Cookie": "session=" + base64.StdEncoding.EncodeToString([]byte(`{"token":"ghp_R8kD2mQ7xV4nT1bW9cY6hJ3fL5sP0aZeGu2K"}`))}}, verdict.Allow},
		{"hex key in a custom header", map[string]any{"method": "GET", "url": "https://api.anthropic.com/v1/models",
			"headers": map[string]string{"X-Trace": fmt.Sprintf("%x", key)}}, verdict.Block},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(tt.payload)
			if v := eval(g, "http_request", string(b)); v.Decision != tt.want {
				t.Errorf("got %s (%s: %s), want %s", v.Decision, v.Rule, v.Reason, tt.want)
			}
		})
	}
}
