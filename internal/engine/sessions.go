package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SessionInfo is one conversation as the runtime lists it.
type SessionInfo struct {
	ID, Title string
	OTR       bool
	Created   time.Time
	Messages  int
}

// CommandResult is what a slash command answers.
type CommandResult struct {
	Text   string
	Switch string
	OTR    bool
	Quit   bool
}

// Sessions keeps the runtime's conversations: the API of
// internal/sessions (being written in parallel). Until it lands,
// MemorySessions stands in; at the merge an adapter over
// *sessions.Manager replaces it.
type Sessions interface {
	New(ctx context.Context, otr bool) (SessionInfo, error)
	Get(ctx context.Context, id string) (SessionInfo, error)
	Append(ctx context.Context, id, role, text string) error
	List(ctx context.Context) ([]SessionInfo, error)
	StartTurn(ctx context.Context, id string) (turnID string, err error)
	NoteSnapshot(ctx context.Context, id, turnID string, snapshot int64)
	Command(ctx context.Context, session, name string, args []string) (CommandResult, error)
}

// ErrNoSession is returned for a session id nobody created.
var ErrNoSession = errors.New("no such session")

// MemorySessions is the in-memory stand-in for internal/sessions: ids
// from a counter, nothing persisted, the slash commands /new, /otr,
// /sessions and /switch. It is replaced at the merge.
type MemorySessions struct {
	Now func() time.Time

	mu    sync.Mutex
	next  int
	turns int
	byID  map[string]*SessionInfo
}

var _ Sessions = (*MemorySessions)(nil)

func (m *MemorySessions) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// New starts a session.
func (m *MemorySessions) New(_ context.Context, otr bool) (SessionInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID == nil {
		m.byID = map[string]*SessionInfo{}
	}
	m.next++
	s := &SessionInfo{ID: "s" + strconv.Itoa(m.next), OTR: otr, Created: m.now()}
	m.byID[s.ID] = s
	return *s, nil
}

// Get returns one session.
func (m *MemorySessions) Get(_ context.Context, id string) (SessionInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return SessionInfo{}, fmt.Errorf("session %q: %w", id, ErrNoSession)
	}
	return *s, nil
}

// Append counts a message; its text is not kept.
func (m *MemorySessions) Append(_ context.Context, id, _, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return fmt.Errorf("session %q: %w", id, ErrNoSession)
	}
	s.Messages++
	if s.Title == "" && !s.OTR {
		s.Title = firstWords(text, 6)
	}
	return nil
}

// List returns the sessions, oldest first.
func (m *MemorySessions) List(context.Context) ([]SessionInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]SessionInfo, 0, len(m.byID))
	for _, s := range m.byID {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || (out[i].Created.Equal(out[j].Created) && out[i].ID < out[j].ID)
	})
	return out, nil
}

// StartTurn returns a fresh turn id.
func (m *MemorySessions) StartTurn(_ context.Context, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byID[id]; !ok {
		return "", fmt.Errorf("session %q: %w", id, ErrNoSession)
	}
	m.turns++
	return id + "-t" + strconv.Itoa(m.turns), nil
}

// NoteSnapshot is a no-op: /undo needs internal/sessions.
func (m *MemorySessions) NoteSnapshot(context.Context, string, string, int64) {}

// Command runs the slash commands the stand-in knows.
func (m *MemorySessions) Command(ctx context.Context, session, name string, args []string) (CommandResult, error) {
	switch name {
	case "new", "otr":
		s, err := m.New(ctx, name == "otr")
		if err != nil {
			return CommandResult{}, err
		}
		return CommandResult{Text: "new session " + s.ID, Switch: s.ID, OTR: s.OTR}, nil
	case "sessions":
		list, _ := m.List(ctx)
		var b strings.Builder
		for _, s := range list {
			fmt.Fprintf(&b, "%s  %s  %d messages%s\n", s.ID, s.Title, s.Messages, map[bool]string{true: "  (off the record)"}[s.OTR])
		}
		return CommandResult{Text: b.String()}, nil
	case "switch":
		if len(args) != 1 {
			return CommandResult{}, errors.New("/switch takes one session id")
		}
		s, err := m.Get(ctx, args[0])
		if err != nil {
			return CommandResult{}, err
		}
		return CommandResult{Text: "switched to " + s.ID, Switch: s.ID, OTR: s.OTR}, nil
	case "quit":
		return CommandResult{Quit: true}, nil
	}
	return CommandResult{}, fmt.Errorf("/%s is not available in this build (sessions are kept in memory until internal/sessions lands)", name)
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}
