//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The overlay tests run the real thing: the test binary re-executes
// itself as TestOverlayChild (selected with -test.run, switched on by
// overlayChildEnv, so TestMain's roles are untouched) in a new user and
// mount namespace, the way the wrapper runs: it mounts the overlays,
// drops its capabilities, applies the command sandbox with write access
// to each Lower, and runs a shell script as the command.

// overlayChildEnv carries the child's input (JSON overlayChildInput).
const overlayChildEnv = "PARALLAX_OVERLAY_TEST_CHILD"

// overlayChildMark starts the line on which the child reports.
const overlayChildMark = "overlay-child: "

// overlayChildInput is what a test passes to its child.
type overlayChildInput struct {
	Overlays  []Overlay `json:"overlays"`
	Prepare   bool      `json:"prepare"` // run PrepareOverlays only, outside any namespace
	Relay     bool      `json:"relay"`   // started as another user: start the real child as that user
	NoDAC     bool      `json:"no_dac"`  // mount with hideCaps only, without overlayCaps
	Workspace string    `json:"workspace"`
	TempDir   string    `json:"temp_dir"`
	Script    string    `json:"script"`
}

// overlayChildOutput is what the child reports.
type overlayChildOutput struct {
	Err    string `json:"err,omitempty"` // PrepareOverlays, mountOverlays or sandbox error; the script did not run
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// TestOverlayChild is the child; run directly, it skips.
func TestOverlayChild(t *testing.T) {
	raw := os.Getenv(overlayChildEnv)
	if raw == "" {
		t.Skip("the overlay tests' child: runs only when they start it")
	}
	var in overlayChildInput
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		t.Fatal(err)
	}
	var out overlayChildOutput
	if in.Relay {
		in.Relay = false
		var err error
		if out, err = overlayStep(os.Args[0], in); err != nil {
			t.Fatal(err)
		}
	} else {
		out = overlayCommand(in)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(overlayChildMark + string(b))
}

// overlayCommand plays the wrapper in its namespaces: mount, drop the
// capabilities, sandbox, then run the script as the command.
func overlayCommand(in overlayChildInput) overlayChildOutput {
	var out overlayChildOutput
	runtime.LockOSThread() // capabilities are per thread; never unlocked, the process ends here
	lowers := make([]string, len(in.Overlays))
	for i, o := range in.Overlays {
		lowers[i] = o.Lower
	}
	spec := CommandSpec{Workspace: in.Workspace, TempDir: in.TempDir, Caches: lowers}
	for _, step := range []func() error{
		func() error { return mountOverlays(in.Overlays) },
		dropCaps,
		spec.apply,
	} {
		if err := step(); err != nil {
			out.Err = err.Error()
			return out
		}
	}
	cmd := exec.Command("/bin/sh", "-c", in.Script)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		out.Code = exitErr.ExitCode()
	case err != nil:
		out.Err = err.Error()
	}
	out.Stdout, out.Stderr = stdout.String(), stderr.String()
	return out
}

// overlayStep does in's step as the current user, as the engine would:
// PrepareOverlays in this process, or the command in a child in new
// namespaces.
func overlayStep(bin string, in overlayChildInput) (overlayChildOutput, error) {
	if in.Prepare {
		var out overlayChildOutput
		if err := PrepareOverlays(in.Overlays); err != nil {
			out.Err = err.Error()
		}
		return out, nil
	}
	caps := append(append([]uintptr{}, hideCaps...), overlayCaps...)
	if in.NoDAC {
		caps = hideCaps
	}
	uid, gid := os.Getuid(), os.Getgid()
	return startOverlayChild(bin, in, &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: caps,
	})
}

// startOverlayChild runs bin as TestOverlayChild and decodes its report.
func startOverlayChild(bin string, in overlayChildInput, attr *syscall.SysProcAttr) (overlayChildOutput, error) {
	var out overlayChildOutput
	raw, err := json.Marshal(in)
	if err != nil {
		return out, err
	}
	cmd := exec.Command(bin, "-test.run=^TestOverlayChild$", "-test.count=1")
	// The race detector sleeps a second before exiting, unless told not to.
	cmd.Env = append(os.Environ(), overlayChildEnv+"="+string(raw),
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.SysProcAttr = attr
	b, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("overlay child: %w\n%s", err, b)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, overlayChildMark); ok {
			return out, json.Unmarshal([]byte(rest), &out)
		}
	}
	return out, fmt.Errorf("overlay child reported nothing:\n%s", b)
}

// overlayUsers are the users each overlay test runs as: the current one
// and, as root, an unprivileged one (whose namespace maps it to itself,
// not to root, as for most users of the engine).
func overlayUsers() []int {
	if os.Geteuid() == 0 {
		return []int{0, 65534}
	}
	return []int{os.Geteuid()}
}

// overlayFixture is a home with a Go module cache (the Lower), a state
// directory for Upper and Work outside every writable tree, a workspace
// and a temp dir, all owned by uid.
type overlayFixture struct {
	root, bin, ws, tmp string
	ov                 Overlay
	uid                int
}

func newOverlayFixture(t *testing.T, uid int) *overlayFixture {
	t.Helper()
	root := t.TempDir()
	f := &overlayFixture{root: root, bin: os.Args[0], uid: uid,
		ws: filepath.Join(root, "ws"), tmp: filepath.Join(root, "tmp"),
		ov: Overlay{
			Lower: filepath.Join(root, "home", "go", "pkg", "mod"),
			Upper: filepath.Join(root, "state", "gomod", "upper"),
			Work:  filepath.Join(root, "state", "gomod", "work"),
		}}
	for _, d := range []string{f.ws, f.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Overlayfs leaves mode-0 directories in Work, the module cache is
	// read-only: open everything up so TempDir's cleanup can remove it.
	t.Cleanup(func() {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
	})
	if uid == os.Geteuid() {
		return f
	}
	// The child must reach the test binary and the fixture as uid.
	f.bin = filepath.Join(root, "sandbox.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// cacheModule fills Lower the way the go command does: read-only files
// in read-only directories.
func (f *overlayFixture) cacheModule(t *testing.T) {
	t.Helper()
	mod := filepath.Join(f.ov.Lower, "example.com", "m@v1.0.0")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"m.go": "package m\n", "go.mod": "module example.com/m\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(mod, 0o555); err != nil {
		t.Fatal(err)
	}
}

// own gives the fixture to its user.
func (f *overlayFixture) own(t *testing.T) {
	t.Helper()
	if f.uid == os.Geteuid() {
		return
	}
	err := filepath.WalkDir(f.root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, f.uid, f.uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// run does in's step as the fixture's user.
func (f *overlayFixture) run(t *testing.T, in overlayChildInput) overlayChildOutput {
	t.Helper()
	in.Workspace, in.TempDir = f.ws, f.tmp
	var out overlayChildOutput
	var err error
	if f.uid == os.Geteuid() {
		out, err = overlayStep(f.bin, in)
	} else {
		in.Relay = true
		cred := &syscall.Credential{Uid: uint32(f.uid), Gid: uint32(f.uid)}
		out, err = startOverlayChild(f.bin, in, &syscall.SysProcAttr{Credential: cred})
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// command prepares the fixture's overlay, then runs script as a
// command that sees it; the sandbox must have been set up.
func (f *overlayFixture) command(t *testing.T, script string) overlayChildOutput {
	t.Helper()
	ovs := []Overlay{f.ov}
	if out := f.run(t, overlayChildInput{Overlays: ovs, Prepare: true}); out.Err != "" {
		t.Fatalf("PrepareOverlays: %s", out.Err)
	}
	out := f.run(t, overlayChildInput{Overlays: ovs, Script: script})
	if out.Err != "" {
		t.Fatalf("sandbox: %s", out.Err)
	}
	return out
}

// snapshot records every entry under dir: type, mode, owner and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		entry := fmt.Sprintf("mode %#o uid %d size %d", st.Mode, st.Uid, st.Size)
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entry += " " + string(b)
		}
		got[p] = entry
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// isWhiteout tells whether p is overlayfs's record of a deletion.
func isWhiteout(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == 0
}

// TestOverlayCommandCannotChangeCache: whatever a command does to the
// cache it sees at the usual place, the cache on the host is unchanged,
// byte for byte and mode for mode, and the change is in Upper.
func TestOverlayCommandCannotChangeCache(t *testing.T) {
	requireUserns(t)
	const mod = "example.com/m@v1.0.0"
	const initFn = "func init() { println(\"pwned\") }"
	cases := []struct {
		name, script, wantStdout string
		inUpper                  func(t *testing.T, upper string)
	}{
		{"append to a cached file",
			`cd "$L/` + mod + `" && chmod u+w . m.go && echo '` + initFn + `' >> m.go && cat m.go`,
			"package m\n" + initFn + "\n",
			func(t *testing.T, upper string) {
				b, err := os.ReadFile(filepath.Join(upper, mod, "m.go"))
				if err != nil || string(b) != "package m\n"+initFn+"\n" {
					t.Errorf("upper m.go: %q, %v; want the appended file", b, err)
				}
			}},
		{"add a file",
			`mkdir -p "$L/example.com/new@v1.0.0" && echo 'package n' > "$L/example.com/new@v1.0.0/n.go" && ls "$L/example.com"`,
			"m@v1.0.0\nnew@v1.0.0\n",
			func(t *testing.T, upper string) {
				b, err := os.ReadFile(filepath.Join(upper, "example.com", "new@v1.0.0", "n.go"))
				if err != nil || string(b) != "package n\n" {
					t.Errorf("upper n.go: %q, %v; want the new file", b, err)
				}
			}},
		{"delete a cached file",
			`chmod u+w "$L/` + mod + `" && rm -f "$L/` + mod + `/m.go" && ls "$L/` + mod + `"`,
			"go.mod\n",
			func(t *testing.T, upper string) {
				if !isWhiteout(filepath.Join(upper, mod, "m.go")) {
					t.Errorf("upper holds no whiteout for m.go")
				}
			}},
		{"delete the cache",
			`chmod -R u+w "$L" && rm -rf "$L"/* && ls -A "$L" | wc -l`,
			"0\n",
			func(t *testing.T, upper string) {
				if !isWhiteout(filepath.Join(upper, "example.com")) {
					t.Errorf("upper holds no whiteout for example.com")
				}
			}},
		{"replace a cached module",
			`cd "$L/example.com" && chmod -R u+w . && mv m@v1.0.0 old && mkdir m@v1.0.0 && echo 'package evil' > m@v1.0.0/m.go && cat m@v1.0.0/m.go`,
			"package evil\n",
			func(t *testing.T, upper string) {
				b, err := os.ReadFile(filepath.Join(upper, mod, "m.go"))
				if err != nil || string(b) != "package evil\n" {
					t.Errorf("upper m.go: %q, %v; want the replacement", b, err)
				}
			}},
	}
	for _, uid := range overlayUsers() {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("uid%d/%s", uid, tc.name), func(t *testing.T) {
				f := newOverlayFixture(t, uid)
				f.cacheModule(t)
				f.own(t)
				before := snapshot(t, f.ov.Lower)
				out := f.command(t, "L="+f.ov.Lower+"; "+tc.script)
				if out.Code != 0 || out.Stdout != tc.wantStdout {
					t.Fatalf("command: exit %d, stdout %q, stderr %q; want 0 and %q", out.Code, out.Stdout, out.Stderr, tc.wantStdout)
				}
				if after := snapshot(t, f.ov.Lower); !maps.Equal(after, before) {
					t.Errorf("the host's cache changed:\n got %v\nwant %v", after, before)
				}
				tc.inUpper(t, f.ov.Upper)
			})
		}
	}
}

// TestOverlayFreshHome: with no cache, no Upper and no Work yet,
// PrepareOverlays creates them (mode 0700, the caller's) and the
// command can fill the cache, in Upper only.
func TestOverlayFreshHome(t *testing.T) {
	requireUserns(t)
	for _, uid := range overlayUsers() {
		t.Run(fmt.Sprintf("uid%d", uid), func(t *testing.T) {
			f := newOverlayFixture(t, uid)
			f.own(t)
			out := f.command(t, `echo v1 > "`+f.ov.Lower+`/list" && cat "`+f.ov.Lower+`/list"`)
			if out.Code != 0 || out.Stdout != "v1\n" {
				t.Fatalf("command: exit %d, stdout %q, stderr %q", out.Code, out.Stdout, out.Stderr)
			}
			for _, d := range []string{f.ov.Lower, filepath.Dir(f.ov.Lower), filepath.Join(f.root, "home"), f.ov.Upper, f.ov.Work} {
				var st unix.Stat_t
				if err := unix.Lstat(d, &st); err != nil {
					t.Fatal(err)
				}
				if st.Mode != unix.S_IFDIR|overlayDirMode || int(st.Uid) != uid {
					t.Errorf("%s: mode %#o uid %d, want %#o uid %d", d, st.Mode, st.Uid, unix.S_IFDIR|overlayDirMode, uid)
				}
			}
			if entries, err := os.ReadDir(f.ov.Lower); err != nil || len(entries) != 0 {
				t.Errorf("the host's cache: %v, %v; want it empty", entries, err)
			}
			if b, err := os.ReadFile(filepath.Join(f.ov.Upper, "list")); err != nil || string(b) != "v1\n" {
				t.Errorf("upper/list: %q, %v", b, err)
			}
		})
	}
}

// TestOverlayRefusesSymlinks: a cache path that is, or goes through, a
// symlink is refused by PrepareOverlays, and nothing is created where
// the link points.
func TestOverlayRefusesSymlinks(t *testing.T) {
	cases := []struct {
		name string
		link func(o *Overlay) string // which path becomes a link
	}{
		{"lower", func(o *Overlay) string { return o.Lower }},
		{"a parent of lower", func(o *Overlay) string { return filepath.Dir(o.Lower) }},
		{"upper", func(o *Overlay) string { return o.Upper }},
		{"work", func(o *Overlay) string { return o.Work }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newOverlayFixture(t, os.Geteuid())
			elsewhere := filepath.Join(f.root, "elsewhere")
			link := tc.link(&f.ov)
			if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, link); err != nil {
				t.Fatal(err)
			}
			err := PrepareOverlays([]Overlay{f.ov})
			if err == nil || !strings.Contains(err.Error(), "overlay[0] (lower "+f.ov.Lower+")") || !strings.Contains(err.Error(), "symlink") {
				t.Fatalf("got %v, want a refusal naming the overlay and the symlink", err)
			}
			if _, err := os.Lstat(elsewhere); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the link was followed: %s exists (%v)", elsewhere, err)
			}
		})
	}
}

// TestOverlayMountRefusesSwappedLower: a Lower swapped for a symlink
// after PrepareOverlays is refused when the wrapper mounts, and the
// command does not run; the link's target is untouched.
func TestOverlayMountRefusesSwappedLower(t *testing.T) {
	requireUserns(t)
	for _, uid := range overlayUsers() {
		t.Run(fmt.Sprintf("uid%d", uid), func(t *testing.T) {
			f := newOverlayFixture(t, uid)
			f.cacheModule(t)
			f.own(t)
			ovs := []Overlay{f.ov}
			if out := f.run(t, overlayChildInput{Overlays: ovs, Prepare: true}); out.Err != "" {
				t.Fatal(out.Err)
			}
			real := f.ov.Lower + ".real"
			if err := os.Rename(f.ov.Lower, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, f.ov.Lower); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, real)
			out := f.run(t, overlayChildInput{Overlays: ovs, Script: `touch "` + f.ov.Lower + `/ran"`})
			if !strings.Contains(out.Err, "overlay[0] (lower "+f.ov.Lower+")") || !strings.Contains(out.Err, "symlink") {
				t.Fatalf("got %+v, want a refusal naming the overlay and the symlink", out)
			}
			if after := snapshot(t, real); !maps.Equal(after, before) {
				t.Errorf("the link's target changed:\n got %v\nwant %v", after, before)
			}
		})
	}
}

// TestPrepareOverlaysRefusesBadLayers: paths that overlap or are not
// clean and absolute, an Upper or Work writable by others or not the
// caller's, are refused, naming the overlay; nothing is created for a
// spec refused on its form.
func TestPrepareOverlaysRefusesBadLayers(t *testing.T) {
	root := t.TempDir()
	at := func(p ...string) string { return filepath.Join(append([]string{root}, p...)...) }
	good := func(name string) Overlay {
		return Overlay{Lower: at("home", name), Upper: at("state", name, "upper"), Work: at("state", name, "work")}
	}
	with := func(f func(o *Overlay)) []Overlay {
		o := good("a")
		f(&o)
		return []Overlay{o}
	}
	cases := []struct {
		name string
		ovs  []Overlay
		want string
	}{
		{"relative lower", with(func(o *Overlay) { o.Lower = "go/pkg/mod" }), `overlay[0] (lower go/pkg/mod): lower "go/pkg/mod" is not a clean absolute path`},
		{"empty work", with(func(o *Overlay) { o.Work = "" }), `work "" is not a clean absolute path`},
		{"unclean upper", with(func(o *Overlay) { o.Upper = at("state") + "/../x" }), "is not a clean absolute path"},
		{"upper inside lower", with(func(o *Overlay) { o.Upper = at("home", "a", "upper") }), "overlay[0] upper " + at("home", "a", "upper") + " overlaps overlay[0] lower"},
		{"lower inside work", with(func(o *Overlay) { o.Lower = at("state", "a", "work", "l") }), "overlaps"},
		{"work is upper", with(func(o *Overlay) { o.Work = o.Upper }), "overlay[0] work " + at("state", "a", "upper") + " overlaps overlay[0] upper"},
		{"nested lowers", []Overlay{good("a"), {Lower: at("home", "a", "b"), Upper: at("u"), Work: at("w")}}, "overlay[1] lower " + at("home", "a", "b") + " overlaps overlay[0] lower"},
		{"shared upper", []Overlay{good("a"), {Lower: at("home", "b"), Upper: good("a").Upper, Work: at("w")}}, "overlay[1] upper"},
		{"root", with(func(o *Overlay) { o.Lower = "/" }), "overlaps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := PrepareOverlays(tc.ovs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("created %v for a refused spec", entries)
			}
		})
	}
	t.Run("group-writable upper", func(t *testing.T) {
		ovs := []Overlay{good("g")}
		if err := os.MkdirAll(ovs[0].Upper, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(ovs[0].Upper, 0o770); err != nil {
			t.Fatal(err)
		}
		err := PrepareOverlays(ovs)
		if err == nil || !strings.Contains(err.Error(), "overlay[0] (lower "+ovs[0].Lower+"): upper has mode 0770") {
			t.Fatalf("got %v, want a refusal of the group-writable upper", err)
		}
	})
	t.Run("work of another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to give a directory away")
		}
		ovs := []Overlay{good("o")}
		if err := os.MkdirAll(ovs[0].Work, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(ovs[0].Work, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		err := PrepareOverlays(ovs)
		if err == nil || !strings.Contains(err.Error(), "work is owned by uid 65534, not by the caller (uid 0)") {
			t.Fatalf("got %v, want a refusal of the foreign work dir", err)
		}
	})
}

// TestOverlayUnprivilegedNeedsDACOverride: a mounter mapped to itself
// cannot mount an overlay with only hideCaps (overlayfs works in a
// mode-0 directory with the mounter's credentials): why overlayCaps
// exists, and the error says so.
func TestOverlayUnprivilegedNeedsDACOverride(t *testing.T) {
	requireUserns(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a child as another uid")
	}
	f := newOverlayFixture(t, 65534)
	f.cacheModule(t)
	f.own(t)
	ovs := []Overlay{f.ov}
	if out := f.run(t, overlayChildInput{Overlays: ovs, Prepare: true}); out.Err != "" {
		t.Fatal(out.Err)
	}
	out := f.run(t, overlayChildInput{Overlays: ovs, NoDAC: true, Script: "true"})
	if !strings.Contains(out.Err, "overlay[0] (lower "+f.ov.Lower+"): mount: permission denied (an unprivileged mounter needs CAP_DAC_OVERRIDE") {
		t.Fatalf("got %+v, want the mount refused", out)
	}
}
