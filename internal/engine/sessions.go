package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/parallax/parallax/internal/sessions"
	"github.com/parallax/parallax/internal/termtext"
	"github.com/parallax/parallax/internal/workspace"
)

// Sessions keeps the runtime's conversations: what it uses of
// *sessions.Manager (titles, search, history, /undo, the slash commands;
// off-the-record sessions in memory only).
type Sessions interface {
	New(ctx context.Context, otr bool) (sessions.Info, error)
	Get(ctx context.Context, id string) (sessions.Info, error)
	Append(ctx context.Context, id, role, text string) error
	History(ctx context.Context, id string) ([]sessions.Message, error)
	TakeNotice(session string) string
	List(ctx context.Context) ([]sessions.Info, error)
	StartTurn(ctx context.Context, id string) (turnID string, err error)
	NoteSnapshot(ctx context.Context, id, turnID string, snapshot int64) error
	NoteEffects(ctx context.Context, id, turnID string, effects []sessions.Effect) error
	Command(ctx context.Context, session, name string, args []string) (sessions.CommandResult, error)
}

var _ Sessions = (*sessions.Manager)(nil)

// openSessions opens the sessions of an open workspace in its database.
func openSessions(ctx context.Context, ws *workspace.Workspace, home string, opts RuntimeOptions) (*sessions.Manager, error) {
	return sessions.Open(ctx, ws.DB, sessions.Options{Workspace: ws.Root, Now: opts.Now, IDs: randomID,
		Audit: ws.Audit, Redactor: ws.Redactor, Doctor: workspace.DoctorOptions{Home: home},
		Logs: func(_ context.Context, n int) (string, error) { return tailLog(LogPath(ws.Root), n) }})
}

// randomID is a session or turn id: 12 random hex digits.
func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on Linux
	return hex.EncodeToString(b[:])
}

// maxLogTail bounds what /logs reads from the end of the log.
const maxLogTail = 256 << 10

// tailLog returns the last n lines of the engine's log.
func tailLog(path string, n int) (string, error) {
	f, err := os.Open(path) //nolint:gosec // the workspace's own engine log
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("no engine log: an engine in the foreground logs to its terminal (parallax start --detach writes " + path + ")")
	}
	if err != nil {
		return "", fmt.Errorf("read the engine log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read the engine log: %w", err)
	}
	off := max(st.Size()-maxLogTail, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return "", fmt.Errorf("read the engine log: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first may be cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return termtext.Clean(strings.Join(lines, "\n")), nil
}
