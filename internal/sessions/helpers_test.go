package sessions

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/workspace"
)

// clock advances one second per reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// counter hands out ids id-0001, id-0002, …
type counter struct {
	mu     sync.Mutex
	prefix string
	n      int
}

func (c *counter) Next() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("%s-%04d", c.prefix, c.n)
}

// env is a real workspace (workspace.Init in a temporary directory), its
// database and audit chain, and a Manager on them.
type env struct {
	root  string
	ws    *workspace.Workspace
	m     *Manager
	clock *clock
}

func newEnv(t testing.TB, tune func(*Options)) *env {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	if _, err := workspace.Init(ctx, root, workspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ws.Close(); err != nil {
			t.Error(err)
		}
	})
	clk := &clock{t: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	opts := Options{
		Workspace: root, Now: clk.Now, IDs: (&counter{prefix: "sess"}).Next, Audit: ws.Audit,
		Doctor: workspace.DoctorOptions{Home: t.TempDir(), Sandbox: func() []workspace.Check { return nil }},
	}
	if tune != nil {
		tune(&opts)
	}
	m, err := Open(ctx, ws.DB, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &env{root: root, ws: ws, m: m, clock: clk}
}

// entries returns the audit entries of the workspace's chain that match f.
func (e *env) entries(t *testing.T, f audit.Filter) []audit.Entry {
	t.Helper()
	var out []audit.Entry
	if err := audit.Scan(audit.DefaultPath(e.root), f, func(en audit.Entry) error {
		out = append(out, en)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// verifyChain checks the whole audit chain of the workspace.
func (e *env) verifyChain(t *testing.T) {
	t.Helper()
	if _, err := workspace.VerifyChain(e.root); err != nil {
		t.Errorf("audit chain: %v", err)
	}
}

func mustNew(t *testing.T, m *Manager, otr bool) Info {
	t.Helper()
	info, err := m.New(context.Background(), otr)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func mustAppend(t *testing.T, m *Manager, id string, msgs ...string) {
	t.Helper()
	for i, text := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		if err := m.Append(context.Background(), id, role, text); err != nil {
			t.Fatal(err)
		}
	}
}

func mustCommand(t *testing.T, m *Manager, session, name string, args ...string) CommandResult {
	t.Helper()
	res, err := m.Command(context.Background(), session, name, args)
	if err != nil {
		t.Fatalf("/%s %v: %v", name, args, err)
	}
	return res
}
