package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/parallax/parallax/internal/termtext"
)

// Local slash commands; every other one goes to the engine.
const helpText = `/help              this list
/new               a new session          /otr      a new off-the-record session (read-only tools, nothing kept)
/sessions          list sessions          /switch ID  show another session
/history           this session's turns   /export   write this session to a file
/title TEXT        name this session      /delete ID  delete a session
/status /usage     engine state, tokens and cost today
/doctor /audit     workspace checks, recent audit entries
/config [set K V]  show or change settings (security settings only outside a session)
/model NAME        the chat model         /undo     put the files back as before the last turn
/restart /logs     restart the agent, recent engine log
/clear             clear the screen       /quit     leave (the engine keeps running)`

// Model is the chat's bubbletea model.
type Model struct {
	ctx     context.Context
	client  Client
	events  <-chan Event
	session string
	otr     bool

	entries []*entry
	reply   *entry            // the reply being streamed
	calls   map[string]*entry // tool lines by call id
	pending []Event           // approvals waiting for y/n, oldest first
	busy    bool
	status  string

	input  textinput.Model
	vp     viewport.Model
	height int // the terminal's rows
	ready  bool
	quit   bool
}

type entryKind uint8

const (
	entryUser entryKind = iota + 1
	entryReply
	entryTool
	entryNote
	entryError
)

type entry struct {
	kind entryKind
	text string
	// tool line parts
	tool, summary, decision, rule, reason, result string
	isError                                       bool
}

// New returns a chat on session, reading the engine's events from
// events (closed when the engine goes away).
func New(ctx context.Context, c Client, events <-chan Event, session string, otr bool) *Model {
	in := textinput.New()
	in.Placeholder = "message, or /help"
	in.Prompt = "› "
	in.CharLimit = 64 << 10
	in.Focus()
	return &Model{ctx: ctx, client: c, events: events, session: session, otr: otr,
		calls: map[string]*entry{}, input: in}
}

// Init starts listening to the engine.
func (m *Model) Init() tea.Cmd { return tea.Batch(textinput.Blink, m.wait()) }

type eventMsg struct {
	ev Event
	ok bool
}

type doneMsg struct {
	err error
	res *CommandResult
}

func (m *Model) wait() tea.Cmd {
	ch := m.events
	return func() tea.Msg {
		ev, ok := <-ch
		return eventMsg{ev, ok}
	}
}

// Update handles keys, engine events and finished requests, and then
// fits the transcript to the rows the footer leaves.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.layout()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.KeyMsg:
		return m.key(msg)
	case eventMsg:
		if !msg.ok {
			m.add(entry{kind: entryError, text: "the engine closed the connection"})
			m.busy = false
			return nil
		}
		m.apply(msg.ev)
		return m.wait()
	case doneMsg:
		m.finish(msg)
		if m.quit {
			return tea.Quit
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyCtrlC {
		m.quit = true
		return tea.Quit
	}
	if len(m.pending) > 0 {
		ap := m.pending[0]
		var allow bool
		var grant, word string
		switch k.String() {
		case "y", "Y":
			allow, grant, word = true, "once", "allowed once"
		case "s", "S":
			allow, grant, word = true, "session", "allowed for this session"
		case "p", "P":
			if ap.Pattern == "" {
				return nil // no pattern offered for this action
			}
			allow, grant, word = true, "pattern", "allowed the pattern "+termtext.Clean(ap.Pattern)+" for"
		case "n", "N":
			word = "denied"
		default:
			return nil // the prompt waits for an answer key; Enter never answers it
		}
		m.pending = m.pending[1:]
		m.add(entry{kind: entryNote, text: fmt.Sprintf("you %s %s %s", word, ap.Tool, termtext.Clean(ap.Summary))})
		return m.request(func(ctx context.Context) doneMsg {
			return doneMsg{err: m.client.Approve(ctx, ap.ApprovalID, allow, grant)}
		})
	}
	switch k.Type {
	case tea.KeyEnter:
		text := strings.TrimSpace(m.input.Value())
		m.input.SetValue("")
		if text == "" {
			return nil
		}
		if strings.HasPrefix(text, "/") {
			return m.slash(text)
		}
		m.busy = true
		return m.request(func(ctx context.Context) doneMsg { return doneMsg{err: m.client.Send(ctx, m.session, text)} })
	case tea.KeyPgUp, tea.KeyPgDown:
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(k)
		return cmd
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// slash runs a slash command: a few here, the rest in the engine.
func (m *Model) slash(text string) tea.Cmd {
	f := strings.Fields(text)
	name, args := strings.TrimPrefix(f[0], "/"), f[1:]
	switch name {
	case "help":
		m.add(entry{kind: entryNote, text: helpText})
		return nil
	case "quit", "exit":
		m.quit = true
		return tea.Quit
	case "clear":
		m.entries, m.reply, m.calls = nil, nil, map[string]*entry{}
		m.refresh()
		return nil
	}
	if !knownCommand(name) {
		m.add(entry{kind: entryError, text: "unknown command /" + termtext.Clean(name) + "; /help lists them"})
		return nil
	}
	session := m.session
	return m.request(func(ctx context.Context) doneMsg {
		res, err := m.client.Command(ctx, session, name, args)
		return doneMsg{err: err, res: &res}
	})
}

func knownCommand(name string) bool {
	switch name {
	case "new", "otr", "sessions", "switch", "history", "export", "title", "delete", "status", "usage",
		"doctor", "audit", "config", "model", "undo", "restart", "logs":
		return true
	}
	return false
}

func (m *Model) request(f func(context.Context) doneMsg) tea.Cmd {
	ctx := m.ctx
	return func() tea.Msg { return f(ctx) }
}

func (m *Model) finish(d doneMsg) {
	if d.err != nil {
		m.busy = false
		m.add(entry{kind: entryError, text: termtext.Clean(d.err.Error())})
		return
	}
	if d.res == nil {
		return
	}
	if d.res.Text != "" {
		m.add(entry{kind: entryNote, text: termtext.Clean(d.res.Text)})
	}
	if d.res.Switch != "" && d.res.Switch != m.session {
		m.session, m.otr = d.res.Switch, d.res.OTR
		m.entries, m.reply, m.calls = nil, nil, map[string]*entry{} // approvals of every session stay
		what := "session " + m.session
		if m.otr {
			what = "OFF-THE-RECORD session " + m.session + ": read-only tools, nothing is kept"
		}
		m.add(entry{kind: entryNote, text: "now in " + what})
	}
	if d.res.Quit {
		m.quit = true
	}
}

// apply puts an engine event on screen.
func (m *Model) apply(ev Event) {
	// An approval of any session of the engine is shown and can be
	// answered here: the session that raised it may have no client that
	// can answer (parallax run, a closed chat).
	if ev.Kind != ApprovalNeeded && ev.Kind != ApprovalResolved && ev.Session != "" && ev.Session != m.session {
		return
	}
	switch ev.Kind {
	case MessageReceived:
		m.add(entry{kind: entryUser, text: termtext.Clean(ev.Text)})
		m.busy = true
	case TextDelta:
		if m.reply == nil {
			m.reply = m.add(entry{kind: entryReply})
		}
		m.reply.text += termtext.Clean(ev.Text)
	case ToolProposed:
		m.reply = nil
		m.calls[ev.CallID] = m.add(entry{kind: entryTool, tool: termtext.Clean(ev.Tool), summary: termtext.Clean(ev.Summary)})
	case Verdict:
		if e := m.calls[ev.CallID]; e != nil {
			e.decision, e.rule, e.reason = termtext.Clean(ev.Decision), termtext.Clean(ev.Rule), termtext.Clean(ev.Reason)
		}
	case ApprovalNeeded:
		m.pending = append(m.pending, ev)
	case ApprovalResolved:
		for i, p := range m.pending {
			if p.ApprovalID == ev.ApprovalID {
				m.pending = append(m.pending[:i], m.pending[i+1:]...)
				m.add(entry{kind: entryNote, text: "approval answered elsewhere: " + termtext.Clean(ev.Decision)})
				break
			}
		}
	case ToolResult:
		if e := m.calls[ev.CallID]; e != nil {
			e.result, e.isError = foldOutput(termtext.Clean(ev.Output)), ev.IsError
		}
	case ResponseComplete:
		m.reply, m.busy = nil, false
		if ev.Tokens > 0 {
			m.status = fmt.Sprintf("%d tokens", ev.Tokens)
		}
	case Error:
		m.busy = false
		m.add(entry{kind: entryError, text: termtext.Clean(ev.Text)})
	}
	m.refresh()
}

// foldedWidth bounds the first line a folded tool result shows, in
// display cells: two rows at 80 columns, enough for a path and the
// error after it ("…/notes.txt: Permission denied").
const foldedWidth = 160

// foldOutput is a tool result in one line: its first line (cut, by
// display width and whole characters, past foldedWidth) and, when there
// is more, its size.
func foldOutput(s string) string {
	first, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if cut := ansi.Truncate(first, foldedWidth, ""); cut != first {
		first, more = cut, true
	}
	if more {
		return fmt.Sprintf("%s… (%d bytes)", first, len(s))
	}
	return first
}

func (m *Model) add(e entry) *entry {
	m.entries = append(m.entries, &e)
	m.refresh()
	return &e
}

func (m *Model) resize(w, h int) {
	m.input.Width = max(10, w-4)
	m.height = h
	if !m.ready {
		m.vp = viewport.New(w, max(1, h-2))
		m.ready = true
	} else {
		m.vp.Width = w
	}
	m.refresh()
}

// layout gives the transcript the rows the footer (the status line and
// the input, or an approval prompt, each wrapped) leaves, so the screen
// never holds more rows than the terminal: the top of the transcript
// would scroll away, and with it what an approval is about. A transcript
// shown at its end stays at its end.
func (m *Model) layout() {
	if !m.ready {
		return
	}
	h := max(1, m.height-lipgloss.Height(m.footer()))
	if h == m.vp.Height {
		return
	}
	bottom := m.vp.AtBottom()
	m.vp.Height = h
	if bottom {
		m.vp.GotoBottom()
	}
}

func (m *Model) refresh() {
	if m.ready {
		m.vp.SetContent(m.transcript())
		m.vp.GotoBottom()
	}
}

var (
	styleUser  = lipgloss.NewStyle().Bold(true)
	styleTool  = lipgloss.NewStyle().Faint(true)
	styleBlock = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	styleNote  = lipgloss.NewStyle().Foreground(lipgloss.Color("4"))
	styleOTR   = lipgloss.NewStyle().Reverse(true).Bold(true)
)

// transcript is every entry, drawn and wrapped to the screen's width
// (by display width, so wide and combining characters line up; a word
// longer than a line is broken), so nothing is cut at the right edge.
func (m *Model) transcript() string {
	var b strings.Builder
	for _, e := range m.entries {
		b.WriteString(m.wrap(e.draw()))
		b.WriteByte('\n')
	}
	return b.String()
}

// wrap fits s to the viewport's width; before the first resize it is
// left as it is.
func (m *Model) wrap(s string) string {
	if !m.ready || m.vp.Width < 2 {
		return s
	}
	return ansi.Wrap(s, m.vp.Width, "")
}

func (e *entry) draw() string {
	switch e.kind {
	case entryUser:
		return styleUser.Render("you: ") + e.text
	case entryReply:
		return e.text
	case entryTool:
		line := "  ⚙ " + e.tool + " " + e.summary
		switch e.decision {
		case "":
			return styleTool.Render(line + "  …")
		case "ALLOW":
			out := "  ✓ ALLOW"
			if e.result != "" {
				mark := "→"
				if e.isError {
					mark = "→ error:"
				}
				out += "  " + mark + " " + e.result
			}
			return styleTool.Render(line + out)
		default:
			return styleTool.Render(line) + styleBlock.Render("  ✗ "+e.decision+" "+e.rule) + ": " + e.reason
		}
	case entryNote:
		return styleNote.Render(e.text)
	case entryError:
		return styleBlock.Render("error: ") + e.text
	}
	return ""
}

// View draws the screen.
func (m *Model) View() string {
	var b strings.Builder
	if m.ready {
		b.WriteString(m.vp.View())
	} else {
		b.WriteString(m.transcript())
	}
	b.WriteByte('\n')
	b.WriteString(m.footer())
	return b.String()
}

// nbsp joins an answer key to its first word: a prompt wrapped at a
// narrow width never leaves "[s]" at the end of one row and what it
// does on the next.
const nbsp = "\u00a0"

// footer is the status line and below it the input, or the oldest
// pending approval: what it is, why it is asked (each on its own rows)
// and the keys that answer it.
func (m *Model) footer() string {
	status := m.wrap(m.statusLine())
	if len(m.pending) == 0 {
		return status + "\n" + m.input.View()
	}
	ap := m.pending[0]
	where := ""
	if ap.Session != "" && ap.Session != m.session {
		where = " (session " + termtext.Clean(ap.Session) + ")"
	}
	keys := "[y]" + nbsp + "allow once  [s]" + nbsp + "allow for this session"
	if ap.Pattern != "" {
		keys += "  [p]" + nbsp + "allow " + termtext.Clean(ap.Pattern)
	}
	keys += "  [n]" + nbsp + "deny"
	if len(m.pending) > 1 {
		keys += fmt.Sprintf("  (%d more waiting)", len(m.pending)-1)
	}
	return status + "\n" + m.wrap(styleBlock.Render("APPROVE?")+fmt.Sprintf("%s %s %s", where, termtext.Clean(ap.Tool), termtext.Clean(ap.Summary))) +
		"\n" + m.wrap("  why: "+termtext.Clean(ap.Reason)) + "\n" + m.wrap("  "+keys)
}

func (m *Model) statusLine() string {
	s := "session " + m.session
	if m.otr {
		s = styleOTR.Render(" OFF THE RECORD ") + " " + s
	}
	if m.busy {
		s += " · working"
	}
	if m.status != "" {
		s += " · " + m.status
	}
	return s
}

// Session is the session the chat shows.
func (m *Model) Session() string { return m.session }
