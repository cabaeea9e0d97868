package hookd

import (
	"context"
	"testing"

	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// BenchmarkDaemonCall is one hook call through a warm daemon, without the
// hook process around it: route, socket round trip, the daemon's decision
// (kept workspace, gate built afresh, audited) and the answer. What a hook
// process adds is its start-up (TestHookColdStartLatency in cmd/parallax).
//
//	go test -run='^$' -bench=DaemonCall -benchmem ./internal/gateway/hookd/
func BenchmarkDaemonCall(b *testing.B) {
	for _, c := range []struct {
		name, tool string
		input      map[string]any
		want       string
	}{
		{"Read", "Read", map[string]any{"file_path": "src/main.go"}, ""},
		{"Bash", "Bash", map[string]any{"command": "grep -rn TODO src | sort | head -20"}, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			root, home := newWorkspace(b)
			startDaemon(b, root, home, nil)
			in := hookInput(b, claudecode.EventPreToolUse, "bench", root, c.tool, c.input, nil)
			opts := clientOpts(home)
			ctx := context.Background()
			for b.Loop() {
				if r := run(ctx, opts, in); r.stdout != c.want || r.err != "" {
					b.Fatalf("got %+v", r)
				}
			}
		})
	}
}

// BenchmarkDaemonRoundTrip is the client's whole path through a warm
// daemon whose decision costs nothing: reading the key, finding the
// workspace, and the socket round trips with the daemon's proof and the
// tags of the request and the answer. It is what the hook process pays
// for the daemon, apart from the decision.
//
//	go test -run='^$' -bench=DaemonRoundTrip -benchmem ./internal/gateway/hookd/
func BenchmarkDaemonRoundTrip(b *testing.B) {
	root, home := newWorkspace(b)
	startDaemon(b, root, home, func(context.Context, *Request) Response { return Response{} })
	in := hookInput(b, claudecode.EventPreToolUse, "bench", root, "Read", map[string]any{"file_path": "notes.txt"}, nil)
	opts := clientOpts(home)
	ctx := context.Background()
	for b.Loop() {
		if r := run(ctx, opts, in); r.stdout != "" || r.err != "" {
			b.Fatalf("got %+v", r)
		}
	}
}
