package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/parallax/parallax/internal/e2e/tmux"
)

// tmuxWait bounds each scenario's waits for the screen; generous, for a
// cold go get on a busy machine. It is a deadline to fail by, never a
// measure.
const tmuxWait = 3 * time.Minute

// tmuxRows is the height of every chat's terminal.
const tmuxRows = 30

// wrapAnswer is the scripted model's long answer: several sentences,
// longer than 200 columns, with a wide CJK word, an emoji and a
// combining accent.
const wrapAnswer = "Wrapping check: the quick brown fox jumps over the lazy dog while the barista of the cafe\u0301 " +
	"serves 日本語のテキスト to a 🦊 that waits patiently. Every word of this answer must appear on the screen, folded at " +
	"word boundaries to the width of the pane, at eighty and at two hundred columns alike. Nothing may be cut at the " +
	"right edge, and no row may be wider than the terminal. The end of the answer is marked by the word omega."

// providerRefusal is what the scripted model's provider answers the
// second message with (an HTTP 400): the chat's error line.
const providerRefusal = "the model refused this request because the context of the conversation holds more tokens than the " +
	"model accepts at once; shorten the conversation or choose a model with a larger context window, then try again"

// TestChatUnderTmux drives the terminal chat as a user does, in real
// terminals (tmux) at 80 and at 200 columns, against the real engine in
// the production configuration (agent sandbox on, each command in its
// kernel sandbox), and checks what the captured screens show: a long
// answer, a long error and /history wrapped whole at word boundaries
// with no row wider than the pane; an approval raised by chat A's turn
// shown in a second chat B with the action, why and the keys, answered
// there, the command then run (the file on disk) and its result on A's
// screen; and /undo after a go get from a loopback module proxy putting
// go.mod and go.sum back byte for byte, the screen saying what it
// restored.
func TestChatUnderTmux(t *testing.T) {
	for _, cols := range []int{80, 200} {
		t.Run(map[int]string{80: "80 columns", 200: "200 columns"}[cols], func(t *testing.T) { chatUnderTmux(t, cols) })
	}
}

// tmuxChats is one scenario: the engine, its two chats (tmux sessions
// "a" and "b") and the pane width.
type tmuxChats struct {
	t    *testing.T
	ctx  context.Context
	h    *hands
	ts   *tmux.Server
	cols int
}

func chatUnderTmux(t *testing.T, cols int) {
	agent, env := goRegistry(t, depModule, depVersion, depFiles)
	h := newHands(t, handsSetup{agent: agent, env: env})
	h.goModule()
	ts := tmux.Start(t, mergeEnv(h.env, []string{"TERM=xterm-256color"}))
	h.parallax("start", "--detach")
	t.Cleanup(func() { h.parallax("stop") })
	h.fake.script(
		sseText(wrapAnswer),
		func(w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"`+providerRefusal+`","type":"invalid_request_error"}}`, http.StatusBadRequest)
		},
		sseToolCall("call_a", "execute_command", map[string]any{"command": "echo approved > ~/notes.txt"}),
		sseText("Wrote your notes."),
		sseToolCall("call_g", "execute_command", map[string]any{"command": "go get " + depModule + "@" + depVersion, "timeout_seconds": 600}),
		sseText("Added the dependency."),
	)
	ctx, cancel := context.WithTimeout(t.Context(), tmuxWait)
	defer cancel()
	c := &tmuxChats{t: t, ctx: ctx, h: h, ts: ts, cols: cols}
	for _, name := range []string{"a", "b"} {
		ts.NewSession(name, cols, tmuxRows, h.root, h.bin, "chat")
		c.wait(name, "message, or /help")
	}
	c.wrapping()
	c.approvalFromB()
	c.undoGoGet()
	c.history()
	for _, name := range []string{"a", "b"} {
		sc, _ := ts.Capture(name)
		t.Logf("chat %s at %d columns, its last screen:\n%s", name, cols, sc)
	}
}

// parallax runs the binary in the scenario's workspace and environment.
func (h *hands) parallax(args ...string) {
	h.t.Helper()
	c := exec.Command(h.bin, args...) //nolint:gosec // built by the test
	c.Dir, c.Env = h.root, h.env
	if out, err := c.CombinedOutput(); err != nil {
		h.t.Errorf("parallax %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// wait waits for want on a row of chat name's screen (non-breaking
// spaces read as spaces) and returns the screen.
func (c *tmuxChats) wait(name, want string) tmux.Screen {
	c.t.Helper()
	return c.ts.WaitFor(c.ctx, name, "\""+want+"\"", func(sc tmux.Screen) bool { return plain(sc).Contains(want) })
}

// idle waits until chat name shows want and its turn has ended (the
// status line no longer says "working").
func (c *tmuxChats) idle(name, want string) tmux.Screen {
	c.t.Helper()
	return c.ts.WaitFor(c.ctx, name, "\""+want+"\" and the turn's end", func(sc tmux.Screen) bool {
		sc = plain(sc)
		return sc.Contains(want) && !sc.Contains(" · working")
	})
}

// plain is the screen with non-breaking spaces as spaces.
func plain(sc tmux.Screen) tmux.Screen {
	out := make(tmux.Screen, len(sc))
	for i, row := range sc {
		out[i] = strings.ReplaceAll(row, "\u00a0", " ")
	}
	return out
}

// fits fails for a screen of more or fewer rows than the pane, or with
// a row wider than the pane (by display width).
func (c *tmuxChats) fits(what string, sc tmux.Screen) {
	c.t.Helper()
	if len(sc) != tmuxRows {
		c.t.Errorf("%s: the capture has %d rows, the pane %d:\n%s", what, len(sc), tmuxRows, sc)
	}
	for i, row := range sc {
		if w := ansi.StringWidth(row); w > c.cols {
			c.t.Errorf("%s: row %d is %d columns wide, the pane %d: %q", what, i, w, c.cols, row)
		}
	}
}

// whole fails unless text is on the screen whole and wrapped at word
// boundaries: the words of the screen's rows, in order, hold the words of
// text one after the other (a word cut by the wrapping or cut off at the
// right edge would be two words, or none), and each of its rows but the
// last was broken only because the next word would not fit.
func (c *tmuxChats) whole(what string, sc tmux.Screen, text string) {
	c.t.Helper()
	type word struct {
		s   string
		row int
	}
	var words []word
	for i, row := range plain(sc) {
		for _, w := range strings.Fields(row) {
			words = append(words, word{w, i})
		}
	}
	want := strings.Fields(text)
	for start := 0; start+len(want) <= len(words); start++ {
		match := true
		for j, w := range want {
			if words[start+j].s != w {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		for j := start + 1; j < start+len(want); j++ {
			prev, next := words[j-1], words[j]
			if next.row != prev.row && ansi.StringWidth(plain(sc)[prev.row])+1+ansi.StringWidth(next.s) <= c.cols {
				c.t.Errorf("%s: row %d was broken before %q, which fits after it at %d columns:\n%s", what, prev.row, next.s, c.cols, sc)
			}
		}
		return
	}
	c.t.Errorf("%s: not on the screen whole, at word boundaries (want the words of %q):\n%s", what, text, sc)
}

// wrapping: a long answer, then a long error line, at the pane's width.
func (c *tmuxChats) wrapping() {
	c.ts.Type("a", "tell me a long story\r")
	sc := c.idle("a", "omega.")
	c.fits("the long answer", sc)
	c.whole("the long answer", sc, wrapAnswer)

	c.ts.Type("a", "and again\r")
	sc = c.idle("a", "then try again")
	c.fits("the long error", sc)
	c.whole("the long error", sc, "error:")
	c.whole("the long error", sc, "the model call failed: llm \"local\" (openai_compatible): rejected: status 400: invalid_request_error: "+providerRefusal)
	if plain(sc).Contains("refused by Parallax") {
		c.t.Errorf("the provider's 400 reads as a refusal of Parallax's:\n%s", sc)
	}
}

// approvalFromB: chat A's turn proposes a write outside the workspace,
// which the gate escalates; chat B shows it (naming A's session), with
// the action, why and the keys, and answers y; the command runs and A
// shows its result.
func (c *tmuxChats) approvalFromB() {
	notes := c.h.homePath("notes.txt")
	session := c.sessionOf("a")
	c.ts.Type("a", "write my notes\r")
	sb := c.wait("b", "APPROVE?")
	c.fits("chat B's approval", sb)
	c.whole("chat B's approval", sb, "APPROVE? (session "+session+") execute_command echo approved > ~/notes.txt")
	c.whole("chat B's approval", sb, "why: writes outside the workspace and the scratch directories: write to ~/notes.txt")
	for _, key := range []string{"[y] allow once", "[s] allow for this session", "[p] allow execute_command", "[n] deny"} {
		if !plain(sb).Contains(key) {
			c.t.Errorf("chat B's approval lacks %q on one row:\n%s", key, sb)
		}
	}
	// Chat A, whose turn waits, is asked too (without naming its own
	// session); B answers first.
	sa := c.wait("a", "APPROVE? execute_command echo approved > ~/notes.txt")
	c.fits("chat A's approval", sa)
	c.t.Logf("the approval, in chat B:\n%s\nand in chat A:\n%s", sb, sa)
	if _, err := os.Stat(notes); err == nil {
		c.t.Fatalf("%s exists before the approval", notes)
	}
	c.ts.Key("b", "y")
	sa = c.idle("a", "Wrote your notes.")
	c.fits("chat A after the approval", sa)
	for _, want := range []string{"execute_command echo approved > ~/notes.txt  ✓ ALLOW", "approval answered elsewhere: ALLOW"} {
		if !plain(sa).Contains(want) {
			c.t.Errorf("chat A lacks %q:\n%s", want, sa)
		}
	}
	if plain(sa).Contains("APPROVE?") {
		c.t.Errorf("chat A still asks the approval B answered:\n%s", sa)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "approved\n" {
		c.t.Errorf("%s after the approval: %q, %v; want the approved command's line", notes, b, err)
	}
	c.wait("b", "you allowed once execute_command echo approved > ~/notes.txt")
}

// sessionOf is the session chat name shows, read from its status line.
func (c *tmuxChats) sessionOf(name string) string {
	c.t.Helper()
	re := regexp.MustCompile(`^session ([0-9a-f]+)`)
	sc, err := c.ts.Capture(name)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, row := range sc {
		if m := re.FindStringSubmatch(row); m != nil {
			return m[1]
		}
	}
	c.t.Fatalf("chat %s shows no session on its status line:\n%s", name, sc)
	return ""
}

// undoGoGet: the model runs go get from the loopback proxy (go.mod and
// go.sum change on disk), then /undo puts both back byte for byte and
// says what it restored.
func (c *tmuxChats) undoGoGet() {
	gomod, gosum := c.h.abs("go.mod"), c.h.abs("go.sum")
	before := snapshot(c.t, gomod, gosum)
	c.ts.Type("a", "add the dependency\r")
	sc := c.idle("a", "Added the dependency.")
	if b, _ := os.ReadFile(gomod); !strings.Contains(string(b), depModule+" "+depVersion) {
		c.t.Fatalf("go get did not change go.mod, so /undo is not tested:\n%s\nthe screen:\n%s", b, sc)
	}
	if !plain(sc).Contains("execute_command go get " + depModule + "@" + depVersion + "  ✓ ALLOW") {
		c.t.Errorf("the go get call is not on the screen:\n%s", sc)
	}
	c.ts.Type("a", "/undo\r")
	sc = c.wait("a", "undid turn")
	c.fits("after /undo", sc)
	unchangedSince(c.t, before)
	for _, want := range []string{"go.mod", "go.sum", "written back", "removed"} {
		if !plain(sc).Contains(want) {
			c.t.Errorf("/undo does not say %q:\n%s", want, sc)
		}
	}
}

// history: /history shows the turns, the long answer wrapped whole.
func (c *tmuxChats) history() {
	c.ts.Type("a", "/history\r")
	sc := c.wait("a", "tool: execute_command go get")
	c.fits("/history", sc)
	c.whole("/history", sc, "assistant: "+wrapAnswer)
	c.whole("/history", sc, "tool: execute_command echo approved > ~/notes.txt → ALLOW, ok")
}
