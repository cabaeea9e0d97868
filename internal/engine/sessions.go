package engine

import (
	"context"
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
// internal/sessions, adapted by dbSessions.
type Sessions interface {
	New(ctx context.Context, otr bool) (SessionInfo, error)
	Get(ctx context.Context, id string) (SessionInfo, error)
	Append(ctx context.Context, id, role, text string) error
	List(ctx context.Context) ([]SessionInfo, error)
	StartTurn(ctx context.Context, id string) (turnID string, err error)
	NoteSnapshot(ctx context.Context, id, turnID string, snapshot int64)
	Command(ctx context.Context, session, name string, args []string) (CommandResult, error)
}
