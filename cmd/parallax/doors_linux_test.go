package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/engine"
	"github.com/parallax/parallax/internal/wire"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// Issue 19, item 1: the files executor acts on what the gate decided. A
// background flipper turns notes.txt between a harmless file and a link
// to ~/.aws/credentials (then to ~/.bashrc) as fast as it can while the
// model reads and writes notes.txt hundreds of times: every call either
// ran on the harmless file or was refused; the secret never reaches the
// model and the dotfiles keep their bytes.
func TestFileCallsCannotFollowARacingLink(t *testing.T) {
	h := newHands(t, handsSetup{})
	secret := "leak-" + h.token
	creds, bashrc := h.homePath(".aws/credentials"), h.homePath(".bashrc")
	h.write(map[string]string{
		creds:       "[default]\nnote = " + secret + "\n",
		bashrc:      "# the user's own bashrc\nexport EDITOR=vi\n",
		"notes.txt": "harmless\n",
	})
	snap := snapshot(t, creds, bashrc)
	var ran, refused, failed int
	for _, target := range []string{creds, bashrc} {
		t.Run(filepath.Base(target), func(t *testing.T) {
			stop := flipLink(t, h.abs("notes.txt"), target)
			direct := sseToolCalls(toolCall{"direct", "read_file", map[string]any{"path": target}})
			tr := h.runScripted("tidy my notes", append([]func(http.ResponseWriter){direct}, raceAnswers(h.abs("notes.txt"), 4, 50)...)...)
			flips := stop()
			// A read that lands on the link's target is what was decided
			// only when the gate lets the model read that file directly.
			var readable string
			if strings.HasPrefix(tr.decision("direct"), "ALLOW:") {
				readable = string(*snap[target])
			}
			r, x, f := classifyRace(t, tr, secret, readable, 4*50)
			ran, refused, failed = ran+r, refused+x, failed+f
			t.Logf("%s: %d flips; %d calls ran on the harmless file, %d refused by the gate or engine, %d failed in the executor",
				filepath.Base(target), flips, r, x, f)
			if !tr.ended("Done.") {
				t.Errorf("the turn did not end in its reply")
			}
		})
	}
	if got := h.leaked(secret); len(got) > 0 {
		t.Errorf("the credentials' secret reached the model")
	}
	unchangedSince(t, snap)
	t.Logf("in all: %d ran, %d refused, %d failed in the executor", ran, refused, failed)
	if ran == 0 || refused+failed == 0 {
		t.Errorf("the race was not exercised: %d ran, %d refused, %d failed", ran, refused, failed)
	}
}

// flipLink flips name between a regular file holding "harmless\n" and a
// symbolic link to target, each by an atomic rename, until the returned
// stop is called; stop returns how many flips were made.
func flipLink(t *testing.T, name, target string) (stop func() int) {
	t.Helper()
	var done atomic.Bool
	var wg sync.WaitGroup
	var flips int
	reg, lnk := name+".reg", name+".lnk"
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			_ = os.Remove(reg)
			_ = os.WriteFile(reg, []byte("harmless\n"), 0o644)
			_ = os.Rename(reg, name)
			_ = os.Remove(lnk)
			_ = os.Symlink(target, lnk)
			_ = os.Rename(lnk, name)
			flips++
		}
	}()
	return func() int {
		done.Store(true)
		wg.Wait()
		_ = os.Remove(reg)
		_ = os.Remove(lnk)
		_ = os.Remove(name)
		_ = os.WriteFile(name, []byte("harmless\n"), 0o644)
		return flips
	}
}

// raceAnswers is rounds model answers of perRound calls each,
// alternating read_file and write_file on path.
func raceAnswers(path string, rounds, perRound int) []func(http.ResponseWriter) {
	var answers []func(http.ResponseWriter)
	for r := range rounds {
		var calls []toolCall
		for i := range perRound {
			id := fmt.Sprintf("call_%d_%d", r, i)
			if i%2 == 0 {
				calls = append(calls, toolCall{id, "read_file", map[string]any{"path": path}})
			} else {
				calls = append(calls, toolCall{id, "write_file", map[string]any{"path": path, "content": "harmless from the model\n"}})
			}
		}
		answers = append(answers, sseToolCalls(calls...))
	}
	return answers
}

// classifyRace checks every call of a race turn: ALLOWed and ran on the
// harmless file, refused (a BLOCK), or ALLOWed but failed in the
// executor, which saw the name change under it. Anything else fails the
// test.
func classifyRace(t *testing.T, tr turn, secret, readable string, n int) (ran, refused, failed int) {
	rules := map[string]int{}
	t.Helper()
	for r := range n / 50 {
		for i := range 50 {
			id := fmt.Sprintf("call_%d_%d", r, i)
			v := tr.decision(id)
			out, ok, found := tr.result(id)
			switch {
			case !found:
				t.Errorf("%s: no result (verdict %s)", id, v)
			case strings.Contains(out, secret):
				t.Errorf("%s: the result holds the secret (verdict %s): %q", id, v, out)
			case !strings.HasPrefix(v, "ALLOW:"):
				refused++
				rules[v]++
			case !ok:
				failed++
				rules["failed: "+firstLine(out)]++
			case i%2 == 0 && readable != "" && strings.Contains(out, readable):
				ran++
				rules["read the target, readable directly"]++
			case i%2 == 0 && !strings.Contains(out, "harmless"):
				t.Errorf("%s: read returned %q, want the harmless file", id, out)
			default:
				ran++
			}
		}
	}
	t.Logf("outcomes: %v", rules)
	return ran, refused, failed
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// Issue 19, item 2: a search over the workspace, by the values
// themselves and by ".", and a recursive listing never bring the
// engine's sealed state (the API token, the judge's canary, the client
// token) or the .env values to the model.
func TestSearchCannotReturnSealedState(t *testing.T) {
	h := newHands(t, handsSetup{})
	envValue := "env-" + h.token
	h.write(map[string]string{".env": "API_KEY=" + envValue + "\n", "src/main.go": "package main\n"})
	var secrets []string
	for _, p := range []string{pxworkspace.APITokenPath(h.root), pxworkspace.CanaryPath(h.root), pxworkspace.ClientTokenPath(h.root)} {
		b, err := os.ReadFile(p)
		if err != nil || len(strings.TrimSpace(string(b))) < 8 {
			t.Fatalf("%s: %q, %v", p, b, err)
		}
		secrets = append(secrets, strings.TrimSpace(string(b)))
	}
	secrets = append(secrets, envValue)
	calls := []toolCall{
		{"dot", "search_files", map[string]any{"path": h.root, "pattern": "."}},
		{"rel", "search_files", map[string]any{"path": ".", "pattern": "."}},
		{"names", "search_files", map[string]any{"path": h.root, "pattern": "glob:*"}},
		{"list", "list_directory", map[string]any{"path": h.root, "recursive": true}},
	}
	for i, s := range secrets {
		calls = append(calls, toolCall{fmt.Sprintf("value_%d", i), "search_files", map[string]any{"path": h.root, "pattern": s}})
	}
	tr := h.runScripted("look around", sseToolCalls(calls...))
	for _, c := range calls {
		out, ok, _ := tr.result(c.id)
		t.Logf("%s: %s ok=%v %q", c.id, tr.decision(c.id), ok, firstLine(out))
	}
	// The searches must have run: a refused search proves nothing.
	for _, id := range []string{"dot", "list"} {
		out, ok, _ := tr.result(id)
		if !strings.HasPrefix(tr.decision(id), "ALLOW:") || !ok || !strings.Contains(out, "main.go") {
			t.Fatalf("the %s walk did not run over the workspace (%s): %q", id, tr.decision(id), out)
		}
		// .env and .parallax are skipped and counted, not silently dropped.
		if !strings.Contains(out, "entries withheld") {
			t.Errorf("the %s walk does not count what it withheld: %q", id, out)
		}
	}
	seen := h.toolResultsSeen()
	if !strings.Contains(seen, "main.go") {
		t.Fatalf("the model's requests carry no tool results: %q", seen)
	}
	for i, s := range secrets {
		for _, form := range []string{s, reverse(s), hex.EncodeToString([]byte(s))} {
			if strings.Contains(seen, form) {
				t.Errorf("sealed value %d reached the model in a tool result", i)
			}
		}
	}
	for _, c := range calls {
		if out, _, _ := tr.result(c.id); containsAny(out, secrets) {
			t.Errorf("%s: a sealed value is in the result", c.id)
		}
	}
	if !tr.ended("Done.") {
		t.Errorf("the turn did not end in its reply")
	}
}

// Issue 19, item 4: bytes that are not UTF-8 in a command's output and
// in a file name reach the model escaped, the turn ends in its reply and
// the engine never restarted its (sandboxed) agent.
func TestInvalidBytesCannotBreakTheRun(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.write(map[string]string{"planted/bad\xff\xfe.txt": "x"})
	h.startEngine(h.root)
	tr := h.runScripted("look", sseToolCalls(
		toolCall{"cmd", "execute_command", map[string]any{"command": `printf 'out\377\376end'`}},
		toolCall{"list", "list_directory", map[string]any{"path": h.abs("planted")}},
		toolCall{"walk", "list_directory", map[string]any{"path": h.root, "recursive": true}},
	), sseToolCalls(toolCall{"after", "execute_command", map[string]any{"command": "echo still-" + h.token}}))
	if !tr.ended("Done.") {
		t.Fatalf("the turn did not end in its reply:\n%s", tr.allOutput())
	}
	for id, want := range map[string]string{"cmd": "out\xff\xfeend", "list": "bad\xff\xfe.txt", "walk": "bad\xff\xfe.txt"} {
		out, ok, _ := tr.result(id)
		back, err := wire.UnText(out)
		if !ok || !utf8.ValidString(out) || !strings.HasPrefix(out, wire.TextMarker) || err != nil || !strings.Contains(back, want) {
			t.Errorf("%s: got %q (ok %v; unescaped %q, %v), want %q escaped", id, out, ok, back, err, want)
		}
	}
	if out, _, _ := tr.result("after"); !strings.Contains(out, "still-"+h.token) {
		t.Errorf("the call after the invalid bytes did not run: %q", out)
	}
	// What the model received next carries the escaped text.
	saw := h.modelSaw()
	for _, want := range []string{`out\\xff\\xfeend`, `bad\\xff\\xfe.txt`} {
		if !strings.Contains(saw, want) {
			t.Errorf("the model never received %s", want)
		}
	}
	st, err := h.px(h.root, "status")
	if err != nil || !strings.Contains(st, ", 0 restarts") {
		t.Errorf("status: the agent restarted or the engine is gone (%v):\n%s", err, st)
	}
}

// Issue 19, item 5: plain `parallax run` (the agent's sandbox on) prints
// the model's text without its terminal control: no OSC 52 clipboard
// write, title change or screen clear, in 7-bit or C1 form, reaches the
// terminal.
func TestPlainRunCannotEmitTerminalControl(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.fake.script(sseTextPieces(
		"Hello \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07there",
		", \x1b]0;pwn", "ed title\x1b\\friend\x1b[2J\x1b",
		"[H\u009d52;c;eA==\x07\u009b2J\x1bc\x1b[31m!\x1b[0m\a\n",
	))
	out := h.runPlain("say hello")
	for _, c := range []byte{0x1b, 0x9b, 0x9d, 0x07} {
		if i := bytes.IndexByte(out, c); i >= 0 {
			t.Errorf("stdout holds the byte %#x at %d: %q", c, i, out)
		}
	}
	if !strings.Contains(string(out), "Hello there, friend") {
		t.Errorf("the words around the sequences are gone: %q", out)
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Issue 19, item 3: a command of another workspace cannot drive this
// workspace's engine. Workspace A (registered in the home) runs its
// engine; workspace B's agent runs `make`, whose recipe looks at A's
// state, connects to A's socket with python3, and runs the real client
// (a copy of parallax, and of this test binary as a gRPC client) to send
// A's agent a message, subscribe to its events, approve and stop it,
// with no, A's (unreadable) and a wrong credential. A's engine still
// runs with the same pid, its model was never asked anything and its
// client token never reached B's model.
func TestOtherWorkspaceCannotDriveThisEngine(t *testing.T) {
	h := newHands(t, handsSetup{})
	alpha, fakeA := h.otherWorkspace("src/alpha", "")
	h.startEngine(alpha)
	before, err := h.px(alpha, "status")
	if err != nil {
		t.Fatalf("status of A: %v\n%s", err, before)
	}
	tokenA, err := os.ReadFile(pxworkspace.ClientTokenPath(alpha))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e2e.CopyFile(t, self, h.abs("bin/doorclient"), 0o755)
	e2e.CopyFile(t, h.bin, h.abs("bin/parallax"), 0o755)
	sock := engine.SocketPath(alpha)
	h.makefile(map[string][]string{"all": {
		"@echo ran-" + h.token,
		"-ls -la " + pxworkspace.StateDir(alpha),
		"-cat " + pxworkspace.ClientTokenPath(alpha),
		fmt.Sprintf(`@-python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("%s"); s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); print("door OK python connected")'`, sock),
		"-./bin/doorclient -test.run='^TestDoorClientHelperProcess$$' -door-client=" + alpha,
		"-./bin/parallax stop --workspace " + alpha,
		"-cd " + alpha + " && " + h.abs("bin/parallax") + " run 'door: hello from B'",
	}}, "all")
	tr := h.run(slow("make"))
	h.mustAllow(tr, 0)
	h.ran(tr, 0)
	out, _ := tr.output(0)
	t.Logf("B's command:\n%s", out)
	if !strings.Contains(out, "door refused send a message") {
		t.Fatalf("the door client did not run its attempts:\n%s", out)
	}
	if strings.Contains(out, "door OK") {
		t.Errorf("a command of B got through to A's engine:\n%s", out)
	}
	after, err := h.px(alpha, "status")
	pid := func(s string) string { f := strings.Fields(s); return strings.Join(f[:min(len(f), 4)], " ") }
	if err != nil || pid(after) != pid(before) {
		t.Errorf("A's engine stopped or restarted:\nbefore:\n%s\nafter (%v):\n%s", before, err, after)
	}
	if n := len(fakeA.requests()); n != 0 {
		t.Errorf("A's model was asked %d times: %v", n, fakeA.requests())
	}
	if got := h.leaked(strings.TrimSpace(string(tokenA))); len(got) > 0 {
		t.Errorf("A's client token reached B's model")
	}
}

// Issue 19, item 3, the approval: a command of another workspace
// cannot answer this engine's pending tier 3 escalation, even knowing
// its id. A's model proposes a write outside A (escalated to a human);
// while A's own client holds the approval open, B's agent runs `make`,
// whose recipe approves it as "user" with no and a wrong credential
// (the token stays sealed in A's .parallax). Then the same client runs
// outside any sandbox, as if B's kernel sandbox were missing: the
// engine's credential check is what stands then. The write never ran,
// the request was still pending afterwards, A's own denial decided it
// and A's audit chain records no approval of it.
func TestOtherWorkspaceCannotApproveAPendingEscalation(t *testing.T) {
	h := newHands(t, handsSetup{})
	// The timeout bounds the approval should the test fail before A's
	// own denial.
	alpha, fakeA := h.otherWorkspace("src/alpha", "approval:\n  timeout: 120s\n")
	marker := h.homePath("approved-" + h.token + ".txt")
	fakeA.script(sseToolCall("outside", "write_file", map[string]any{"path": marker, "content": "approved by B\n"}), sseText("Done."))
	h.startEngine(alpha)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a, sub := subscribed(ctx, t, alpha)
	resp, err := a.SendMessage(ctx, &pb.SendMessageRequest{Text: "write outside", Origin: "run"})
	if err != nil {
		t.Fatal(err)
	}
	id := awaitEvent(t, sub, func(ev *pb.Event) bool { return ev.GetApprovalNeeded() != nil }).GetApprovalNeeded().GetApprovalId()
	t.Logf("A's approval %s is pending", id)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e2e.CopyFile(t, self, h.abs("bin/doorclient"), 0o755)
	helper := []string{"-test.run=^TestDoorClientHelperProcess$", "-door-client=" + alpha, "-door-approval=" + id}
	h.makefile(map[string][]string{"all": {"@echo ran-" + h.token, "-./bin/doorclient '" + strings.ReplaceAll(strings.Join(helper, "' '"), "$", "$$") + "'"}}, "all")
	tr := h.run(slow("make"))
	h.mustAllow(tr, 0)
	h.ran(tr, 0)
	inB, _ := tr.output(0)
	hc := exec.CommandContext(ctx, self, helper...) //nolint:gosec // the test binary itself
	hc.Dir, hc.Env = h.root, h.env
	outside, err := hc.CombinedOutput()
	if err != nil {
		t.Fatalf("the door client outside the sandbox: %v\n%s", err, outside)
	}
	for where, out := range map[string]string{"in B's sandbox": inB, "outside any sandbox": string(outside)} {
		t.Logf("the door client %s:\n%s", where, out)
		if strings.Count(out, " approve pending "+id+" with ") != 2 {
			t.Fatalf("the door client %s did not make its two attempts:\n%s", where, out)
		}
		if strings.Contains(out, "door OK") {
			t.Errorf("the door client %s got through to A's engine:\n%s", where, out)
		}
	}
	if st, err := a.Status(ctx, &pb.StatusRequest{}); err != nil || st.GetPendingApprovals() != 1 {
		t.Errorf("after the attempts: %d approvals pending (%v), want A's still pending", st.GetPendingApprovals(), err)
	}
	denyAndFinish(ctx, t, a, sub, id, resp.GetTurnId())
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the escalated write ran (%v)", err)
	}
	if out, err := h.px(alpha, "stop"); err != nil {
		t.Fatalf("stop A: %v\n%s", err, out)
	}
	checkApprovalDenied(t, alpha, id)
}

// subscribed is a client of root's engine with its token, and its event
// stream, past the first event.
func subscribed(ctx context.Context, t *testing.T, root string) (*engine.Client, pb.ClientService_SubscribeClient) {
	t.Helper()
	c, err := engine.DialClient(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sub, err := c.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil {
		t.Fatal(err)
	}
	return c, sub
}

// awaitEvent is the next event for which want is true; the stream's
// context bounds the wait.
func awaitEvent(t *testing.T, sub pb.ClientService_SubscribeClient, want func(*pb.Event) bool) *pb.Event {
	t.Helper()
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatalf("waiting for an event of A's engine: %v", err)
		}
		if want(ev) {
			return ev
		}
	}
}

// denyAndFinish denies the approval id as A's own client and waits for
// the turn to end: the request must come down as a BLOCK.
func denyAndFinish(ctx context.Context, t *testing.T, a *engine.Client, sub pb.ClientService_SubscribeClient, id, turn string) {
	t.Helper()
	if r, err := a.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: id}); err != nil || !r.GetAccepted() {
		t.Errorf("A's own denial: accepted=%v %q (%v), want accepted", r.GetAccepted(), r.GetReason(), err)
	}
	var resolved []string
	awaitEvent(t, sub, func(ev *pb.Event) bool {
		if r := ev.GetApprovalResolved(); r != nil && r.GetApprovalId() == id {
			resolved = append(resolved, r.GetDecision().String()+" by "+r.GetBy())
		}
		return ev.GetResponseComplete().GetTurnId() == turn || ev.GetError().GetTurnId() == turn
	})
	if want := "DECISION_BLOCK by clients"; strings.Join(resolved, "; ") != want {
		t.Errorf("approval %s resolved: got %q, want %q", id, resolved, want)
	}
}

// checkApprovalDenied reads root's audit chain (verified first): the
// request id was put to a human and denied by the local user; no entry
// approves it.
func checkApprovalDenied(t *testing.T, root, id string) {
	t.Helper()
	if _, err := pxworkspace.VerifyChain(root); err != nil {
		t.Fatalf("A's audit chain: %v", err)
	}
	var requested, denied bool
	err := audit.Scan(audit.DefaultPath(root), audit.Filter{}, func(en audit.Entry) error {
		if en.Detail.Ref != id {
			return nil
		}
		switch {
		case en.Type == audit.ApprovalRequested:
			requested = true
		case en.Type == audit.ActionApproved || en.Decision == "ALLOW":
			t.Errorf("A's audit approves %s: %s %s %q", id, en.Type, en.Decision, en.Reason)
		case en.Type == audit.ActionBlocked && strings.HasPrefix(en.Reason, "denied on clients by "+engine.ActorLocalUser):
			denied = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !requested || !denied {
		t.Errorf("A's audit of %s: requested %v, denied by the local user %v; want both", id, requested, denied)
	}
}

// otherWorkspace initialises a second workspace at the home-relative
// rel (registered in the scenario's home), configured as the scenario's
// own plus the top-level lines extra, with a model of its own.
func (h *hands) otherWorkspace(rel, extra string) (string, *fakeOpenAI) {
	h.t.Helper()
	root, fake := h.homePath(rel), newFakeOpenAI(h.t)
	if err := os.MkdirAll(root, 0o755); err != nil {
		h.t.Fatal(err)
	}
	if _, err := pxworkspace.Init(context.Background(), root, pxworkspace.InitOptions{Home: h.home}); err != nil {
		h.t.Fatal(err)
	}
	cfg, err := os.ReadFile(pxworkspace.ConfigPath(h.root))
	if err != nil {
		h.t.Fatal(err)
	}
	own := strings.ReplaceAll(string(cfg), h.fake.srv.URL, fake.srv.URL) + extra
	if err := os.WriteFile(pxworkspace.ConfigPath(root), []byte(own), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return root, fake
}
