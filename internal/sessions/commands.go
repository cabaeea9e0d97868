package sessions

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/termtext"
)

// ErrUnknownCommand: the command is not one of Commands.
var ErrUnknownCommand = errors.New("unknown command")

// ErrUsage: the command's arguments are wrong (the error says how to use it).
var ErrUsage = errors.New("wrong use")

// call is one command invocation.
type call struct {
	session string // the chat's current session ("" when none yet)
	args    []string
}

// command is one slash command. needsSession: it acts on the current
// session, which must exist.
type command struct {
	name, usage, summary string
	needsSession         bool
	run                  func(m *Manager, ctx context.Context, c call) (CommandResult, error)
}

// commands is the table of slash commands, in the order /help lists them.
// help, quit and clear are the client's (answered here too); restart is
// the engine's.
var commands = []command{
	{"help", "/help", "list the commands", false, nil}, // helpText: the table cannot refer to itself
	{"new", "/new", "start a new session", false, (*Manager).cmdNew},
	{"otr", "/otr", "start an off-the-record session: read-only tools, nothing stored", false, (*Manager).cmdOTR},
	{"quit", "/quit", "leave the chat", false, (*Manager).cmdQuit},
	{"clear", "/clear", "clear the screen", false, (*Manager).cmdClear},
	{"sessions", "/sessions [TEXT]", "list the sessions, or those whose title or messages contain TEXT", false, (*Manager).cmdSessions},
	{"switch", "/switch ID", "move to another session", false, (*Manager).cmdSwitch},
	{"history", "/history", "show this session's messages", true, (*Manager).cmdHistory},
	{"export", "/export [PATH]", "write this session as Markdown into the workspace", true, (*Manager).cmdExport},
	{"title", "/title TEXT", "name this session", true, (*Manager).cmdTitle},
	{"delete", "/delete ID", "delete another session and its messages", false, (*Manager).cmdDelete},
	{"status", "/status", "this session, the model, today's usage and the engine", true, (*Manager).cmdStatus},
	{"usage", "/usage", "LLM calls, tokens and cost today", true, (*Manager).cmdUsage},
	{"doctor", "/doctor", "check the workspace", false, (*Manager).cmdDoctor},
	{"audit", "/audit [N]", "the last N audit entries (20)", false, (*Manager).cmdAudit},
	{"config", "/config [set KEY VALUE]", "show the configuration, or change a session key", false, (*Manager).cmdConfig},
	{"model", "/model [NAME]", "show or set the chat model (a name from llm.models)", false, (*Manager).cmdModel},
	{"undo", "/undo", "restore the files the last turn changed", true, (*Manager).cmdUndo},
	{"restart", "/restart", "restart the agent (the engine's)", false, (*Manager).cmdRestart},
	{"logs", "/logs [N]", "the engine's last N log lines (50)", false, (*Manager).cmdLogs},
}

// Commands lists the slash command names, in /help order.
func Commands() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// Command runs slash command name ("undo" or "/undo") with its arguments
// for the chat whose current session is session. Bad input (an unknown
// command, wrong arguments, an unknown session) is an error naming it.
func (m *Manager) Command(ctx context.Context, session, name string, args []string) (CommandResult, error) {
	key := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "/"))
	for _, c := range commands {
		if c.name != key {
			continue
		}
		if c.needsSession {
			if session == "" {
				return CommandResult{}, fmt.Errorf("/%s: no current session (start one with /new)", key)
			}
			if _, err := m.Get(ctx, session); err != nil {
				return CommandResult{}, fmt.Errorf("/%s: %w", key, err)
			}
		}
		run := c.run
		if run == nil {
			run = (*Manager).cmdHelp
		}
		res, err := run(m, ctx, call{session: session, args: args})
		if err != nil {
			return CommandResult{}, fmt.Errorf("/%s: %w", key, err)
		}
		if !res.Quit && res.Switch == "" && session != "" {
			res.OTR = m.isOTR(session)
		}
		return res, nil
	}
	return CommandResult{}, fmt.Errorf("%w /%s (see /help)", ErrUnknownCommand, termtext.OneLine(bound(key, 40)))
}

func (m *Manager) isOTR(id string) bool {
	_, ok := m.getOTR(id)
	return ok
}

func usageErr(usage string) error { return fmt.Errorf("%w: usage %s", ErrUsage, usage) }

func (m *Manager) cmdHelp(_ context.Context, _ call) (CommandResult, error) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "%s\t%s\n", c.usage, c.summary)
	}
	_ = tw.Flush()
	return CommandResult{Text: b.String()}, nil
}

func (m *Manager) cmdQuit(_ context.Context, _ call) (CommandResult, error) {
	return CommandResult{Quit: true}, nil
}

func (m *Manager) cmdClear(_ context.Context, _ call) (CommandResult, error) {
	return CommandResult{}, nil
}

func (m *Manager) cmdRestart(_ context.Context, _ call) (CommandResult, error) {
	return CommandResult{}, errors.New("restart is done by the engine, not the session manager")
}

func (m *Manager) cmdNew(ctx context.Context, c call) (CommandResult, error) {
	return m.start(ctx, c, false)
}

func (m *Manager) cmdOTR(ctx context.Context, c call) (CommandResult, error) {
	return m.start(ctx, c, true)
}

// start leaves the current session and starts a new one.
func (m *Manager) start(ctx context.Context, c call, otr bool) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr(map[bool]string{false: "/new", true: "/otr"}[otr])
	}
	info, err := m.New(ctx, otr)
	if err != nil {
		return CommandResult{}, err
	}
	if err := m.leave(ctx, c.session); err != nil {
		return CommandResult{}, err
	}
	text := "new session " + info.ID
	if otr {
		text = "OFF THE RECORD: session " + info.ID + " — read-only tools, nothing is stored; it is forgotten when you leave it"
	}
	return CommandResult{Text: text, Switch: info.ID, OTR: otr}, nil
}

// leave ends the chat's current session when it is one (an OTR session is
// forgotten).
func (m *Manager) leave(ctx context.Context, session string) error {
	if session == "" {
		return nil
	}
	if _, err := m.Get(ctx, session); errors.Is(err, ErrNotFound) {
		return nil
	}
	return m.End(ctx, session)
}

func (m *Manager) cmdSessions(ctx context.Context, c call) (CommandResult, error) {
	var list []Info
	var err error
	if q := strings.Join(c.args, " "); q != "" {
		list, err = m.Search(ctx, q)
	} else {
		list, err = m.List(ctx)
	}
	if err != nil {
		return CommandResult{}, err
	}
	if len(list) == 0 {
		return CommandResult{Text: "no sessions"}, nil
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\tID\tCREATED (UTC)\tMESSAGES\tTITLE")
	for _, s := range list {
		mark := ""
		if s.ID == c.session {
			mark = "*"
		}
		title := s.Title
		if s.OTR {
			title = "[OFF THE RECORD] " + title
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", mark, s.ID, s.Created.UTC().Format(time.DateTime), s.Messages, title)
	}
	_ = tw.Flush()
	return CommandResult{Text: b.String()}, nil
}

func (m *Manager) cmdSwitch(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) != 1 {
		return CommandResult{}, usageErr("/switch ID")
	}
	target, err := m.Get(ctx, c.args[0])
	if err != nil {
		return CommandResult{}, err
	}
	if target.ID == c.session {
		return CommandResult{Text: "already in session " + target.ID}, nil
	}
	if err := m.leave(ctx, c.session); err != nil {
		return CommandResult{}, err
	}
	if !target.OTR {
		if err := m.record(ctx, audit.SessionStarted, target.ID, audit.Detail{Code: "session_resumed"}); err != nil {
			return CommandResult{}, err
		}
	}
	text := fmt.Sprintf("session %s: %s (%d messages)", target.ID, orUntitled(target.Title), target.Messages)
	if target.OTR {
		text = "OFF THE RECORD: " + text
	}
	return CommandResult{Text: text, Switch: target.ID, OTR: target.OTR}, nil
}

func orUntitled(t string) string {
	if t == "" {
		return "(untitled)"
	}
	return t
}

// maxHistory bounds what /history shows, newest kept.
const maxHistory = 64 << 10

func (m *Manager) cmdHistory(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr("/history")
	}
	msgs, err := m.History(ctx, c.session)
	if err != nil {
		return CommandResult{}, err
	}
	if len(msgs) == 0 {
		return CommandResult{Text: "no messages yet"}, nil
	}
	lines := make([]string, 0, len(msgs))
	size, cut := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		line := fmt.Sprintf("[%s] %s: %s", msgs[i].At.UTC().Format(time.TimeOnly), msgs[i].Role, msgs[i].Text)
		if size+len(line) > maxHistory {
			cut = i + 1
			break
		}
		size += len(line) + 1
		lines = append(lines, line)
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	text := strings.Join(lines, "\n")
	if cut > 0 {
		text = fmt.Sprintf("(%d earlier messages not shown; /export writes them all)\n", cut) + text
	}
	return CommandResult{Text: text}, nil
}

func (m *Manager) cmdTitle(ctx context.Context, c call) (CommandResult, error) {
	t := cleanTitle(strings.Join(c.args, " "))
	if t == "" {
		return CommandResult{}, usageErr("/title TEXT")
	}
	m.mu.Lock()
	if s, ok := m.otr[c.session]; ok {
		s.info.Title, s.titleSource = t, store.TitleUser
		m.mu.Unlock()
		return CommandResult{Text: "title: " + t}, nil
	}
	m.mu.Unlock()
	if _, err := m.db.SetConversationTitle(ctx, c.session, t, store.TitleUser); err != nil {
		return CommandResult{}, err
	}
	return CommandResult{Text: "title: " + t}, nil
}

func (m *Manager) cmdDelete(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) != 1 {
		return CommandResult{}, usageErr("/delete ID")
	}
	id := c.args[0]
	if id == c.session {
		return CommandResult{}, fmt.Errorf("session %s is the current one: switch to another session first", id)
	}
	info, err := m.Get(ctx, id)
	if err != nil {
		return CommandResult{}, err
	}
	if err := m.Delete(ctx, id); err != nil {
		return CommandResult{}, err
	}
	return CommandResult{Text: fmt.Sprintf("deleted session %s (%d messages)", info.ID, info.Messages)}, nil
}

// parseCount reads an optional positive count argument.
func parseCount(args []string, def, most int, usage string) (int, error) {
	switch len(args) {
	case 0:
		return def, nil
	case 1:
		n, err := strconv.Atoi(args[0])
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%w: %q is not a positive number; usage %s", ErrUsage, termtext.OneLine(bound(args[0], 20)), usage)
		}
		return min(n, most), nil
	}
	return 0, usageErr(usage)
}

func (m *Manager) cmdLogs(ctx context.Context, c call) (CommandResult, error) {
	n, err := parseCount(c.args, 50, 1000, "/logs [N]")
	if err != nil {
		return CommandResult{}, err
	}
	if m.opts.Logs == nil {
		return CommandResult{}, errors.New("no engine log is available here")
	}
	text, err := m.opts.Logs(ctx, n)
	if err != nil {
		return CommandResult{}, err
	}
	return CommandResult{Text: text}, nil
}
