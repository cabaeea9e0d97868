package shield

import (
	"context"
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
