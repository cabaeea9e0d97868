package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// human answers on the webhook: for each request it receives it posts the
// body answer(ask) returns (none when "") to the callback, signed, from
// its own goroutine, as a remote service would.
func (h *hookRig) human(t testing.TB, now func() time.Time, answer func(Ask) string) chan int {
	codes := make(chan int, 16)
	h.rc.mu.Lock()
	defer h.rc.mu.Unlock()
	h.rc.onAsk = func(ask Ask) {
		body := answer(ask)
		if body == "" {
			return
		}
		go func() {
			code, _ := postCallback(t, h.callback.URL, []byte(body), Sign(testSecret, now(), []byte(body)))
			codes <- code
		}()
	}
	return codes
}

func answerBody(id, decision, grant string) string {
	return fmt.Sprintf(`{"id":%q,"decision":%q,"grant":%q,"user":"alice"}`, id, decision, grant)
}

// TestFirstAnswerTerminalWebhook runs the same request past a terminal on
// a pipe and a webhook receiver on loopback, twice: once the webhook
// answers first, once the terminal does. The other answer is late each
// time.
func TestFirstAnswerTerminalWebhook(t *testing.T) {
	t.Run("webhook first", func(t *testing.T) {
		clock := newFakeClock()
		y := newTTY(t)
		h := newHookRig(t, clock.Now)
		codes := h.human(t, clock.Now, func(a Ask) string { return answerBody(a.ID, "allow", "none") })
		r := newRig(t, Config{Channels: []Channel{y.Terminal, h.hook}})
		got, err := r.b.Request(context.Background(), cmdAsk("s1", "privilege", "e2e-1", "sudo"))
		if err != nil || got.Decision != Allow || got.By != "webhook" || got.User != "alice" {
			t.Fatalf("got %+v, %v; want allow on webhook by alice", got, err)
		}
		if code := <-codes; code != http.StatusOK {
			t.Fatalf("webhook answer: got %d, want 200", code)
		}
		y.out.waitFor(t, "request id-1 ended on webhook: allow (approval_allowed)", 1)
		y.typeLine(t, "n") // too late: the prompt is gone
		y.out.waitFor(t, "input ignored", 1)
		if code, status := h.answer(t, answerBody("id-1", "deny", "none"), t0, testSecret); code != http.StatusConflict || status != "late" {
			t.Fatalf("second webhook answer: got %d %s, want 409 late", code, status)
		}
		_ = r.b.Close()
		want := []string{"ApprovalRequested/privilege", "ActionApproved/approval_allowed", "ApprovalRequested/approval_late_answer"}
		if got := types(entries(t, r.log)); !slices.Equal(got, want) {
			t.Fatalf("audit: got %v, want %v", got, want)
		}
	})
	t.Run("terminal first", func(t *testing.T) {
		clock := newFakeClock()
		y := newTTY(t)
		h := newHookRig(t, clock.Now)
		r := newRig(t, Config{Channels: []Channel{y.Terminal, h.hook}})
		res := start(r.b, context.Background(), cmdAsk("s1", "privilege", "e2e-2", "sudo"))
		if p := h.rc.next(t); p.event != "approval.requested" || p.sigErr != nil {
			t.Fatalf("webhook got %q (signature %v)", p.event, p.sigErr)
		}
		y.out.waitFor(t, "approve?", 1)
		y.typeLine(t, "n")
		got := waitResult(t, res)
		if got.err != nil || got.ans.Decision != Deny || got.ans.By != "terminal" {
			t.Fatalf("got %+v, %v; want deny on terminal", got.ans, got.err)
		}
		if p := h.rc.next(t); p.event != "approval.resolved" || !strings.Contains(string(p.body), `"by":"terminal"`) {
			t.Fatalf("webhook told %q: %s", p.event, p.body)
		}
		if code, status := h.answer(t, answerBody("id-1", "allow", "exact"), t0, testSecret); code != http.StatusConflict || status != "late" {
			t.Fatalf("webhook answer after the terminal's: got %d %s, want 409 late", code, status)
		}
		want := []string{"ApprovalRequested/privilege", "ActionBlocked/approval_denied", "ApprovalRequested/approval_late_answer"}
		es := entries(t, r.log)
		if got := types(es); !slices.Equal(got, want) {
			t.Fatalf("audit: got %v, want %v", got, want)
		}
		if !strings.Contains(es[2].Detail.Message, "late allow from webhook") {
			t.Errorf("late entry: %q", es[2].Detail.Message)
		}
	})
}

// gateAsk is what the gate's tier 3 stage would hand the broker for an
// ESCALATE verdict: the action decoded and analysed as the gate does.
func gateAsk(t testing.TB, session, typ, payload string, v verdict.Verdict) Ask {
	t.Helper()
	a, err := action.Decode(typ, json.RawMessage(payload))
	if err != nil {
		t.Fatal(err)
	}
	if err := action.Normalize(a, action.Env{Home: testHome}); err != nil {
		t.Fatal(err)
	}
	var eff *shell.Effects
	if p, ok := a.Payload.(*action.ExecuteCommandPayload); ok {
		eff = shell.Analyze(p.Command, shell.Options{Cwd: testWS, Home: testHome})
	}
	return Ask{Session: session, ActionType: typ, ActionHash: v.Hash, Payload: json.RawMessage(payload),
		Reason: v.Reason, Rule: v.Rule, Stage: string(v.Stage), Scope: ScopeOf(a, eff)}
}

// TestGateToWebhook is the whole flow: the gate escalates, the broker asks
// a human on a webhook (a real receiver on loopback answering through the
// callback handler), the answer becomes the verdict, a pattern grant
// covers the next matching action without a prompt and not a different
// one; gate and broker write one audit chain.
func TestGateToWebhook(t *testing.T) {
	clock := newFakeClock()
	log, path := openAudit(t, clock.Now)
	gate, err := shield.New(shield.Config{Workspace: testWS, Home: testHome, Audit: log})
	if err != nil {
		t.Fatal(err)
	}
	h := newHookRig(t, clock.Now)
	asked := make(chan Ask, 8)
	codes := h.human(t, clock.Now, func(a Ask) string {
		asked <- a
		if strings.Contains(string(a.Payload), "cp ") {
			return answerBody(a.ID, "allow", "pattern")
		}
		return answerBody(a.ID, "deny", "none")
	})
	b, err := New(Config{Recorder: log, Channels: []Channel{h.hook}, Clock: clock, NewID: seqIDs()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	decide := func(cmd string) verdict.Verdict {
		payload, _ := json.Marshal(map[string]string{"command": cmd})
		v := gate.Evaluate(context.Background(), shield.Request{Session: "s1", Type: "execute_command", Payload: payload})
		if v.Decision != verdict.Escalate {
			t.Fatalf("%s: gate said %v, want ESCALATE", cmd, v.Decision)
		}
		ans, err := b.Request(context.Background(), gateAsk(t, "s1", "execute_command", string(payload), v))
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return ans.Verdict(v.Hash)
	}
	steps := []struct {
		cmd    string
		want   verdict.Decision
		rule   string
		prompt bool
	}{
		{"cp /home/dev/project/report.txt /home/dev/shared/report.txt", verdict.Allow, CodeAllowed, true},
		{"cp /home/dev/project/notes.txt /home/dev/shared/notes.txt", verdict.Allow, CodeGranted, false},
		{"mv /home/dev/project/notes.txt /home/dev/shared/notes.txt", verdict.Block, CodeDenied, true},
	}
	for _, s := range steps {
		v := decide(s.cmd)
		if v.Decision != s.want || v.Rule != s.rule || v.Stage != verdict.StageHuman || v.Tier != 3 {
			t.Fatalf("%s: got %+v, want %v by %s", s.cmd, v, s.want, s.rule)
		}
		if s.prompt {
			a := <-asked
			if a.Rule != "write_outside_workspace" || a.Stage != "heuristic" {
				t.Errorf("%s: the human saw rule %q stage %q", s.cmd, a.Rule, a.Stage)
			}
			if code := <-codes; code != http.StatusOK {
				t.Fatalf("%s: answer got %d", s.cmd, code)
			}
		}
	}
	if n := len(asked); n != 0 {
		t.Fatalf("%d extra prompts", n)
	}
	_ = b.Close()
	var got []string
	for _, e := range entries(t, path) {
		got = append(got, string(e.Type)+"/"+e.Rule)
	}
	want := []string{
		"ActionEscalated/write_outside_workspace", "ApprovalRequested/write_outside_workspace", "ActionApproved/approval_allowed",
		"ActionEscalated/write_outside_workspace", "ActionApproved/approval_grant",
		"ActionEscalated/write_outside_workspace", "ApprovalRequested/write_outside_workspace", "ActionBlocked/approval_denied",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("audit chain:\n got %v\nwant %v", got, want)
	}
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
}
