package hookd

import (
	"context"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
)

// A decision the daemon makes after the hook has given up (its deadline
// passed: the hook denied the call, which did not run) is not left in the
// chain as if it took effect: the daemon records that its answer reached
// no hook, for that session, right after the decision.
func TestDecisionAfterTheHookGaveUpIsRecordedAsSuch(t *testing.T) {
	root, home := newWorkspace(t)
	release := make(chan struct{})
	d := startDaemon(t, root, home, func(ctx context.Context, req *Request) Response {
		<-release // a decision slower than the hook's deadline (a lock held elsewhere)
		return Decide(ctx, req)
	})
	opts := clientOpts(home)
	opts.CallTimeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	in := hookInput(t, "PreToolUse", "s-late", root, "Read", map[string]any{"file_path": root + "/README.md"}, nil)
	_ = run(ctx, opts, in) // the hook gives up on the daemon (and decides, or denies, itself)
	close(release)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var late bool
		err := audit.Scan(audit.DefaultPath(root), audit.Filter{}, func(e audit.Entry) error {
			late = late || e.Type == audit.ShieldError && e.Detail.Code == CodeAnswerLate && e.Session == "s-late"
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if late {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s entry after the daemon decided a call its hook had given up on (%d calls)", CodeAnswerLate, d.calls.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
