//go:build linux

package files

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/tools"
)

// guarded is cfg with the judge the engine gives it: the guard of the
// workspace ws, with a fresh home.
func guarded(t testing.TB, ws string, cfg Config) Config {
	t.Helper()
	cfg.Judge = GuardJudge(guard.New(ws, t.TempDir()))
	return cfg
}

// mkAction decodes a payload through the catalog, as the gate does.
func mkAction(t testing.TB, typ string, payload map[string]any) *action.Action {
	t.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	a, err := action.Decode(typ, raw)
	if err != nil {
		t.Fatalf("decode %s: %v", typ, err)
	}
	if err := action.Normalize(a, action.Env{}); err != nil {
		t.Fatalf("normalize %s: %v", typ, err)
	}
	return a
}

// prepare takes the plan or fails the test.
func prepare(t testing.TB, a *action.Action) *Plan {
	t.Helper()
	p, err := Prepare(a)
	if err != nil {
		t.Fatalf("prepare %s: %v", a.Type, err)
	}
	return p
}

// execute runs a with plan p on a default executor.
func execute(a *action.Action, p *Plan) (tools.Result, error) {
	return New(Config{}).Execute(context.Background(), tools.Call{Action: a, Plan: p})
}

// do prepares and executes at once.
func do(t testing.TB, e *Executor, typ string, payload map[string]any) (tools.Result, error) {
	t.Helper()
	a := mkAction(t, typ, payload)
	return e.Execute(context.Background(), tools.Call{Action: a, Plan: prepare(t, a)})
}

// wantCode checks err carries code ("" means success) and that Result
// mirrors it.
func wantCode(t testing.TB, res tools.Result, err error, code string) {
	t.Helper()
	if got := tools.CodeOf(err); got != code {
		t.Fatalf("code: got %q, want %q (err %v)", got, code, err)
	}
	if res.Code != code {
		t.Fatalf("result code: got %q, want %q", res.Code, code)
	}
	if err != nil && res.Error != err.Error() {
		t.Fatalf("result error: got %q, want %q", res.Error, err.Error())
	}
}

func writeFile(t testing.TB, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mode(t testing.TB, p string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// umask reads the process umask (tests in this package do not run in
// parallel with each other while it is briefly 0).
func umask() os.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return os.FileMode(m)
}

// noTemps fails if a temporary file of ours is left in dir.
func noTemps(t testing.TB, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, unix.ENOTDIR) || errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".parallax-") {
			t.Fatalf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}
