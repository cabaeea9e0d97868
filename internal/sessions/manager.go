package sessions

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/termtext"
	"github.com/parallax/parallax/internal/workspace"
)

// ErrNotFound: no session with that id (in the database or, off the
// record, in memory).
var ErrNotFound = store.ErrNotFound

// Bounds.
const (
	DefaultTitleAfter = 3    // exchanges before the Titler is asked
	MaxTitle          = 60   // runes of a title
	MaxQuery          = 256  // bytes of a search query
	MaxResults        = 50   // sessions a search or a list returns
	maxTranscript     = 8000 // bytes of transcript handed to the Titler
	maxID             = 128  // bytes of a session or turn id
)

// Options configure a Manager.
type Options struct {
	// Workspace is the workspace root (absolute).
	Workspace string
	// Now is the clock (default: the store's clock).
	Now func() time.Time
	// IDs returns a fresh, unique id for sessions and turns (required).
	IDs func() string
	// Titler names a session from its first exchanges (the engine passes
	// a model call); nil keeps the first words of the first message.
	Titler func(ctx context.Context, transcript string) (string, error)
	// TitleAfter is the number of exchanges after which the Titler is
	// asked (default DefaultTitleAfter).
	TitleAfter int
	// Redactor masks secrets in every message before it is kept or
	// titles a session (a key the user pasted is refused on its way to
	// the model and must not sit in clear in the history, /sessions or an
	// export); nil keeps text as it is.
	Redactor audit.Redactor
	// Audit is the workspace's audit chain (required): session start,
	// end and delete, /undo rollbacks.
	Audit *audit.Log
	// Chronicle restores snapshots for /undo; nil opens the workspace's
	// Chronicle on the database when /undo needs it.
	Chronicle *chronicle.Chronicle
	// Status adds the engine's own lines (uptime, sandbox, gate counts)
	// to /status; nil adds nothing.
	Status func() string
	// Logs returns the last n lines of the engine's log for /logs; nil:
	// /logs is not available.
	Logs func(ctx context.Context, n int) (string, error)
	// Doctor configures /doctor (Home, Sandbox probes).
	Doctor workspace.DoctorOptions
}

// Info describes a session.
type Info struct {
	ID, Title string
	OTR       bool
	Created   time.Time
	Messages  int
}

// Message is one message of a session.
type Message struct {
	Role, Text string
	At         time.Time
}

// CommandResult is what a slash command answers: Text to show; Switch,
// the session the chat moves to ("" to stay); OTR, whether the session
// the chat is in afterwards is off the record; Quit, to leave the chat.
type CommandResult struct {
	Text, Switch string
	OTR, Quit    bool
}

// Manager keeps the sessions of one workspace. It is safe for concurrent
// use.
type Manager struct {
	db   *store.DB
	opts Options

	mu      sync.Mutex
	otr     map[string]*otrSession
	titled  map[string]bool   // sessions whose Titler was asked, by this process
	notices map[string]string // what the agent must be told with the session's next message (an /undo)
	chronMu sync.Mutex
	chron   *chronicle.Chronicle
}

// otrSession is an off-the-record session: memory only.
type otrSession struct {
	info        Info
	titleSource string
	msgs        []Message
	turns       []otrTurn
}

type otrTurn struct {
	id      string
	snaps   []int64
	effects []Effect
	undone  bool
}

// Open returns the Manager of the workspace whose database is db.
func Open(ctx context.Context, db *store.DB, opts Options) (*Manager, error) {
	switch {
	case db == nil:
		return nil, errors.New("open sessions: no database")
	case opts.Workspace == "" || !filepath.IsAbs(opts.Workspace):
		return nil, fmt.Errorf("open sessions: workspace %q must be an absolute path", opts.Workspace)
	case opts.IDs == nil:
		return nil, errors.New("open sessions: no id source (Options.IDs)")
	case opts.Audit == nil:
		return nil, errors.New("open sessions: no audit chain (Options.Audit): sessions must be recorded")
	case opts.TitleAfter < 0:
		return nil, fmt.Errorf("open sessions: TitleAfter %d is negative", opts.TitleAfter)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open sessions: %w", err)
	}
	if opts.Now == nil {
		opts.Now = db.Now
	}
	if opts.TitleAfter == 0 {
		opts.TitleAfter = DefaultTitleAfter
	}
	return &Manager{db: db, opts: opts, otr: map[string]*otrSession{}, titled: map[string]bool{},
		chron: opts.Chronicle}, nil
}

// newID draws an id and checks it.
func (m *Manager) newID() (string, error) {
	id := m.opts.IDs()
	if id == "" || len(id) > maxID || strings.IndexFunc(id, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return "", fmt.Errorf("the id source returned %q: want 1-%d bytes without spaces or control characters", id, maxID)
	}
	return id, nil
}

// New starts a session, off the record when otr is set. It is recorded
// in the audit chain first; a session that cannot be recorded does not
// start.
func (m *Manager) New(ctx context.Context, otr bool) (Info, error) {
	id, err := m.newID()
	if err != nil {
		return Info{}, fmt.Errorf("new session: %w", err)
	}
	info := Info{ID: id, OTR: otr, Created: m.opts.Now().UTC()}
	if otr {
		if err := m.record(ctx, audit.SessionStarted, id, audit.Detail{Code: "otr_session_started", Message: "off the record: nothing of it is stored"}); err != nil {
			return Info{}, fmt.Errorf("new session: %w", err)
		}
		m.mu.Lock()
		m.otr[id] = &otrSession{info: info}
		m.mu.Unlock()
		return info, nil
	}
	if err := m.db.CreateConversation(ctx, id, info.Created); err != nil {
		return Info{}, fmt.Errorf("new session: %w", err)
	}
	if err := m.record(ctx, audit.SessionStarted, id, audit.Detail{Code: "session_started"}); err != nil {
		_, derr := m.db.DeleteConversation(context.WithoutCancel(ctx), id)
		return Info{}, errors.Join(fmt.Errorf("new session: %w", err), derr)
	}
	return m.Get(ctx, id)
}

// record appends a session event to the audit chain.
func (m *Manager) record(ctx context.Context, t audit.EventType, id string, d audit.Detail) error {
	_, err := m.opts.Audit.Append(context.WithoutCancel(ctx), audit.Event{Type: t, Session: id, Detail: d})
	if err != nil {
		return fmt.Errorf("record %s of session %s in the audit chain: %w", d.Code, id, err)
	}
	return nil
}

// Delete deletes a session: an off-the-record one is forgotten, a stored
// one loses its title, messages and turns (Chronicle keeps its snapshots,
// the taint record what it saw). The deletion is recorded first
// (SessionEnded, session_deleted, with the message count); a deletion
// that then fails is recorded too.
func (m *Manager) Delete(ctx context.Context, id string) error {
	info, err := m.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	code := "session_deleted"
	if info.OTR {
		code = "otr_session_deleted"
	}
	if err := m.record(ctx, audit.SessionEnded, id, audit.Detail{Code: code, Count: int64(info.Messages)}); err != nil {
		return fmt.Errorf("delete session: nothing was deleted: %w", err)
	}
	m.mu.Lock()
	delete(m.otr, id)
	delete(m.titled, id)
	m.mu.Unlock()
	if info.OTR {
		return nil
	}
	if _, err := m.db.DeleteConversation(ctx, id); err != nil {
		rerr := m.record(ctx, audit.SessionEnded, id, audit.Detail{Code: "session_delete_failed", Message: err.Error()})
		return errors.Join(fmt.Errorf("delete session: %w", err), rerr)
	}
	return nil
}

// End ends a session for this chat: an off-the-record one is forgotten
// (and cannot be resumed); a stored one stays and can be resumed with
// /switch. Both are recorded (SessionEnded).
func (m *Manager) End(ctx context.Context, id string) error {
	m.mu.Lock()
	_, otr := m.otr[id]
	delete(m.otr, id)
	delete(m.titled, id)
	m.mu.Unlock()
	if otr {
		return m.record(ctx, audit.SessionEnded, id, audit.Detail{Code: "otr_session_ended", Message: "off the record: forgotten"})
	}
	if _, err := m.db.GetConversation(ctx, id); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return m.record(ctx, audit.SessionEnded, id, audit.Detail{Code: "session_ended"})
}

// getOTR returns a copy of the off-the-record session id's info.
func (m *Manager) getOTR(id string) (Info, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.otr[id]
	if !ok {
		return Info{}, false
	}
	info := s.info
	info.Messages = len(s.msgs)
	return info, true
}

// Get describes one session.
func (m *Manager) Get(ctx context.Context, id string) (Info, error) {
	if info, ok := m.getOTR(id); ok {
		return info, nil
	}
	c, err := m.db.GetConversation(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Info{}, fmt.Errorf("session %q: %w", bound(termtext.OneLine(id), maxID), ErrNotFound) // id may be typed by a user
	}
	if err != nil {
		return Info{}, fmt.Errorf("session %s: %w", id, err)
	}
	return infoOf(c), nil
}

func infoOf(c store.Conversation) Info {
	return Info{ID: c.ID, Title: c.Title, Created: c.Created, Messages: c.Messages}
}

// Append adds a message (role user, assistant, system or tool) to a
// session: stored, unless the session is off the record. It titles the
// session: the first words of the first user message, then the Titler's
// answer after TitleAfter exchanges.
func (m *Manager) Append(ctx context.Context, id, role, text string) error {
	if !slices.Contains(store.MessageRoles(), role) {
		return fmt.Errorf("append to session %s: role %q is not one of %s", id, role, strings.Join(store.MessageRoles(), ", "))
	}
	if len(text) > store.MaxMessageBytes {
		return fmt.Errorf("append to session %s: %d bytes of text, at most %d", id, len(text), store.MaxMessageBytes)
	}
	if m.opts.Redactor != nil {
		text = m.opts.Redactor.Redact(text)
	}
	if handled, err := m.appendOTR(id, role, text); handled {
		return err
	}
	if _, err := m.db.AppendMessage(ctx, id, role, text, m.opts.Now().UTC()); err != nil {
		return fmt.Errorf("append to session %s: %w", id, err)
	}
	return m.title(ctx, id, role, text)
}

// appendOTR appends to an off-the-record session; handled is false when
// id is not one.
func (m *Manager) appendOTR(id, role, text string) (handled bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.otr[id]
	if !ok {
		return false, nil
	}
	s.msgs = append(s.msgs, Message{Role: role, Text: text, At: m.opts.Now().UTC()})
	if role == "user" && s.titleSource == store.TitleNone {
		if t := firstWords(text); t != "" {
			s.info.Title, s.titleSource = t, store.TitleFirst
		}
	}
	return true, nil
}

// title names a stored session after a message was appended.
func (m *Manager) title(ctx context.Context, id, role, text string) error {
	c, err := m.db.GetConversation(ctx, id)
	if err != nil {
		return fmt.Errorf("title session %s: %w", id, err)
	}
	if role == "user" && c.TitleSource == store.TitleNone {
		if t := firstWords(text); t != "" {
			if _, err := m.db.SetConversationTitle(ctx, id, t, store.TitleFirst); err != nil {
				return fmt.Errorf("title session %s: %w", id, err)
			}
		}
		return nil
	}
	if role != "assistant" || m.opts.Titler == nil || c.UserTurns < m.opts.TitleAfter ||
		c.TitleSource == store.TitleModel || c.TitleSource == store.TitleUser {
		return nil
	}
	m.mu.Lock()
	asked := m.titled[id]
	m.titled[id] = true
	m.mu.Unlock()
	if asked {
		return nil // once per session and process, even when the answer was unusable
	}
	msgs, err := m.db.Messages(ctx, id, 0)
	if err != nil {
		return fmt.Errorf("title session %s: %w", id, err)
	}
	t, err := m.opts.Titler(ctx, transcript(msgs))
	if t = cleanTitle(t); err != nil || t == "" {
		return nil // a title is a convenience: the first words stay
	}
	if _, err := m.db.SetConversationTitle(ctx, id, t, store.TitleModel); err != nil {
		return fmt.Errorf("title session %s: %w", id, err)
	}
	return nil
}

// History returns a session's messages, oldest first.
func (m *Manager) History(ctx context.Context, id string) ([]Message, error) {
	m.mu.Lock()
	if s, ok := m.otr[id]; ok {
		out := slices.Clone(s.msgs)
		m.mu.Unlock()
		return out, nil
	}
	m.mu.Unlock()
	if _, err := m.db.GetConversation(ctx, id); err != nil {
		return nil, fmt.Errorf("history of session %s: %w", id, err)
	}
	msgs, err := m.db.Messages(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Message, len(msgs))
	for i, msg := range msgs {
		out[i] = Message{Role: msg.Role, Text: msg.Text, At: msg.At}
	}
	return out, nil
}

// List returns the live off-the-record sessions, newest first, then the
// stored ones, the most recently active first (at most MaxResults).
func (m *Manager) List(ctx context.Context) ([]Info, error) {
	out := m.otrMatching("")
	list, err := m.db.ListConversations(ctx, MaxResults)
	if err != nil {
		return nil, err
	}
	for _, c := range list {
		out = append(out, infoOf(c))
	}
	return out, nil
}

// Search returns the sessions whose title or messages contain q (live
// off-the-record ones first), at most MaxResults of stored ones.
func (m *Manager) Search(ctx context.Context, q string) ([]Info, error) {
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return nil, errors.New("search sessions: empty query")
	case len(q) > MaxQuery:
		return nil, fmt.Errorf("search sessions: the query has %d bytes, at most %d", len(q), MaxQuery)
	}
	out := m.otrMatching(q)
	list, err := m.db.SearchConversations(ctx, q, MaxResults)
	if err != nil {
		return nil, err
	}
	for _, c := range list {
		out = append(out, infoOf(c))
	}
	return out, nil
}

// otrMatching lists the off-the-record sessions whose title or messages
// contain q (all when q is ""), newest first.
func (m *Manager) otrMatching(q string) []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	lq := strings.ToLower(q)
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), lq) }
	var out []Info
	for _, s := range m.otr {
		hit := q == "" || has(s.info.Title) || slices.ContainsFunc(s.msgs, func(msg Message) bool { return has(msg.Text) })
		if hit {
			info := s.info
			info.Messages = len(s.msgs)
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// StartTurn starts a turn of a session (one user message and what the
// agent did about it) and returns its id, under which the engine notes
// the snapshots the turn takes.
func (m *Manager) StartTurn(ctx context.Context, id string) (string, error) {
	turn, err := m.newID()
	if err != nil {
		return "", fmt.Errorf("start turn of session %s: %w", id, err)
	}
	m.mu.Lock()
	if s, ok := m.otr[id]; ok {
		s.turns = append(s.turns, otrTurn{id: turn})
		m.mu.Unlock()
		return turn, nil
	}
	m.mu.Unlock()
	if err := m.db.StartConversationTurn(ctx, id, turn, m.opts.Now().UTC()); err != nil {
		return "", fmt.Errorf("start turn of session %s: %w", id, err)
	}
	return turn, nil
}

// NoteSnapshot notes that a turn took Chronicle snapshot snapshot, for
// /undo.
func (m *Manager) NoteSnapshot(ctx context.Context, id, turnID string, snapshot int64) error {
	if snapshot <= 0 {
		return fmt.Errorf("note snapshot %d of session %s: snapshot ids are positive", snapshot, id)
	}
	m.mu.Lock()
	if s, ok := m.otr[id]; ok {
		defer m.mu.Unlock()
		for i := range s.turns {
			if s.turns[i].id == turnID {
				if !slices.Contains(s.turns[i].snaps, snapshot) {
					s.turns[i].snaps = append(s.turns[i].snaps, snapshot)
				}
				return nil
			}
		}
		return fmt.Errorf("note snapshot %d of session %s: turn %s: %w", snapshot, id, turnID, ErrNotFound)
	}
	m.mu.Unlock()
	if err := m.db.AddTurnSnapshot(ctx, id, turnID, snapshot); err != nil {
		return fmt.Errorf("note snapshot of session %s: %w", id, err)
	}
	return nil
}

// Effect is something a turn did that no Chronicle snapshot covers
// (EffectWrite, EffectNetwork), which /undo names as not restored.
type Effect = store.TurnEffect

// Kinds of Effect.
const (
	EffectWrite   = store.EffectWrite
	EffectNetwork = store.EffectNetwork
)

// NoteEffects notes what a turn did that no snapshot covers, for /undo
// to name (at most store.MaxTurnEffects per turn, each once).
func (m *Manager) NoteEffects(ctx context.Context, id, turnID string, effects []Effect) error {
	for _, e := range effects {
		if err := e.Check(); err != nil {
			return fmt.Errorf("note effects of session %s: %w", id, err)
		}
	}
	if len(effects) == 0 {
		return nil
	}
	m.mu.Lock()
	if s, ok := m.otr[id]; ok {
		defer m.mu.Unlock()
		for i := range s.turns {
			if s.turns[i].id != turnID {
				continue
			}
			for _, e := range effects {
				if len(s.turns[i].effects) < store.MaxTurnEffects && !slices.Contains(s.turns[i].effects, e) {
					s.turns[i].effects = append(s.turns[i].effects, e)
				}
			}
			return nil
		}
		return fmt.Errorf("note effects of session %s: turn %s: %w", id, turnID, ErrNotFound)
	}
	m.mu.Unlock()
	if err := m.db.AddTurnEffects(ctx, id, turnID, effects); err != nil {
		return fmt.Errorf("note effects of session %s: %w", id, err)
	}
	return nil
}

// TakeNotice returns, and forgets, what the agent must be told before the
// session's next message (the files an /undo put back): the model would
// otherwise go on from files that are no longer there. "" when none.
func (m *Manager) TakeNotice(session string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.notices[session]
	delete(m.notices, session)
	return n
}

func (m *Manager) setNotice(session, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.notices == nil {
		m.notices = map[string]string{}
	}
	if old := m.notices[session]; old != "" {
		text = old + "\n" + text
	}
	m.notices[session] = text
}
