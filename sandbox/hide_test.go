//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/parallax/parallax/internal/e2e"
	"golang.org/x/sys/unix"
)

// requireUserns skips where the kernel refuses user namespaces (the
// fail-closed refusal itself is tested without them).
func requireUserns(t testing.TB) {
	t.Helper()
	requireLandlock(t)
	e2e.Need(t, UsernsAvailable(), "no user namespaces")
}

// Exit statuses of maskChild.
const (
	maskHeld     = 0  // every attempt refused, the mask still in place
	maskBroken   = 10 // an attempt succeeded or the mask is gone
	maskNotFound = 11 // the path is not a read-only tmpfs to begin with
)

// maskChild runs as the sandboxed command: it checks that the path in
// PARALLAX_SANDBOX_TEST_PATH is an empty read-only tmpfs (listed empty),
// tries to take the mask off every way the filter should refuse, and
// checks the mask again. It prints what happened, one line per attempt.
func maskChild() int {
	p := os.Getenv("PARALLAX_SANDBOX_TEST_PATH")
	isMask := func() bool {
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			fmt.Println("statfs:", err)
			return false
		}
		ents, err := os.ReadDir(p)
		fmt.Printf("type %#x flags %#x list %d entries, %v\n", st.Type, st.Flags, len(ents), err)
		return st.Type == unix.TMPFS_MAGIC && st.Flags&unix.ST_RDONLY != 0 && err == nil && len(ents) == 0
	}
	if !isMask() {
		return maskNotFound
	}
	attempts := []struct {
		name string
		call func() error
	}{
		{"umount2", func() error { return unix.Unmount(p, 0) }},
		{"umount2 detach", func() error { return unix.Unmount(p, unix.MNT_DETACH) }},
		{"mount over", func() error { return unix.Mount("x", p, "tmpfs", 0, "") }},
		{"remount rw", func() error { return unix.Mount("", p, "", unix.MS_REMOUNT, "") }},
		{"unshare", func() error { return unix.Unshare(unix.CLONE_NEWUSER | unix.CLONE_NEWNS) }},
		{"open_tree", func() error {
			fd, err := unix.OpenTree(unix.AT_FDCWD, filepath.Dir(p), unix.OPEN_TREE_CLONE)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"fsopen", func() error {
			fd, err := unix.Fsopen("tmpfs", 0)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"pivot_root", func() error { return unix.PivotRoot(p, p) }},
		{"chmod", func() error { return os.Chmod(p, 0o755) }},
	}
	held := true
	for _, a := range attempts {
		err := a.call()
		fmt.Printf("%s: %v\n", a.name, err)
		held = held && err != nil
	}
	if !held || !isMask() {
		return maskBroken
	}
	return maskHeld
}

// TestCommandHideMask: the hidden directory is an empty read-only tmpfs
// the command cannot list, and no way of taking the mask off works.
func TestCommandHideMask(t *testing.T) {
	requireUserns(t)
	f := newCmdFixture(t)
	hidden := filepath.Join(f.ws, ".parallax")
	spec := f.spec()
	spec.Hide = []string{hidden}
	env := []string{roleEnv + "=mask", "PARALLAX_SANDBOX_TEST_PATH=" + hidden}
	code, stdout, stderr := runSandboxed(t, spec, env, os.Args[0], "-test.run=^$")
	if code != maskHeld {
		t.Fatalf("exit %d, want %d\n%s%s", code, maskHeld, stdout, stderr)
	}
	if testing.Verbose() {
		t.Log(stdout)
	}
	// The control: the same child, unsandboxed, finds no mask at all.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != maskNotFound {
		t.Fatalf("control: %v, want exit %d (%s)", err, maskNotFound, out)
	}
	// The host's view is untouched: the mask lived in the command's
	// namespace only.
	if b, err := os.ReadFile(filepath.Join(hidden, "audit.jsonl")); err != nil || string(b) != "{}\n" {
		t.Fatalf("the workspace's .parallax after the run: %q, %v", b, err)
	}
}

// TestCommandHideDropsCaps: the command holds no capability, in any set,
// although the wrapper needed CAP_SYS_ADMIN to mount.
func TestCommandHideDropsCaps(t *testing.T) {
	requireUserns(t)
	f := newCmdFixture(t)
	spec := f.spec()
	spec.Hide = []string{filepath.Join(f.ws, ".parallax")}
	code, stdout, stderr := runSandboxed(t, spec, nil, "/bin/sh", "-c", "grep ^Cap /proc/self/status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("line %q", line)
		}
		seen++
		if strings.Trim(strings.TrimSpace(val), "0") != "" {
			t.Errorf("%s is %s, want no capability", name, strings.TrimSpace(val))
		}
	}
	if seen != 5 { // CapInh, CapPrm, CapEff, CapBnd, CapAmb
		t.Fatalf("read %d capability sets, want 5:\n%s", seen, stdout)
	}
}

func TestCommandHideRefusesBadSpecs(t *testing.T) {
	requireUserns(t)
	f := newCmdFixture(t)
	link := filepath.Join(f.ws, "sshlink")
	if err := os.Symlink(f.ssh, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, want string
		hide       string
	}{
		{"outside the writable trees", "not inside a writable tree", f.conf},
		{"the workspace itself", "not inside a writable tree", f.ws},
		{"missing", "no such file", filepath.Join(f.ws, "nope")},
		{"a file", "not a directory", filepath.Join(f.ws, "go.mod")},
		{"a symlink", "not a directory", link},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := f.spec()
			spec.Hide = []string{tc.hide}
			marker := filepath.Join(f.ws, "ran")
			code, _, stderr := runSandboxed(t, spec, nil, "/bin/sh", "-c", "touch "+marker)
			if code != ExitSandboxFailed || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and a reason with %q", code, stderr, ExitSandboxFailed, tc.want)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command ran although its sandbox failed")
			}
		})
	}
}

// TestCommandHideNeedsItsNamespace: a caller that takes only Path and
// Args and drops the namespace attributes gets a refusal, not masks
// mounted in its own namespace.
func TestCommandHideNeedsItsNamespace(t *testing.T) {
	requireUserns(t)
	f := newCmdFixture(t)
	spec := f.spec()
	spec.Hide = []string{filepath.Join(f.ws, ".parallax")}
	cmd, err := spec.Command(context.Background(), os.Args[0], []string{"/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWUSER == 0 {
		t.Fatalf("Command set no user namespace: %+v", cmd.SysProcAttr)
	}
	bare := exec.Command(cmd.Path, cmd.Args[1:]...)
	bare.Env = cmd.Env
	out, err := bare.CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != ExitSandboxFailed || !strings.Contains(string(out), "namespace of its own") {
		t.Fatalf("%v: %s; want a refusal", err, out)
	}
	// SetSysProcAttr on a cmd that already has a process group keeps it.
	bare = exec.Command(cmd.Path, cmd.Args[1:]...)
	bare.Env = cmd.Env
	bare.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	spec.SetSysProcAttr(bare)
	if out, err := bare.CombinedOutput(); err != nil || !bare.SysProcAttr.Setpgid {
		t.Fatalf("%v: %s (setpgid %v)", err, out, bare.SysProcAttr.Setpgid)
	}
}

func TestProbeHide(t *testing.T) {
	requireUserns(t)
	if err := ProbeHide(context.Background(), os.Args[0]); err != nil {
		t.Fatal(err)
	}
	// A self that is not the wrapper fails the probe.
	if err := ProbeHide(context.Background(), "/bin/false"); !errors.Is(err, ErrNoUserns) {
		t.Fatalf("probe with /bin/false: %v, want ErrNoUserns", err)
	}
}

// userChildInput is what TestCommandHideUnprivileged passes to its
// child running as an unprivileged uid.
type userChildInput struct {
	Spec CommandSpec `json:"spec"`
	Argv []string    `json:"argv"`
	Env  []string    `json:"env"`
}

// userChild runs argv under spec as its own (unprivileged) user and
// exits with the command's status, its output passed through.
func userChild() int {
	var in userChildInput
	if err := json.Unmarshal([]byte(os.Getenv("PARALLAX_SANDBOX_TEST_INPUT")), &in); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		return 2
	}
	cmd, err := in.Spec.Command(context.Background(), os.Args[0], in.Argv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Command:", err)
		return 2
	}
	cmd.Env = append(cmd.Env, in.Env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 2
	}
	return 0
}

// TestCommandHideUnprivileged runs the hide cases as uid/gid 65534, the
// way the engine runs for most users: an unprivileged user namespace,
// ambient capabilities only. It needs root to switch user.
func TestCommandHideUnprivileged(t *testing.T) {
	requireUserns(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a child as another uid (as non-root, the other tests already are)")
	}
	const uid = 65534
	f := newCmdFixture(t)
	// The child must reach the test binary and the fixture as uid.
	bin := filepath.Join(f.root, "sandbox.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := f.root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err = filepath.WalkDir(f.root, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(f.ws, ".parallax")
	spec := f.spec()
	spec.Hide = []string{hidden}
	sh := func(script string) []string { return []string{"/bin/sh", "-c", script} }
	cases := []struct {
		name       string
		argv       []string
		env        []string
		want       int
		wantStdout string
	}{
		{"read hidden dir", sh("cat " + hidden + "/audit.jsonl"), nil, 1, ""},
		{"list hidden dir", sh("ls -A " + hidden + "; echo listed"), nil, 0, "listed\n"},
		{"walk past hidden dir", sh("find " + f.ws + " -name audit.jsonl; echo $?"), nil, 0, "0\n"},
		{"new top-level file", sh("echo n > " + f.ws + "/NEW && cat " + f.ws + "/NEW"), nil, 0, "n\n"},
		{"no capability", sh("grep -cE '^Cap(Inh|Prm|Eff|Bnd|Amb):[[:space:]]*0+$' /proc/self/status"), nil, 0, "5\n"},
		{"mask holds", []string{bin, "-test.run=^$"}, []string{roleEnv + "=mask", "PARALLAX_SANDBOX_TEST_PATH=" + hidden}, maskHeld, ""},
		{"read denied dir", sh("cat " + f.ssh + "/id_ed25519"), nil, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := json.Marshal(userChildInput{Spec: spec, Argv: tc.argv, Env: tc.env})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "-test.run=^$")
			cmd.Env = append(os.Environ(), roleEnv+"=as-user", "PARALLAX_SANDBOX_TEST_INPUT="+string(in))
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.want, stdout.String(), stderr.String())
			}
			if tc.wantStdout != "" && stdout.String() != tc.wantStdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.wantStdout)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(hidden, "audit.jsonl")); err != nil || string(b) != "{}\n" {
		t.Fatalf("the workspace's .parallax after the runs: %q, %v", b, err)
	}
}

// TestCommandHideWithoutUserns: where a sysctl refuses user namespaces,
// a spec with Hide is refused with the sysctl's name, unless the caller
// opted out, in which case the command runs without the masks.
func TestCommandHideWithoutUserns(t *testing.T) {
	sys := t.TempDir()
	if err := os.MkdirAll(filepath.Join(sys, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys, "user", "max_user_namespaces"), []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := procSys
	procSys = sys
	t.Cleanup(func() { procSys = old })
	spec := CommandSpec{Workspace: "/w", TempDir: "/t", Hide: []string{"/w/.parallax"}}
	cases := []struct {
		name     string
		optional bool
		want     string // "" = no error
	}{
		{"refused", false, "sysctl user.max_user_namespaces is 0; not run"},
		{"opted out", true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := spec
			s.HideOptional = tc.optional
			cmd, err := s.Command(context.Background(), "/bin/parallax", []string{"true"})
			if tc.want != "" {
				if err == nil || !errors.Is(err, ErrNoUserns) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want ErrNoUserns with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cmd.SysProcAttr != nil || strings.Contains(cmd.Args[2], `"hide"`) {
				t.Fatalf("opted out, yet the masks were kept: %+v %s", cmd.SysProcAttr, cmd.Args[2])
			}
		})
	}
}
