package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

type fakeClient struct {
	mu        sync.Mutex
	sent      []string
	approvals []string
	commands  []string
	result    CommandResult
	err       error
}

func (f *fakeClient) Send(_ context.Context, session, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, session+":"+text)
	return f.err
}

func (f *fakeClient) Approve(_ context.Context, id string, allow bool, grant string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := id + "=deny"
	if allow {
		a = id + "=allow"
		if grant != "once" {
			a += "/" + grant
		}
	}
	f.approvals = append(f.approvals, a)
	return nil
}

func (f *fakeClient) Command(_ context.Context, session, name string, args []string) (CommandResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.commands = append(f.commands, session+":"+name+" "+strings.Join(args, " "))
	return f.result, f.err
}

// run feeds msg and every command it yields (not the event wait) back in.
func run(m *Model, msg tea.Msg) {
	_, cmd := m.Update(msg)
	drain(m, cmd)
}

func drain(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch out := cmd().(type) {
	case doneMsg:
		run(m, out)
	case tea.BatchMsg:
		for _, c := range out {
			drain(m, c)
		}
	}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	run(m, tea.KeyMsg{Type: tea.KeyEnter})
}

func newChat(c Client) *Model {
	events := make(chan Event)
	close(events) // the event wait returns at once; tests feed events by hand
	m := New(context.Background(), c, events, "s1", false)
	m.input.Cursor.SetMode(cursor.CursorStatic) // no blink timers
	run(m, tea.WindowSizeMsg{Width: 200, Height: 40})
	return m
}

func TestConversationOnScreen(t *testing.T) {
	c := &fakeClient{}
	m := newChat(c)
	typeText(m, "read my key")
	if len(c.sent) != 1 || c.sent[0] != "s1:read my key" {
		t.Fatalf("sent %q", c.sent)
	}
	for _, ev := range []Event{
		{Kind: MessageReceived, Session: "s1", Text: "read my key"},
		{Kind: TextDelta, Session: "s1", Text: "Let me "},
		{Kind: TextDelta, Session: "s1", Text: "look."},
		{Kind: ToolProposed, Session: "s1", CallID: "c1", Tool: "read_file", Summary: "/home/u/.ssh/id_rsa"},
		{Kind: Verdict, Session: "s1", CallID: "c1", Decision: "BLOCK", Rule: "guard_restricted", Reason: "credential file"},
		{Kind: ToolProposed, Session: "s1", CallID: "c2", Tool: "read_file", Summary: "/ws/a.txt"},
		{Kind: Verdict, Session: "s1", CallID: "c2", Decision: "ALLOW"},
		{Kind: ToolResult, Session: "s1", CallID: "c2", Output: "line one\nline two"},
		{Kind: TextDelta, Session: "s1", Text: "Done."},
		{Kind: ToolProposed, Session: "other", CallID: "x", Tool: "write_file", Summary: "/elsewhere"},
		{Kind: ResponseComplete, Session: "s1", Tokens: 42},
	} {
		run(m, eventMsg{ev, true})
	}
	v := view(m)
	for _, want := range []string{"you: read my key", "Let me look.", "read_file /home/u/.ssh/id_rsa", "✗ BLOCK guard_restricted",
		"credential file", "read_file /ws/a.txt", "✓ ALLOW", "line one… (17 bytes)", "Done.", "42 tokens"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "/elsewhere") {
		t.Error("another session's event is shown")
	}
	if strings.Index(v, "Let me look.") > strings.Index(v, "Done.") {
		t.Error("reply pieces out of order")
	}
}

func TestApprovalInline(t *testing.T) {
	c := &fakeClient{}
	m := newChat(c)
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s1", ApprovalID: "a1", Tool: "execute_command", Summary: "git push", Reason: "upload"}, true})
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s1", ApprovalID: "a2", Tool: "write_file", Summary: "/etc/x", Reason: "system"}, true})
	if v := view(m); !strings.Contains(v, "APPROVE?") || !strings.Contains(v, "git push") || !strings.Contains(v, "1 more waiting") {
		t.Fatalf("no prompt:\n%s", v)
	}
	run(m, tea.KeyMsg{Type: tea.KeyEnter})
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}})
	if len(c.approvals) != 0 {
		t.Fatalf("Enter or another key answered: %q", c.approvals)
	}
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}})
	if strings.Join(c.approvals, ",") != "a1=deny,a2=allow" {
		t.Fatalf("approvals %q", c.approvals)
	}
	if v := view(m); strings.Contains(v, "APPROVE?") || !strings.Contains(v, "you denied execute_command git push") {
		t.Fatalf("after answers:\n%s", v)
	}
	// An approval answered in another client leaves the prompt.
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s1", ApprovalID: "a3", Tool: "x"}, true})
	run(m, eventMsg{Event{Kind: ApprovalResolved, Session: "s1", ApprovalID: "a3", Decision: "ALLOW"}, true})
	if strings.Contains(view(m), "APPROVE?") {
		t.Fatal("resolved approval still asked")
	}
	// Allow for this session, and the offered pattern (only when one is).
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s1", ApprovalID: "a4", Tool: "execute_command", Summary: "go test ./...", Reason: "network"}, true})
	if v := view(m); !strings.Contains(v, "[s] allow for this session") || strings.Contains(v, "[p]") {
		t.Fatalf("prompt without a pattern:\n%s", v)
	}
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'p'}}) // no pattern offered: no answer
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'s'}})
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s1", ApprovalID: "a5", Tool: "execute_command", Summary: "npm install left-pad",
		Reason: "network", Pattern: "execute_command npm"}, true})
	if v := view(m); !strings.Contains(v, "[p] allow execute_command npm") {
		t.Fatalf("prompt with a pattern:\n%s", v)
	}
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'p'}})
	if got := strings.Join(c.approvals, ","); !strings.HasSuffix(got, "a4=allow/session,a5=allow/pattern") {
		t.Fatalf("approvals %q", got)
	}
	// An approval raised in another session of the engine (a parallax run
	// that cannot answer) is shown here, naming its session, and answered.
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s9", ApprovalID: "a9", Tool: "execute_command", Summary: "npm publish", Reason: "publishes"}, true})
	if v := view(m); !strings.Contains(v, "APPROVE? (session s9) execute_command npm publish") {
		t.Fatalf("another session's approval is not shown:\n%s", v)
	}
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	if !strings.HasSuffix(strings.Join(c.approvals, ","), "a9=deny") {
		t.Fatalf("approvals %q", c.approvals)
	}
}

func TestSlashCommands(t *testing.T) {
	c := &fakeClient{result: CommandResult{Text: "2 sessions", Switch: "s2", OTR: true}}
	m := newChat(c)
	typeText(m, "/help")
	if !strings.Contains(view(m), "/undo") || len(c.commands) != 0 {
		t.Fatalf("help:\n%s", view(m))
	}
	typeText(m, "/frobnicate")
	if !strings.Contains(view(m), "unknown command /frobnicate") {
		t.Fatal("unknown command not reported")
	}
	typeText(m, "/otr")
	if len(c.commands) != 1 || c.commands[0] != "s1:otr " {
		t.Fatalf("commands %q", c.commands)
	}
	if m.Session() != "s2" || !strings.Contains(view(m), "OFF THE RECORD") || !strings.Contains(view(m), "nothing is kept") {
		t.Fatalf("after /otr:\n%s", view(m))
	}
	c.result, c.err = CommandResult{}, errors.New("agent.sandbox: a security setting cannot be changed from inside a session")
	typeText(m, "/config set agent.sandbox off")
	if c.commands[1] != "s2:config set agent.sandbox off" || !strings.Contains(view(m), "cannot be changed from inside a session") {
		t.Fatalf("config set: %q\n%s", c.commands, view(m))
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/quit")})
	_ = cmd
	m.input.SetValue("/quit")
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("/quit returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("/quit does not quit")
	}
}

func TestEngineGone(t *testing.T) {
	m := newChat(&fakeClient{})
	run(m, eventMsg{ok: false})
	if !strings.Contains(view(m), "the engine closed the connection") {
		t.Fatal("a closed stream is not shown")
	}
}

func TestHostileTextIsCleaned(t *testing.T) {
	m := newChat(&fakeClient{})
	evil := "ok\x1b[2J\x1b]0;pwned\x07\x1b[31mAPPROVE?\x1b[0m\u202eevil\r\x9b31m"
	run(m, eventMsg{Event{Kind: ToolProposed, Session: "s1", CallID: "c", Tool: "read_file", Summary: evil}, true})
	run(m, eventMsg{Event{Kind: Verdict, Session: "s1", CallID: "c", Decision: "ALLOW"}, true})
	run(m, eventMsg{Event{Kind: ToolResult, Session: "s1", CallID: "c", Output: evil}, true})
	run(m, eventMsg{Event{Kind: TextDelta, Session: "s1", Text: evil}, true})
	v := m.transcript()
	for _, bad := range []string{"\x1b]0", "\x1b[2J", "\u202e", "\r", "pwned\x07"} {
		if strings.Contains(v, bad) {
			t.Errorf("screen holds %q", bad)
		}
	}
}

// TestLongLinesWrapToTheScreen: at 40 columns a long reply, a reply of
// wide characters and a long block reason are wrapped, not cut: every
// screen line fits the width and every word is on screen.
func TestLongLinesWrapToTheScreen(t *testing.T) {
	c := &fakeClient{}
	m := newChat(c)
	run(m, tea.WindowSizeMsg{Width: 40, Height: 60})
	reply := "The build failed because the module cache directory is not writable; set GOMODCACHE inside the workspace and run it again afterwards."
	wide := "日本語のテキストは一文字が二列を使うので幅で数える必要があります終わり"
	for _, ev := range []Event{
		{Kind: TextDelta, Session: "s1", Text: reply},
		{Kind: ResponseComplete, Session: "s1"},
		{Kind: TextDelta, Session: "s1", Text: wide},
		{Kind: ResponseComplete, Session: "s1"},
		{Kind: ToolProposed, Session: "s1", CallID: "c1", Tool: "execute_command", Summary: "curl https://example.com"},
		{Kind: Verdict, Session: "s1", CallID: "c1", Decision: "BLOCK", Rule: "upload", Reason: "uploads local files or command output to a remote host: tail-word-visible"},
	} {
		run(m, eventMsg{ev, true})
	}
	v := view(m)
	for i, line := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(line); w > 40 {
			t.Errorf("line %d is %d columns wide: %q", i, w, line)
		}
	}
	flat := strings.Join(strings.Fields(ansi.Strip(v)), " ")
	for _, want := range []string{"afterwards.", "tail-word-visible", "終わり"} {
		if !strings.Contains(strings.ReplaceAll(flat, " ", ""), want) {
			t.Errorf("%q was cut off the screen:\n%s", want, v)
		}
	}
}

// view is the screen with the prompt's non-breaking spaces as spaces.
func view(m *Model) string { return strings.ReplaceAll(m.View(), nbsp, " ") }

// TestApprovalPromptFitsTheScreen: at 80 columns a long approval prompt
// takes several rows; the screen still holds no more rows than the
// terminal (the top of a full transcript would scroll off, the latest
// line with it), no row wider, and no answer key is parted from what it
// does by the wrapping.
func TestApprovalPromptFitsTheScreen(t *testing.T) {
	m := newChat(&fakeClient{})
	const cols, rows = 80, 20
	run(m, tea.WindowSizeMsg{Width: cols, Height: rows})
	for i := range 30 {
		run(m, eventMsg{Event{Kind: MessageReceived, Session: "s1", Text: fmt.Sprintf("message %d", i)}, true})
	}
	run(m, eventMsg{Event{Kind: ApprovalNeeded, Session: "s9", ApprovalID: "a1", Tool: "execute_command",
		Summary: "echo approved > ~/notes.txt", Reason: "writes outside the workspace and the scratch directories: write to ~/notes.txt",
		Pattern: "execute_command running echo under /home/someone/with/a/rather/long/path"}, true})
	lines := strings.Split(view(m), "\n")
	if len(lines) > rows {
		t.Errorf("the screen has %d rows, the terminal %d:\n%s", len(lines), rows, view(m))
	}
	for i, line := range lines {
		if w := ansi.StringWidth(line); w > cols {
			t.Errorf("row %d is %d columns wide: %q", i, w, line)
		}
	}
	v := ansi.Strip(view(m))
	for _, want := range []string{"message 29", "APPROVE? (session s9) execute_command echo approved > ~/notes.txt",
		"why: writes outside the workspace", "[y] allow", "[s] allow", "[p] allow", "[n] deny"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q on one row:\n%s", want, v)
		}
	}
	// At no width is a key parted from what it does.
	for w := 30; w <= cols; w++ {
		run(m, tea.WindowSizeMsg{Width: w, Height: rows})
		v := ansi.Strip(view(m))
		for _, want := range []string{"[y] allow", "[s] allow", "[p] allow", "[n] deny"} {
			if !strings.Contains(v, want) {
				t.Errorf("at %d columns the screen lacks %q on one row:\n%s", w, want, v)
			}
		}
	}
	// Answered, the prompt's rows go back to the transcript.
	run(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	if lines := strings.Split(view(m), "\n"); len(lines) != rows {
		t.Errorf("after the answer the screen has %d rows, want the terminal's %d:\n%s", len(lines), rows, view(m))
	}
}

// TestFoldedResultKeepsItsFirstLine: a folded tool result shows its
// first line up to foldedWidth cells (a path and the error after it),
// and says when it is cut, once.
func TestFoldedResultKeepsItsFirstLine(t *testing.T) {
	denied := "/bin/bash: line 1: /root/.cache/parallax-hands-3218198495/home/notes.txt: Permission denied"
	long := strings.Repeat("word ", 60)
	for _, tt := range []struct{ in, want string }{
		{denied, denied},
		{denied + "\nParallax's sandbox refused it", denied + "… (121 bytes)"},
		{long, long[:foldedWidth] + "… (300 bytes)"},
		{"ok", "ok"},
	} {
		if got := foldOutput(tt.in); got != tt.want {
			t.Errorf("foldOutput(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
