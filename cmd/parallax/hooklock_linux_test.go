package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/flock"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// A lock that another process holds on the workspace's state (an agent's
// background one-liner holding .parallax/audit.jsonl, or the taint
// journal) cannot keep a hook call waiting past its deadline, which is
// what makes Claude Code give up and run the tool unchecked: the call
// before a tool is denied (exit 2), and the hook after one stops the
// session or blocks, all within the hook's deadline (3 s here), while the
// lock is still held. (A call before a tool that needs no journal is
// answered as usual.) The test's own bound (60 s, against the 30 s
// default deadline) catches a hook that waits for the lock.
func TestHeldLockCannotKeepTheHookPastItsDeadline(t *testing.T) {
	for _, held := range []string{"audit.jsonl", "taint.pending"} {
		t.Run(held, func(t *testing.T) {
			root, home := newHookWorkspace(t)
			h := newHookProc(t, home)
			h.env = append(h.env, hookTimeoutEnv+"=3s")
			lockPath := filepath.Join(pxworkspace.StateDir(root), held)
			f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := flock.Lock(f, true); err != nil {
				t.Fatal(err)
			}
			readme := filepath.Join(root, "README.md")
			if err := os.WriteFile(readme, []byte("hello\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			type result struct {
				out, errOut string
				code        int
			}
			call := func(stdin []byte) result {
				t.Helper()
				done := make(chan result, 1)
				go func() {
					o, e, c, _, err := h.run(stdin)
					if err != nil {
						t.Error(err)
					}
					done <- result{o, e, c}
				}()
				select {
				case r := <-done:
					return r
				case <-time.After(60 * time.Second):
					t.Fatal("the hook waited for the held lock")
					return result{}
				}
			}
			// Before a tool: answered in time; denied when its decision
			// cannot be recorded (the chain's lock is held).
			pre := call(hookInput(t, "PreToolUse", "s1", root, "Read", map[string]any{"file_path": readme}, nil))
			if held == "audit.jsonl" && pre.code != exitHookBlocked && !strings.Contains(pre.out, `"deny"`) {
				t.Errorf("PreToolUse with %s held: exit %d, stdout %q, stderr %q; want a deny", held, pre.code, pre.out, pre.errOut)
			}
			// After a tool whose result holds a secret: the session stops
			// or the call is blocked; never a silent success.
			secret := "AKIA" + "Q3EGRPZ7KXW5NB2M"
			post := call(hookInput(t, "PostToolUse", "s1", root, "Read", map[string]any{"file_path": readme},
				map[string]any{"type": "text", "file": map[string]any{"filePath": readme, "content": "aws_access_key_id=" + secret}}))
			var stop struct {
				Continue *bool `json:"continue"`
			}
			_ = json.Unmarshal([]byte(post.out), &stop)
			stopped := stop.Continue != nil && !*stop.Continue
			if post.code != exitHookBlocked && !stopped {
				t.Errorf("PostToolUse with %s held: exit %d, stdout %q, stderr %q; want the session stopped or a block", held, post.code, post.out, post.errOut)
			}
		})
	}
}
