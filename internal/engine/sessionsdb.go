package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/parallax/parallax/internal/sessions"
	"github.com/parallax/parallax/internal/termtext"
	"github.com/parallax/parallax/internal/workspace"
)

// dbSessions keeps the runtime's conversations in the workspace's
// database (internal/sessions): titles, search, history, /undo, the
// slash commands; off-the-record sessions only in memory.
type dbSessions struct {
	m   *sessions.Manager
	log *slog.Logger
}

var _ Sessions = (*dbSessions)(nil)

// openDBSessions opens the sessions of an open workspace.
func openDBSessions(ctx context.Context, ws *workspace.Workspace, home string, opts RuntimeOptions, status func() string) (*dbSessions, error) {
	m, err := sessions.Open(ctx, ws.DB, sessions.Options{Workspace: ws.Root, Now: opts.Now, IDs: randomID,
		Audit: ws.Audit, Status: status, Doctor: workspace.DoctorOptions{Home: home},
		Logs: func(_ context.Context, n int) (string, error) { return tailLog(LogPath(ws.Root), n) }})
	if err != nil {
		return nil, err
	}
	return &dbSessions{m: m, log: opts.Logger}, nil
}

// randomID is a session or turn id: 12 random hex digits.
func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on Linux
	return hex.EncodeToString(b[:])
}

func info(i sessions.Info) SessionInfo {
	return SessionInfo{ID: i.ID, Title: i.Title, OTR: i.OTR, Created: i.Created, Messages: i.Messages}
}

func (d *dbSessions) New(ctx context.Context, otr bool) (SessionInfo, error) {
	i, err := d.m.New(ctx, otr)
	return info(i), err
}

func (d *dbSessions) Get(ctx context.Context, id string) (SessionInfo, error) {
	i, err := d.m.Get(ctx, id)
	return info(i), err
}

func (d *dbSessions) Append(ctx context.Context, id, role, text string) error {
	return d.m.Append(ctx, id, role, text)
}

func (d *dbSessions) List(ctx context.Context) ([]SessionInfo, error) {
	l, err := d.m.List(ctx)
	out := make([]SessionInfo, 0, len(l))
	for _, i := range l {
		out = append(out, info(i))
	}
	return out, err
}

func (d *dbSessions) StartTurn(ctx context.Context, id string) (string, error) {
	return d.m.StartTurn(ctx, id)
}

// NoteSnapshot records a snapshot for /undo; a failure is logged (the
// snapshot itself is in Chronicle and can be rolled back by hand).
func (d *dbSessions) NoteSnapshot(ctx context.Context, id, turnID string, snapshot int64) {
	if err := d.m.NoteSnapshot(ctx, id, turnID, snapshot); err != nil {
		d.log.Error("engine: note a snapshot for /undo", "session", id, "snapshot", snapshot, "error", err)
	}
}

func (d *dbSessions) Command(ctx context.Context, session, name string, args []string) (CommandResult, error) {
	r, err := d.m.Command(ctx, session, name, args)
	return CommandResult{Text: r.Text, Switch: r.Switch, OTR: r.OTR, Quit: r.Quit}, err
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
