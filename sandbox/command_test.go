//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cmdFixture is a fake machine under t.TempDir: a home with a workspace,
// a denied ~/.ssh, a readable sibling ~/.config, a Go-style cache, a
// link to the denied directory, a fake system dir and a private temp.
type cmdFixture struct {
	root, home, ws, ssh, conf, cache, etc, tmp string
}

func newCmdFixture(t *testing.T) cmdFixture {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	f := cmdFixture{
		root: root, home: home, ws: filepath.Join(home, "project"), ssh: filepath.Join(home, ".ssh"),
		conf: filepath.Join(home, ".config"), cache: filepath.Join(home, ".cache", "go-build"),
		etc: filepath.Join(root, "etc"), tmp: filepath.Join(root, "tmp"),
	}
	for _, d := range []string{f.ws, f.ssh, f.conf, f.cache, f.etc, f.tmp, filepath.Join(f.ws, ".parallax"), filepath.Join(f.ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(f.ssh, "id_ed25519"):              "PRIVATE KEY\n",
		filepath.Join(f.conf, "app.conf"):               "colour = blue\n",
		filepath.Join(f.etc, "hosts"):                   "127.0.0.1 localhost\n",
		filepath.Join(f.etc, "motd"):                    "hello\n",
		filepath.Join(f.ws, "go.mod"):                   "module x\n",
		filepath.Join(f.home, ".bashrc"):                "# rc\n",
		filepath.Join(f.cache, "README"):                "cache\n",
		filepath.Join(f.home, ".netrc"):                 "machine x password y\n",
		filepath.Join(f.ws, ".parallax", "audit.jsonl"): "{}\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{filepath.Join(f.home, "keys"): f.ssh, filepath.Join(f.ws, "etclink"): f.etc}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f cmdFixture) spec() CommandSpec {
	return CommandSpec{Workspace: f.ws, TempDir: f.tmp, ReadDeny: []string{f.ssh}}
}

// runSandboxed runs argv under spec through the test binary and returns
// its exit status, stdout and stderr.
func runSandboxed(t *testing.T, spec CommandSpec, env []string, argv ...string) (int, string, string) {
	t.Helper()
	cmd, err := spec.Command(context.Background(), os.Args[0], argv)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exitErr):
		return exitErr.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("run: %v", err)
	return -1, "", ""
}

// fileCase is one command against the fixture; spec and script are
// built from the fixture so the control can rerun them on a fresh one.
type fileCase struct {
	name       string
	spec       func(f cmdFixture) CommandSpec
	script     func(f cmdFixture) string
	wantOK     bool
	wantStdout string
}

func fileCases() []fileCase {
	base := func(f cmdFixture) CommandSpec { return f.spec() }
	withCache := func(f cmdFixture) CommandSpec {
		s := f.spec()
		s.Caches = []string{f.cache, filepath.Join(f.home, ".cargo")} // the second is missing: skipped
		return s
	}
	sealed := func(f cmdFixture) CommandSpec {
		s := f.spec()
		s.ReadDeny = append(s.ReadDeny, filepath.Join(f.ws, ".parallax"), filepath.Join(f.home, ".netrc"))
		return s
	}
	hidden := func(f cmdFixture) CommandSpec {
		s := f.spec()
		s.Hide = []string{filepath.Join(f.ws, ".parallax")}
		return s
	}
	withWrite := func(f cmdFixture) CommandSpec {
		s := f.spec()
		s.Write = []string{filepath.Join(f.etc, "motd")}
		return s
	}
	return []fileCase{
		{"write in workspace", base, func(f cmdFixture) string { return "echo built > " + f.ws + "/out && cat " + f.ws + "/out" }, true, "built\n"},
		{"write in temp dir", base, func(cmdFixture) string { return `echo t > "$TMPDIR/t" && cat "$TMPDIR/t"` }, true, "t\n"},
		{"write in home", base, func(f cmdFixture) string { return "echo x > " + f.home + "/evil" }, false, ""},
		{"append to home rc", base, func(f cmdFixture) string { return "echo x >> " + f.home + "/.bashrc" }, false, ""},
		{"write in system dir", base, func(f cmdFixture) string { return "echo x >> " + f.etc + "/hosts" }, false, ""},
		{"write allowed by verdict", withWrite, func(f cmdFixture) string { return "echo bye >> " + f.etc + "/motd && cat " + f.etc + "/motd" }, true, "hello\nbye\n"},
		{"read denied dir", base, func(f cmdFixture) string { return "cat " + f.ssh + "/id_ed25519" }, false, ""},
		{"list denied dir", base, func(f cmdFixture) string { return "ls " + f.ssh }, false, ""},
		{"read denied dir through a link", base, func(f cmdFixture) string { return "cat " + f.home + "/keys/id_ed25519" }, false, ""},
		{"read sibling of denied dir", base, func(f cmdFixture) string { return "cat " + f.conf + "/app.conf" }, true, "colour = blue\n"},
		{"read home file", base, func(f cmdFixture) string { return "cat " + f.home + "/.bashrc" }, true, "# rc\n"},
		{"read system file", base, func(f cmdFixture) string { return "cat " + f.etc + "/hosts" }, true, "127.0.0.1 localhost\n"},
		{"write through a workspace link", base, func(f cmdFixture) string { return "echo x >> " + f.ws + "/etclink/hosts" }, false, ""},
		{"read sealed dir in workspace", sealed, func(f cmdFixture) string { return "cat " + f.ws + "/.parallax/audit.jsonl" }, false, ""},
		{"write sealed dir in workspace", sealed, func(f cmdFixture) string { return "echo x > " + f.ws + "/.parallax/new" }, false, ""},
		{"write workspace subdir around sealed dir", sealed, func(f cmdFixture) string { return "echo b > " + f.ws + "/src/b.go && cat " + f.ws + "/src/b.go" }, true, "b\n"},
		{"edit workspace file around sealed dir", sealed, func(f cmdFixture) string { return "echo go 1.26 >> " + f.ws + "/go.mod && cat " + f.ws + "/go.mod" }, true, "module x\ngo 1.26\n"},
		{"read denied file", sealed, func(f cmdFixture) string { return "cat " + f.home + "/.netrc" }, false, ""},
		{"cache not listed", base, func(f cmdFixture) string { return "echo x > " + f.cache + "/entry" }, false, ""},
		{"list hidden dir", hidden, func(f cmdFixture) string { return "ls -A " + f.ws + "/.parallax | grep audit" }, false, ""},
		{"read hidden dir", hidden, func(f cmdFixture) string { return "cat " + f.ws + "/.parallax/audit.jsonl" }, false, ""},
		{"read hidden dir relative", hidden, func(f cmdFixture) string { return "cd " + f.ws + " && cat .parallax/audit.jsonl" }, false, ""},
		{"write hidden dir", hidden, func(f cmdFixture) string { return "echo x > " + f.ws + "/.parallax/new" }, false, ""},
		{"read hidden dir through /proc of the parent", hidden, func(f cmdFixture) string { return "cat /proc/$PPID/root" + f.ws + "/.parallax/audit.jsonl" }, false, ""},
		{"move hidden dir away", hidden, func(f cmdFixture) string {
			return "mv " + f.ws + "/.parallax " + f.ws + "/moved && mv " + f.ws + "/moved " + f.ws + "/.parallax"
		}, false, ""},
		{"new top-level file beside hidden dir", hidden, func(f cmdFixture) string {
			return "echo new > " + f.ws + "/NEWFILE && cat " + f.ws + "/NEWFILE"
		}, true, "new\n"},
		{"new top-level dir beside hidden dir", hidden, func(f cmdFixture) string {
			return "mkdir " + f.ws + "/newdir && echo n > " + f.ws + "/newdir/f && cat " + f.ws + "/newdir/f"
		}, true, "n\n"},
		{"edit workspace file beside hidden dir", hidden, func(f cmdFixture) string { return "echo x >> " + f.ws + "/go.mod" }, true, ""},
		{"read denied dir with hidden dir", hidden, func(f cmdFixture) string { return "cat " + f.ssh + "/id_ed25519" }, false, ""},
		{"cache listed", withCache, func(f cmdFixture) string { return "echo x > " + f.cache + "/entry && cat " + f.cache + "/entry" }, true, "x\n"},
	}
}

func TestCommandSandboxFiles(t *testing.T) {
	requireLandlock(t)
	f := newCmdFixture(t)
	for _, tc := range fileCases() {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runSandboxed(t, tc.spec(f), nil, "/bin/sh", "-c", tc.script(f))
			if code == ExitSandboxFailed {
				t.Fatalf("sandbox failed: %s", stderr)
			}
			if got := code == 0; got != tc.wantOK {
				t.Fatalf("exit %d, want success %v (stderr %q)", code, tc.wantOK, stderr)
			}
			if tc.wantOK && tc.wantStdout != "" && stdout != tc.wantStdout {
				t.Errorf("stdout %q, want %q", stdout, tc.wantStdout)
			}
		})
	}
	// What the refused writes would have left behind.
	if _, err := os.Stat(filepath.Join(f.home, "evil")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused write left %s/evil (%v)", f.home, err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.home, ".bashrc")); string(b) != "# rc\n" {
		t.Errorf(".bashrc changed to %q", b)
	}
}

// TestCommandFilesControl runs every script unsandboxed on a fresh
// fixture: each succeeds, so a refusal above is the sandbox's doing.
func TestCommandFilesControl(t *testing.T) {
	f := newCmdFixture(t)
	for _, tc := range fileCases() {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", "-c", tc.script(f))
			cmd.Env = append(os.Environ(), "TMPDIR="+f.tmp)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("unsandboxed: %v (%s)", err, out)
			}
		})
	}
}

func TestCommandSandboxNetwork(t *testing.T) {
	requireLandlock(t)
	f := newCmdFixture(t)
	addr := listenLoopback(t)
	env := []string{roleEnv + "=net", "PARALLAX_SANDBOX_TEST_ADDR=" + addr}
	cases := []struct {
		name    string
		network bool
		want    int
	}{
		{"no network effects", false, netSocketEACCES},
		{"network effects", true, netOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := f.spec()
			spec.Network = tc.network
			code, _, stderr := runSandboxed(t, spec, env, os.Args[0], "-test.run=^$")
			if code != tc.want {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.want, stderr)
			}
		})
	}
}

// TestLandlockDeniesTCP checks the second wall on its own: Landlock
// without seccomp refuses a TCP connect that the control makes.
func TestLandlockDeniesTCP(t *testing.T) {
	requireLandlock(t)
	if Support().LandlockABI < 4 {
		t.Skip("landlock ABI < 4 has no TCP rules")
	}
	addr := listenLoopback(t)
	cases := []struct {
		role string
		want int
	}{
		{"landlock-net", netSocketEACCES},
		{"net", netOK}, // the control: unsandboxed, the same connect works
	}
	for _, tc := range cases {
		t.Run(tc.role, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), roleEnv+"="+tc.role, "PARALLAX_SANDBOX_TEST_ADDR="+addr)
			out, err := cmd.CombinedOutput()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Errorf("exit %d, want %d (%s)", code, tc.want, out)
			}
		})
	}
}

// listenLoopback accepts and closes connections on a loopback port
// until the test ends, and returns its address.
func listenLoopback(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

func TestCommandSandboxRefusesBadSpecs(t *testing.T) {
	requireLandlock(t)
	f := newCmdFixture(t)
	missing := f.spec()
	missing.Workspace = filepath.Join(f.root, "nope")
	inside := f.spec()
	inside.Write = []string{filepath.Join(f.ssh, "id_ed25519")}
	cases := []struct {
		name, want string
		spec       CommandSpec
	}{
		{"missing workspace", "writable path " + missing.Workspace, missing},
		{"writable file in a denied dir", "lies in a read-denied directory", inside},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(f.ws, "ran")
			code, _, stderr := runSandboxed(t, tc.spec, nil, "/bin/sh", "-c", "touch "+marker)
			if code != ExitSandboxFailed || !strings.HasPrefix(stderr, "parallax sandbox: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and a reason with %q", code, stderr, ExitSandboxFailed, tc.want)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command ran although its sandbox failed")
			}
		})
	}
}

func TestCommandSpecValidation(t *testing.T) {
	ok := CommandSpec{Workspace: "/w", TempDir: "/t"}
	relDeny := ok
	relDeny.ReadDeny = []string{"/a", "b"}
	cases := []struct {
		name string
		spec CommandSpec
		argv []string
		want string // "" = no error
	}{
		{"valid", ok, []string{"true"}, ""},
		{"empty argv", ok, nil, "empty argv"},
		{"no workspace", CommandSpec{TempDir: "/t"}, []string{"true"}, "workspace and temp_dir are required"},
		{"relative deny", relDeny, []string{"true"}, `read_deny[1] "b" is not absolute`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.spec.Command(context.Background(), "/bin/parallax", tc.argv)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestDecodeSpecStrict(t *testing.T) {
	cases := []struct{ name, raw, want string }{
		{"unknown field", `{"workspace":"/w","temp_dir":"/t","netwrok":true}`, "unknown field"},
		{"trailing data", `{"workspace":"/w","temp_dir":"/t"} {}`, "trailing data"},
		{"not json", `workspace=/w`, "decode sandbox spec"},
		{"too big", `{"workspace":"` + strings.Repeat("a", maxSpecBytes) + `"}`, "limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeSpec(tc.raw); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
