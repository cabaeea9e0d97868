package shield

import (
	"encoding/json"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/verdict"
)

// TestPresetDenyOnATreeIsKept: at the policy stage, a recursive change
// whose pattern overlaps an area a preset denies, under a root the
// preset does not deny, needs review, as for a user rule. The deny used
// to be dropped for presets on the ground that the guard had judged the
// tree; the guard's tables and the presets' paths are two lists, and the
// guard judges only what exists. The stage is run alone: the guard
// would stop most of these first.
func TestPresetDenyOnATreeIsKept(t *testing.T) {
	tests := []struct {
		name, preset string
		ref          policy.PathRef
		want         bool // escalated
	}{
		{"change under ~/.config (gh hosts)", "default", policy.PathRef{Path: testHome + "/.config/**", Access: action.AccessWrite, Glob: true}, true},
		{"delete under ~/.docker", "default", policy.PathRef{Path: testHome + "/.docker/**", Access: action.AccessDelete, Glob: true}, true},
		{"strict: delete in the workspace", "strict", policy.PathRef{Path: testWS + "/build/**", Access: action.AccessDelete, Glob: true}, true},
		{"change under the workspace", "default", policy.PathRef{Path: testWS + "/build/**", Access: action.AccessWrite, Glob: true}, false},
		// identity_files mirrors the guard's tables: the guard judges it.
		{"change of the whole workspace", "default", policy.PathRef{Path: testWS + "/**", Access: action.AccessWrite, Glob: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGate(t, tt.preset)
			payload, _ := json.Marshal(map[string]string{"command": "true"}) // strings always marshal
			a, err := action.Decode("execute_command", payload)
			if err != nil {
				t.Fatal(err)
			}
			st := &state{act: a, paths: []policy.PathRef{tt.ref}}
			v, done := g.applyPolicy(st)
			if done && v.Decision == verdict.Block {
				return // denied outright: kept
			}
			if got := st.pending != nil && st.pending.Decision == verdict.Escalate; got != tt.want {
				t.Errorf("got escalated %v (pending %+v, policy %s %s), want %v", got, st.pending, st.pol.Effect, st.pol.Rule, tt.want)
			}
		})
	}
}
