package shield

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// The gate judges an executor's plan with the action: a plan that does
// not belong to the action is refused (bad_plan), a path that leads to a
// protected file or, for a write, out of the workspace is refused where
// it leads, and the verdict's hash binds the plan (another identity,
// another hash).
func TestGateJudgesThePlan(t *testing.T) {
	g := newTestGate(t, "default")
	const notes = testWS + "/notes.txt"
	read := `{"path":"` + notes + `"}`
	write := `{"path":"` + notes + `","content":"x"}`
	rp := func(field, path, resolved string, acc action.Access) ResolvedPath {
		return ResolvedPath{Field: field, Path: path, Resolved: resolved, Access: acc, Identity: "1:2:0"}
	}
	cases := []struct {
		name, typ, payload string
		plan               []ResolvedPath
		want               verdict.Decision
		rule               string
	}{
		{"plan as named", "read_file", read, []ResolvedPath{rp("path", notes, notes, action.AccessRead)}, verdict.Allow, ""},
		{"plan for another field", "read_file", read, []ResolvedPath{rp("source", notes, notes, action.AccessRead)}, verdict.Block, RuleBadPlan},
		{"plan for another path", "read_file", read, []ResolvedPath{rp("path", testWS+"/b.txt", notes, action.AccessRead)}, verdict.Block, RuleBadPlan},
		{"plan with another access", "write_file", write, []ResolvedPath{rp("path", notes, notes, action.AccessRead)}, verdict.Block, RuleBadPlan},
		{"plan with too many paths", "read_file", read, []ResolvedPath{rp("path", notes, notes, action.AccessRead), rp("path", notes, notes, action.AccessRead)}, verdict.Block, RuleBadPlan},
		{"relative resolution", "read_file", read, []ResolvedPath{rp("path", notes, "notes.txt", action.AccessRead)}, verdict.Block, RuleBadPlan},
		{"read leads to a key", "read_file", read, []ResolvedPath{rp("path", notes, testHome+"/.ssh/id_rsa", action.AccessRead)}, verdict.Block, ""},
		{"write leads out of the workspace", "write_file", write, []ResolvedPath{rp("path", notes, "/home/dev/other/x", action.AccessWrite)}, verdict.Block, RulePathResolved},
		{"write leads to .bashrc", "write_file", write, []ResolvedPath{rp("path", notes, testHome+"/.bashrc", action.AccessWrite)}, verdict.Block, ""},
		{"write within the workspace", "write_file", write, []ResolvedPath{rp("path", notes, testWS+"/src/n.txt", action.AccessWrite)}, verdict.Allow, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := g.Fresh().Evaluate(context.Background(), Request{Type: c.typ, Payload: json.RawMessage(c.payload), Resolved: c.plan})
			if v.Decision != c.want || c.rule != "" && v.Rule != c.rule {
				t.Fatalf("got %v %s (%s), want %v %s", v.Decision, v.Rule, v.Reason, c.want, c.rule)
			}
		})
	}
	plain := eval(g, "read_file", read)
	planned := g.Evaluate(context.Background(), Request{Type: "read_file", Payload: json.RawMessage(read),
		Resolved: []ResolvedPath{rp("path", notes, notes, action.AccessRead)}})
	other := rp("path", notes, notes, action.AccessRead)
	other.Identity = "1:3:0"
	moved := g.Evaluate(context.Background(), Request{Type: "read_file", Payload: json.RawMessage(read), Resolved: []ResolvedPath{other}})
	if plain.Hash == planned.Hash || planned.Hash == moved.Hash || planned.Hash == "" {
		t.Errorf("hashes: action %s, with plan %s, with another identity %s: want three different", plain.Hash, planned.Hash, moved.Hash)
	}
}
