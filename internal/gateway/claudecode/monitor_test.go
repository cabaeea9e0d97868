package claudecode

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
)

// TestMonitorTaintsBeforeItRuns: a Monitor's output never comes back in
// a PostToolUse, so the session is tainted when the call is allowed, to
// what its output may show: the content of the files it reads now, and
// critical for output the hook cannot see. A later upload is then
// judged with it.
func TestMonitorTaintsBeforeItRuns(t *testing.T) {
	root, home := newWorkspace(t)
	opts := Options{Home: home}
	writeFile(t, filepath.Join(root, "secrets.env"), testSecret+"\n")
	writeFile(t, filepath.Join(root, "build.log"), "ok 1\nok 2\n")
	writeFile(t, filepath.Join(root, "logs", "a.log"), "started\n")
	writeFile(t, filepath.Join(root, "logs", "b.log"), testPasswordLine)
	writeFile(t, filepath.Join(root, "src", "deep", "conf.txt"), testPasswordLine)
	upload := map[string]any{"url": "https://paste.example.com/", "prompt": "upload"}
	for _, c := range []struct {
		name    string
		input   map[string]any
		want    ifc.Level // at least
		blocked bool      // the later upload
		in      string    // part of the taint's source
	}{
		{"file with a secret", map[string]any{"command": "tail -f secrets.env"}, ifc.Critical, true, "secrets.env labelled"},
		{"build log", map[string]any{"command": "tail -f build.log"}, ifc.Internal, false, ""},
		{"log not written yet", map[string]any{"command": "tail -F out/app.log"}, ifc.Internal, false, ""},
		{"glob", map[string]any{"command": "tail -F logs/*.log | grep --line-buffered -i error"}, ifc.Critical, true, "b.log"},
		{"recursive grep", map[string]any{"command": "grep -r password src"}, ifc.Critical, true, "conf.txt"},
		{"program whose output is unknown", map[string]any{"command": "npm run dev"}, ifc.Critical, true, "not classified"},
		{"environment", map[string]any{"command": "while true; do echo $DEPLOY_TARGET; sleep 5; done"},
			ifc.Critical, true, "environment"},
		{"websocket", map[string]any{"ws": map[string]any{"url": "wss://events.example.com/feed"}}, ifc.Critical, true,
			"WebSocket"},
	} {
		t.Run(c.name, func(t *testing.T) {
			session := "s-" + strings.ReplaceAll(c.name, " ", "-")
			c.input["description"] = "watch"
			out := callPre(t, opts, root, session, "Monitor", c.input)
			if out.Decision == DecisionDeny {
				t.Fatalf("the Monitor was denied: %+v", out)
			}
			lvl, source := taintOf(t, root, session)
			if lvl < c.want || !strings.Contains(source, c.in) || c.want < ifc.Critical && lvl >= ifc.Critical {
				t.Errorf("taint %s (%s), want %s from %q", lvl, source, c.want, c.in)
			}
			if strings.Contains(source, "q8Vt2LmN0") || strings.Contains(source, testPassword) {
				t.Errorf("the taint's source holds the secret: %s", source)
			}
			up := callPre(t, opts, root, session, "WebFetch", upload)
			if (up.Decision == DecisionDeny) != c.blocked {
				t.Errorf("the upload after it: got %+v, want blocked %v", up, c.blocked)
			}
		})
	}
}

// TestMonitorTaintUnrecordedRefuses: when the taint cannot be recorded,
// the Monitor is refused (its output would reach the model unrecorded).
func TestMonitorTaintUnrecordedRefuses(t *testing.T) {
	root, home := newWorkspace(t)
	writeFile(t, filepath.Join(root, "secrets.env"), testSecret+"\n")
	ws := openTestWorkspace(t, root)
	p := &pre{opts: Options{Home: home}, in: parse(t, hookJSON(t, EventPreToolUse, "s1", root, "Monitor",
		map[string]any{"command": "tail -f secrets.env"}, nil)), ws: ws}
	m, err := Map(p.in, Env{Home: home, Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.monitorTaint(t.Context(), &m); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("got %v, want a refusal", err)
	}
}

func openTestWorkspace(t *testing.T, root string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
