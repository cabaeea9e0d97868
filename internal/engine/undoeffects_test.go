package engine

import (
	"context"
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/sessions"
	"github.com/parallax/parallax/llm"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// gitRemote is a bare repository served over smart HTTP on loopback
// (git http-backend, pushes allowed); it returns the server and the
// repository's directory.
func gitRemote(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	e2e.Need(t, err, "git")
	repos := t.TempDir()
	bare := filepath.Join(repos, "repo.git")
	gitIn(t, "", "init", "-q", "--bare", bare)
	gitIn(t, bare, "config", "http.receivepack", "true")
	srv := httptest.NewServer(&cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + repos, "GIT_HTTP_EXPORT_ALL=1"},
	})
	t.Cleanup(srv.Close)
	return srv, bare
}

// gitIn runs git in dir with a configuration of its own.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	c := exec.Command("git", args...)
	c.Env = []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestUndoNamesThePushAndTheWriteOutsideTheWorkspace: with the
// production sandbox, a turn changes a workspace file, appends to a file
// outside the workspace its verdict named, and pushes to a loopback git
// remote (a configured registry). /undo puts the workspace file back on
// disk, and its text and the notice the model gets with the next message
// name the outside file and the remote as not restored; the remote keeps
// the pushed commit. A later turn that only reads leaves nothing to undo.
func TestUndoNamesThePushAndTheWriteOutsideTheWorkspace(t *testing.T) {
	sandboxOrSkip(t)
	srv, bare := gitRemote(t)
	remote := strings.TrimPrefix(srv.URL, "http://")
	e := newRuntimeEnv(t, rtOptions{mode: "on", agent: "  command:\n    registries: [\"" + remote + "\"]\n"})
	notes := filepath.Join(e.root, "notes.txt")
	writeFile(t, notes, "original\n")
	gitIn(t, e.root, "init", "-q")
	gitIn(t, e.root, "add", "notes.txt")
	gitIn(t, e.root, "commit", "-qm", "first")
	outside := filepath.Join(e.home, "journal.txt")
	writeFile(t, outside, "day one\n")
	cmd := fmt.Sprintf("echo changed > notes.txt && echo day two >> %s && git push -q %s/repo.git HEAD:refs/heads/main", outside, srv.URL)
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: execute_command, input: {command: %q}}]
  - text: "Pushed."
`, cmd))
	e.start(t)
	session, evs := e.turn(t, "", "Change the notes, log it and push.", false)
	var out string
	for _, ev := range evs {
		if r := ev.GetToolResult(); r != nil {
			out = r.GetOutput()
		}
	}
	if v := verdicts(evs); len(v) != 1 || !strings.HasPrefix(v[0], "ALLOW:") {
		t.Fatalf("the gate did not allow the command (%v), so nothing was tested: %s", v, out)
	}
	if b, _ := os.ReadFile(notes); string(b) != "changed\n" {
		t.Fatalf("notes.txt after the turn: %q (%s)", b, out)
	}
	if b, _ := os.ReadFile(outside); string(b) != "day one\nday two\n" {
		t.Fatalf("the outside file after the turn: %q (%s)", b, out)
	}
	if got := gitIn(t, bare, "log", "--oneline", "main"); !strings.Contains(got, "first") {
		t.Fatalf("the remote did not receive the push: %q (%s)", got, out)
	}
	res, err := e.client.RunCommand(context.Background(), &pb.CommandRequest{SessionId: session, Name: "undo"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.GetText()
	if b, _ := os.ReadFile(notes); string(b) != "original\n" {
		t.Errorf("notes.txt after /undo: %q (%s)", b, text)
	}
	if !strings.Contains(text, "notes.txt") || !strings.Contains(text, "not restored: ") || !strings.Contains(text, outside) ||
		!strings.Contains(text, remote) || !strings.Contains(text, "push") {
		t.Errorf("/undo does not name what it restored and what it could not (%s, %s): %q", outside, remote, text)
	}
	if strings.Contains(text, "nothing outside the snapshots") {
		t.Errorf("/undo says nothing lies outside the snapshots: %q", text)
	}
	// The model is told too, with the next message.
	fake := llm.NewFake(llm.FakeReply("ok"))
	e.rt.broker.providers[llm.RoleChat] = cachedProvider{p: fake, ref: llm.ModelRef{Name: "demo", Provider: llm.ProviderOllama, Model: "m"}}
	e.turn(t, session, "Go on.", false)
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("model calls after /undo: %d", len(calls))
	}
	msgs := calls[0].Messages
	if told := msgs[len(msgs)-1].Content[0].Text; !strings.Contains(told, outside) || !strings.Contains(told, remote) {
		t.Errorf("the model is not told what /undo could not restore: %q", told)
	}
	res, err = e.client.RunCommand(context.Background(), &pb.CommandRequest{SessionId: session, Name: "undo"})
	if err != nil || !strings.HasPrefix(res.GetText(), "nothing to undo") {
		t.Errorf("a second /undo: %q, %v", res.GetText(), err)
	}
	e.stop(t)
	verifiedChain(t, e.root)
}

// TestOutsideWritesAreEffects: a file tool's write outside the
// workspace (approved), which no snapshot can take, is an effect of the
// call naming the path; a workspace write is not; an executor that knows
// its effects (a command's sandbox) is taken at its word, each effect
// once and masked by DLP.
func TestOutsideWritesAreEffects(t *testing.T) {
	e := newEnv(t, envOptions{approver: &stubApprover{allow: true}})
	outside := filepath.Join(e.home, "notes", "todo.txt")
	out := e.handle("s1", "write_file", map[string]any{"path": outside, "content": "x"})
	if !out.Executed || len(out.Effects) != 1 || out.Effects[0] != (sessions.Effect{Kind: sessions.EffectWrite, Subject: outside}) {
		t.Fatalf("write outside the workspace: executed %v, effects %+v; want one write of %s", out.Executed, out.Effects, outside)
	}
	out = e.handle("s1", "write_file", map[string]any{"path": filepath.Join(e.root, "a.txt"), "content": "x"})
	if !out.Executed || len(out.Effects) != 0 {
		t.Fatalf("write in the workspace: executed %v, effects %+v; want none", out.Executed, out.Effects)
	}
	known := ExecutorFunc(func(context.Context, Call) (Result, error) {
		return Result{EffectsKnown: true, Effects: []sessions.Effect{
			{Kind: sessions.EffectNetwork, Subject: "example.com:443"}, {Kind: sessions.EffectNetwork, Subject: "example.com:443"},
			{Kind: sessions.EffectNetwork, Subject: testToken + ".example.com:443"}}}, nil
	})
	e = newEnv(t, envOptions{executors: map[action.Type]Executor{action.ExecuteCommand: known}})
	out = e.handle("s1", "execute_command", map[string]any{"command": "echo hi > /tmp/x"})
	if len(out.Effects) != 2 || out.Effects[0].Subject != "example.com:443" || strings.Contains(out.Effects[1].Subject, testToken) {
		t.Fatalf("effects the executor knows: %+v; want example.com:443 once and the token masked (not /tmp/x)", out.Effects)
	}
}
