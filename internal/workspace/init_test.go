package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// counter is a deterministic byte source: 0, 1, 2, ...
type counter struct{ n byte }

func (c *counter) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.n
		c.n++
	}
	return len(p), nil
}

func fixedOpts(preset string) InitOptions {
	return InitOptions{Policy: preset, Rand: &counter{}, Now: func() time.Time { return t0 }}
}

// tree lists every path under dir with its type, mode and, for files, the
// SHA-256 of its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := de.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			desc += " " + hex.EncodeToString(sum[:8])
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestInitLayout(t *testing.T) {
	for _, preset := range policy.PresetNames() {
		t.Run(preset, func(t *testing.T) {
			root := t.TempDir()
			res, err := Init(context.Background(), root, fixedOpts(preset))
			if err != nil {
				t.Fatal(err)
			}
			if res.Root != root || res.Policy != preset || res.Backup != "" {
				t.Errorf("result: got %+v", res)
			}
			// Exactly the layout, with these modes; nothing else in root.
			want := map[string]string{
				".":                          "drwxr-xr-x",
				".parallax":                  "drwx------",
				".parallax/config.yaml":      "-rw-------",
				".parallax/policy.yaml":      "-rw-------",
				".parallax/taint.pending":    "-rw-------",
				".parallax/canary.token":     "-rw-------",
				".parallax/api.token":        "-rw-------",
				".parallax/client.token":     "-rw-------",
				".parallax/.gitignore":       "-rw-------",
				".parallax/parallax.db":      "-rw-------",
				".parallax/parallax.db.lock": "-rw-------",
				".parallax/audit.jsonl":      "-rw-------",
				".parallax/audit.head":       "-rw-------",
				".parallax/chronicle":        "drwx------",
				".parallax/backups":          "drwx------",
			}
			got := tree(t, root)
			if g, w := strings.Join(names(got), " "), strings.Join(names(want), " "); g != w {
				t.Fatalf("layout:\ngot  %s\nwant %s", g, w)
			}
			for p, mode := range want {
				if p == "." {
					continue // t.TempDir's own mode
				}
				if !strings.HasPrefix(got[p], mode) {
					t.Errorf("%s: got %s, want mode %s", p, got[p], mode)
				}
			}
			checkContents(t, root, preset)
		})
	}
}

// checkContents holds each file of a fresh workspace to what it must say.
func checkContents(t *testing.T, root, preset string) {
	t.Helper()
	cfg, err := LoadConfig(root)
	if err != nil || cfg.Policy != preset || cfg.Version != 1 {
		t.Errorf("config: got %+v %v, want policy %s", cfg, err, preset)
	}
	home := "/home/dev"
	up, err := policy.Load(PolicyPath(root), policy.Vars{Workspace: root, Home: home})
	if err != nil {
		t.Fatalf("policy.yaml must load: %v", err)
	}
	if up.Rules() != 0 || len(up.Lint()) != 0 {
		t.Errorf("policy.yaml: got %d rules, %v lint warnings, want none", up.Rules(), up.Lint())
	}
	// The deterministic source gives bytes 0..31 to the canary, 32..63 to the
	// API token, 64..95 to the client token.
	canary, err := ReadToken(CanaryPath(root))
	if err != nil || canary != hex.EncodeToString(seq(0, 32)) {
		t.Errorf("canary: got %q %v", canary, err)
	}
	api, err := ReadToken(APITokenPath(root))
	if err != nil || api != hex.EncodeToString(seq(32, 32)) {
		t.Errorf("api token: got %q %v", api, err)
	}
	client, err := ReadToken(ClientTokenPath(root))
	if err != nil || client != hex.EncodeToString(seq(64, 32)) {
		t.Errorf("client token: got %q %v", client, err)
	}
	var entries []audit.Entry
	if err := audit.Scan(audit.DefaultPath(root), audit.Filter{}, func(e audit.Entry) error {
		entries = append(entries, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rep, err := audit.Verify(audit.DefaultPath(root), audit.VerifyOptions{}); err != nil || rep.Entries != 1 {
		t.Fatalf("audit chain: got %+v %v, want one verified entry", rep, err)
	}
	e := entries[0]
	if e.Type != audit.ConfigChanged || e.Detail.Code != InitCode || !e.Time.Equal(t0) || !strings.Contains(e.Reason, preset) {
		t.Errorf("first audit entry: got %+v", e)
	}
	w, err := Open(context.Background(), root)
	if err != nil {
		t.Fatalf("a fresh workspace must open: %v", err)
	}
	defer w.Close()
	if v, err := w.DB.Version(context.Background()); err != nil || v != store.SchemaVersion() {
		t.Errorf("schema: got %d %v, want %d", v, err, store.SchemaVersion())
	}
	g, err := shield.New(w.GateConfig(home))
	if err != nil {
		t.Fatalf("the gate must build on a fresh workspace: %v", err)
	}
	v := g.Evaluate(context.Background(), shield.Request{Session: "s", Type: "read_file",
		Payload: json.RawMessage(`{"path":"` + APITokenPath(root) + `"}`)})
	if v.Decision != verdict.Block {
		t.Errorf("reading the API token through the gate: got %v, want BLOCK", v.Decision)
	}
}

func seq(from, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(from + i)
	}
	return b
}

func TestInitRealRandomness(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err1 := ReadToken(CanaryPath(root))
	b, err2 := ReadToken(APITokenPath(root))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Error("canary and API token are equal")
	}
	if cfg, _ := LoadConfig(root); cfg.Policy != "default" {
		t.Errorf("empty Policy: got %q, want default", cfg.Policy)
	}
}

func TestInitRefusesExisting(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
	}{
		{"workspace", func(t *testing.T, root string) {
			if _, err := Init(context.Background(), root, fixedOpts("default")); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty directory", func(t *testing.T, root string) { mkdir(t, StateDir(root)) }},
		{"file", func(t *testing.T, root string) { writeFile(t, StateDir(root), "x", 0o600) }},
		{"dangling symlink", func(t *testing.T, root string) {
			if err := os.Symlink(filepath.Join(root, "nowhere"), StateDir(root)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			before := tree(t, root)
			_, err := Init(context.Background(), root, fixedOpts("strict"))
			if !errors.Is(err, ErrExists) {
				t.Fatalf("got %v, want ErrExists", err)
			}
			if after := tree(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("a refused init changed the directory:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, s string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// TestInitForceBacksUp: --force keeps the whole old state, unchanged,
// inside the new workspace, and the new chain names it and the old
// chain's anchor.
func TestInitForceBacksUp(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	if _, err := Init(ctx, root, fixedOpts("default")); err != nil {
		t.Fatal(err)
	}
	g, w := gateFor(t, root) // some history: two audited verdicts
	g.Evaluate(ctx, shield.Request{Session: "s1", Type: "execute_command", Payload: cmd("ls")})
	g.Evaluate(ctx, shield.Request{Session: "s1", Type: "execute_command", Payload: cmd("cat ~/.ssh/id_rsa")})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	oldHead, err := audit.ReadHead(audit.DefaultPath(root))
	if err != nil {
		t.Fatal(err)
	}
	old := tree(t, StateDir(root))

	later := t0.Add(time.Hour)
	opts := fixedOpts("strict")
	opts.Force, opts.Now = true, func() time.Time { return later }
	res, err := Init(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantBackup := filepath.Join(StateDir(root), "backups", "parallax-20260314T160926Z")
	if res.Backup != wantBackup {
		t.Fatalf("backup: got %s, want %s", res.Backup, wantBackup)
	}
	if moved := tree(t, res.Backup); fmt.Sprint(moved) != fmt.Sprint(old) {
		t.Errorf("the old state changed on the way:\nold   %v\nmoved %v", old, moved)
	}
	if rep, err := audit.Verify(filepath.Join(res.Backup, "audit.jsonl"), audit.VerifyOptions{}); err != nil || rep.Entries != 3 {
		t.Errorf("old chain in the backup: got %+v %v, want 3 verified entries", rep, err)
	}
	e := res.Entry
	if e.Seq != 1 || e.Detail.Ref != oldHead.String() || e.Detail.Path != ".parallax/backups/parallax-20260314T160926Z" {
		t.Errorf("new chain's first entry: got seq %d ref %q path %q, want ref %q", e.Seq, e.Detail.Ref, e.Detail.Path, oldHead)
	}
	if cfg, _ := LoadConfig(root); cfg.Policy != "strict" {
		t.Errorf("new config: got %q, want strict", cfg.Policy)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".parallax-init-*")); len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}

// TestInitAtomic fails Init after every step, fresh and with --force: the
// directory must be exactly as before, the old workspace untouched.
func TestInitAtomic(t *testing.T) {
	steps := []string{"directories", "config", "policy", "tokens", "database", "audit", "sync", "backup", "install"}
	injected := errors.New("injected failure")
	for _, force := range []bool{false, true} {
		for _, s := range steps {
			t.Run(fmt.Sprintf("force=%t/%s", force, s), func(t *testing.T) {
				root := t.TempDir()
				if force {
					if _, err := Init(context.Background(), root, fixedOpts("default")); err != nil {
						t.Fatal(err)
					}
				}
				before := tree(t, root)
				opts := fixedOpts("strict")
				opts.Force = force
				opts.failAt = func(step string) error {
					if step == s {
						return injected
					}
					return nil
				}
				_, err := Init(context.Background(), root, opts)
				if !errors.Is(err, injected) {
					t.Fatalf("got %v, want the injected failure", err)
				}
				if after := tree(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
					t.Errorf("a failed init left traces:\nbefore %v\nafter  %v", names(before), names(after))
				}
			})
		}
	}
}

// failingReader gives n bytes, then fails.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("entropy source failed")
	}
	k := min(len(p), r.n)
	r.n -= k
	return k, nil
}

func TestInitFailsClosed(t *testing.T) {
	tests := []struct {
		name, root string
		opts       InitOptions
		want       string
	}{
		{"randomness fails after the canary", "", InitOptions{Rand: &failingReader{n: 32}}, "api.token: read random bytes"},
		{"randomness fails at once", "", InitOptions{Rand: &failingReader{}}, "canary.token: read random bytes"},
		{"unknown preset", "", InitOptions{Policy: "yolo"}, `policy "yolo": want a preset`},
		{"policy file", "", InitOptions{Policy: "/etc/passwd"}, "want a preset"},
		{"relative root", "relative/dir", InitOptions{}, "path must be absolute"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := tc.root
			if root == "" {
				root = dir
			}
			_, err := Init(context.Background(), root, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if got := tree(t, dir); len(got) != 1 {
				t.Errorf("left behind: %v", names(got))
			}
		})
	}
}

func TestInitCancelled(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Init(ctx, root, fixedOpts("default")); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if got := tree(t, root); len(got) != 1 {
		t.Errorf("left behind: %v", names(got))
	}
}

func TestInitCreatesRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "new", "project")
	if _, err := Init(context.Background(), root, fixedOpts("default")); err != nil {
		t.Fatal(err)
	}
	if !Initialised(root) {
		t.Fatal("no workspace in the created directory")
	}
}

// TestInitRace: two processes' worth of Init on one directory at once:
// exactly one wins, the other gets ErrExists, and one workspace results.
func TestInitRace(t *testing.T) {
	for i := range 5 {
		root := t.TempDir()
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j := range errs {
			wg.Go(func() {
				_, errs[j] = Init(context.Background(), root, InitOptions{Now: func() time.Time { return t0 }})
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrExists):
				t.Errorf("round %d: the loser got %v, want ErrExists", i, err)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d inits succeeded, want exactly 1 (%v)", i, won, errs)
		}
		if left, _ := filepath.Glob(filepath.Join(root, ".parallax-init-*")); len(left) != 0 {
			t.Errorf("round %d: staging left behind: %v", i, left)
		}
		if rep := Doctor(context.Background(), root, DoctorOptions{Home: "/home/dev", Sandbox: noSandbox}); !rep.OK() {
			t.Errorf("round %d: the winner's workspace: %+v", i, rep.Checks)
		}
	}
}

func TestReadToken(t *testing.T) {
	good := strings.Repeat("ab", 32)
	tests := []struct {
		name, content string
		mode          fs.FileMode
		err           string
	}{
		{"good", good, 0o600, ""},
		{"trailing newline", good + "\n", 0o600, ""},
		{"read-only", good, 0o400, ""},
		{"group readable", good, 0o640, "mode 0640"},
		{"world readable", good, 0o604, "mode 0604"},
		{"short", good[:63], 0o600, "want 64 lower-case hex"},
		{"long", good + "a", 0o600, "want 64 lower-case hex"},
		{"upper case", strings.ToUpper(good), 0o600, "want 64 lower-case hex"},
		{"not hex", strings.Repeat("zz", 32), 0o600, "want 64 lower-case hex"},
		{"two newlines", good + "\n\n", 0o600, "want 64 lower-case hex"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "tok")
			writeFile(t, p, tc.content, tc.mode)
			got, err := ReadToken(p)
			if tc.err == "" {
				if err != nil || got != good {
					t.Fatalf("got %q %v, want the token", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrBadToken) {
				t.Fatalf("got %v, want ErrBadToken with %q", err, tc.err)
			}
			if strings.Contains(err.Error(), "abab") || strings.Contains(strings.ToLower(err.Error()), "zzzz") {
				t.Errorf("the error echoes the token: %v", err)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "real"), good, 0o600)
		if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadToken(filepath.Join(dir, "link")); !errors.Is(err, ErrBadToken) {
			t.Fatalf("got %v, want ErrBadToken", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := ReadToken(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("got %v, want ErrNotExist", err)
		}
	})
}

func BenchmarkInit(b *testing.B) {
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		if _, err := Init(context.Background(), filepath.Join(dir, fmt.Sprint(i)), InitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInitKeepsStateOutOfGit adds a fresh workspace to a real git
// repository: only the files a team may share are tracked, never the
// tokens, the database or the audit chain.
func TestInitKeepsStateOutOfGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	if _, err := Init(context.Background(), root, fixedOpts("default")); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	got := strings.Fields(git("ls-files"))
	want := []string{".parallax/.gitignore", ".parallax/config.yaml", ".parallax/policy.yaml"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tracked after git add -A: got %v, want %v", got, want)
	}
}
