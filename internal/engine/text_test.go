package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/wire"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// Bytes that are not UTF-8 in what tools return (a command's output, a
// planted file name, a file's content) cannot break the agent link:
// proto3 refuses such strings, so each result reaches the agent and the
// clients escaped (wire.Text), the turns go on, and the agent is never
// restarted. Seven calls: more than the six crashes in a minute that
// would stop the engine if each one broke the link.
func TestInvalidUTF8InResultsCannotBreakTheAgentLink(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	dir := filepath.Join(e.root, "planted")
	writeFile(t, filepath.Join(dir, "bad\xff\xfename.txt"), "x\n")
	data := filepath.Join(e.root, "data.bin")
	writeFile(t, data, "head\xc0\x80 \\x41 tail\n")
	var script strings.Builder
	for range 2 {
		script.WriteString(`  - tool_calls: [{name: execute_command, input: {command: "printf 'out\\377\\376end'"}}]
  - expect: {tool_result_contains: "out\\xff\\xfeend"}
`)
		fmt.Fprintf(&script, `    tool_calls: [{name: list_directory, input: {path: %q}}]
  - expect: {tool_result_contains: "bad\\xff\\xfename.txt"}
    tool_calls: [{name: read_file, input: {path: %q}}]
  - expect: {tool_result_contains: "head\\xc0\\x80 \\\\x41 tail"}
    text: "Read them all."
`, dir, data)
	}
	script.WriteString(`  - tool_calls: [{name: list_directory, input: {path: "` + dir + `"}}]
  - expect: {tool_result_error: false}
    text: "Still listing."
`)
	writeFile(t, scriptPath(t, e), "turns:\n"+script.String())
	e.start(t)
	var results []string
	for i, want := range []string{"Read them all.", "Read them all.", "Still listing."} {
		_, evs := e.turn(t, "", "Look at the odd files.", false)
		if rc := evs[len(evs)-1].GetResponseComplete(); rc == nil || rc.GetText() != want {
			t.Fatalf("turn %d ended with %v, want the reply %q", i+1, evs[len(evs)-1], want)
		}
		for _, ev := range evs {
			if r := ev.GetToolResult(); r != nil {
				results = append(results, r.GetOutput())
			}
		}
	}
	if len(results) != 7 {
		t.Fatalf("got %d tool results, want 7", len(results))
	}
	wantRaw := []string{"out\xff\xfeend", "bad\xff\xfename.txt", "head\xc0\x80 \\x41 tail\n"}
	for i, got := range results[:3] {
		if !utf8.ValidString(got) || !strings.HasPrefix(got, wire.TextMarker) {
			t.Errorf("result %d = %q, want valid UTF-8 opened by the marker", i+1, got)
		}
		if back, err := wire.UnText(got); err != nil || !strings.Contains(back, wantRaw[i]) {
			t.Errorf("result %d unescaped = %q (%v), want it to hold %q", i+1, back, err, wantRaw[i])
		}
	}
	st, err := e.client.Status(context.Background(), &pb.StatusRequest{})
	if err != nil || st.GetAgentRestarts() != 0 || st.GetAllowed() != 7 {
		t.Errorf("status: %+v, %v; want 7 allowed calls and no agent restart", st, err)
	}
	e.stop(t)
	if hasEntry(verifiedChain(t, e.root), audit.ShieldError, "agent_crashed") {
		t.Error("the agent crashed")
	}
}
