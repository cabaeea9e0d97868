package claudehook

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/hookd"
)

// startDaemon has the hook start the project's daemon as it does for a
// user's first call, before the CLI runs: one hook call the hook refuses
// (an event it does not answer) finds no daemon, is decided in process
// and starts one, detached. Every hook call of the CLI's run is then
// answered by that daemon, the path users get after their first call,
// instead of depending on how fast it starts. The test's cleanup stops
// every daemon of the project and waits for it to exit; it runs before
// the project's directory is removed.
func (e *env) startDaemon() {
	e.t.Helper()
	e.t.Cleanup(e.stopDaemons)
	cmd := exec.Command(e.bin, "hook", "claude-code") //nolint:gosec // the parallax binary built by the test
	cmd.Dir = e.project
	cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader(`{"session_id":"daemon-start","cwd":` + strconv.Quote(e.project) + `,"hook_event_name":"Stop"}`)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		e.t.Fatalf("hook call with an event it does not answer: %v, want exit status 2\n%s", err, out)
	}
	sock, err := hookd.SocketPath(e.project)
	if err != nil {
		e.t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the hook started no daemon listening on %s", sock)
		}
	}
	if n := len(e.daemonsDeciding()); n != 0 {
		e.t.Fatalf("%d daemons hold the audit chain open before any call was forwarded", n)
	}
}

// checkDaemonAnswered fails the test unless a daemon of the project
// decided a call: a daemon opens the workspace (its audit chain among
// its files) on its first decision and keeps it open for the next
// (workspace.Pool), and startDaemon checked it had not before the run.
func (e *env) checkDaemonAnswered() {
	e.t.Helper()
	if len(e.daemonsDeciding()) == 0 {
		e.t.Errorf("no hook daemon of %s decided a call of the run (daemons: %v)", e.project, e.daemons())
	}
}

// daemonsDeciding are the daemons of the project that hold its audit
// chain open.
func (e *env) daemonsDeciding() []int {
	e.t.Helper()
	chain, err := filepath.EvalSymlinks(audit.DefaultPath(e.project))
	if err != nil {
		e.t.Fatal(err)
	}
	var pids []int
	for _, pid := range e.daemons() {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		fds, _ := os.ReadDir(dir) // the daemon may just have exited
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && link == chain {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// daemons are the processes running `hook claude-code daemon --workspace
// PROJECT` for this test's project, of any binary.
func (e *env) daemons() []int {
	roots := []string{e.project}
	if r, err := filepath.EvalSymlinks(e.project); err == nil {
		roots = append(roots, r)
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		e.t.Fatal(err)
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err == nil && isDaemonOf(pid, roots) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// isDaemonOf reports whether process pid is a hook daemon of one of the
// roots (false once it has exited: a zombie has no command line).
func isDaemonOf(pid int, roots []string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	return len(args) == 6 && slices.Equal(args[1:5], []string{"hook", "claude-code", "daemon", "--workspace"}) &&
		slices.Contains(roots, args[5])
}

// stopDaemons sends SIGTERM to every daemon of the project, waits for
// each to exit and checks that it removed its socket.
func (e *env) stopDaemons() {
	e.t.Helper()
	roots := []string{e.project}
	if r, err := filepath.EvalSymlinks(e.project); err == nil {
		roots = append(roots, r)
	}
	for _, pid := range e.daemons() {
		e.stopProcess(pid, func() bool { return isDaemonOf(pid, roots) })
	}
	if left := e.daemons(); len(left) > 0 {
		e.t.Errorf("hook daemons still running after SIGTERM: %v", left)
	}
	if sock, err := hookd.SocketPath(e.project); err == nil {
		if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
			e.t.Errorf("the daemon's socket after it exited: %v, want it removed", err)
		}
	}
}

// stopProcess sends SIGTERM to pid, if it still is what ours says, and
// waits (a minute at most) for it to exit. Through a pidfd: the process
// checked is the one signalled and waited for, even if pid is reused.
func (e *env) stopProcess(pid int, ours func() bool) {
	e.t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // gone already
	}
	if err != nil {
		e.t.Errorf("pidfd of daemon %d: %v", pid, err)
		return
	}
	defer unix.Close(fd)
	if !ours() {
		return
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		e.t.Errorf("SIGTERM to daemon %d: %v", pid, err)
		return
	}
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 1000) //nolint:gosec // a descriptor fits in int32
		switch {
		case n > 0:
			return // exited
		case err != nil && !errors.Is(err, unix.EINTR):
			e.t.Errorf("wait for daemon %d: %v", pid, err)
			return
		case time.Now().After(deadline):
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			e.t.Errorf("daemon %d did not exit within a minute of SIGTERM; killed", pid)
			return
		}
	}
}
