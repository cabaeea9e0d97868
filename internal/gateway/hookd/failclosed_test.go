package hookd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// TestDaemonPanicIsNoAnswer: a daemon whose decision panics gives no
// answer (Forward fails), never an empty one, which Claude Code would
// take as "no objection"; the client then decides in process, as a hook
// without a daemon would.
func TestDaemonPanicIsNoAnswer(t *testing.T) {
	ctx := context.Background()
	root, home := newWorkspace(t)
	calls := []struct {
		name  string
		in    []byte
		check func(r result) bool
	}{
		{"pre, denied in process", hookInput(t, claudecode.EventPreToolUse, "p1", root, "Read",
			map[string]any{"file_path": "~/.ssh/id_rsa"}, nil),
			func(r result) bool { return strings.Contains(r.stdout, `"deny"`) }},
		{"post of an unreadable input", []byte(`{"hook_event_name":"PostToolUse","cwd":"` + root + `"}`),
			func(r result) bool { return r.err != "" }},
	}
	d := startDaemon(t, root, home, func(context.Context, *Request) Response { panic("injected daemon fault") })
	sock, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			before := d.calls.Load()
			resp, err := Forward(ctx, sock, 5*time.Second, authOf(t, root, home), &Request{Identity: testID, Home: home, Stdin: c.in})
			if err == nil {
				t.Fatalf("Forward: got answer %+v and no error, want no answer", resp)
			}
			want := run(ctx, Options{Home: home}, c.in)
			if !c.check(want) {
				t.Fatalf("in process: got %+v, want a refusal", want)
			}
			if got := run(ctx, clientOpts(home), c.in); got != want {
				t.Errorf("through the faulty daemon: got %+v, want the in-process %+v", got, want)
			}
			if d.calls.Load() < before+2 {
				t.Errorf("the daemon decided %d calls, want both forwarded", d.calls.Load()-before)
			}
		})
	}
}
