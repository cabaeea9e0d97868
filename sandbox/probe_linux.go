//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeTimeout bounds the connect probe (and the exec probe, should the
// program run): a sandboxed agent fails both at once.
const probeTimeout = 2 * time.Second

// RunProbes tries, from inside the calling process, everything the
// agent's sandbox must prevent, and reports each outcome. It never
// stops early: every probe runs and is reported.
func RunProbes(t ProbeTargets) []ProbeResult {
	tmp := t.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	prog := t.Exec
	if prog == "" {
		prog = "/bin/true"
	}
	return []ProbeResult{
		probeRead(ProbeReadWorkspace, t.WorkspaceFile),
		probeRead(ProbeReadHome, t.HomeFile),
		probeWrite(tmp),
		probeExec(prog),
		probeExecve(prog),
		probeSocket(),
		probeConnect(t.EngineAddr),
	}
}

// outcome turns an attempt's error into a result: only EPERM or EACCES
// count as blocked.
func outcome(name string, err error, what string) ProbeResult {
	r := ProbeResult{Name: name}
	var errno syscall.Errno
	switch {
	case err == nil:
		r.Detail = what + ": succeeded"
	case errors.As(err, &errno):
		r.Errno = unix.ErrnoName(errno)
		r.Blocked = errno == unix.EPERM || errno == unix.EACCES
		r.Detail = what + ": " + errno.Error()
	default:
		r.Detail = what + ": " + err.Error()
	}
	return r
}

func probeRead(name, path string) ProbeResult {
	if path == "" {
		return ProbeResult{Name: name, Detail: "no target given"}
	}
	f, err := os.Open(path)
	if err == nil {
		f.Close()
	}
	return outcome(name, err, "open "+path)
}

func probeWrite(dir string) ProbeResult {
	path := filepath.Join(dir, fmt.Sprintf(".parallax-probe-%d", os.Getpid()))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		f.Close()
		os.Remove(path)
	}
	return outcome(ProbeWriteTmp, err, "create a file in "+dir)
}

// probeExec starts a program the usual way, fork then exec, without the
// PATH lookup of os/exec (whose access(2) check would answer first).
func probeExec(prog string) ProbeResult {
	proc, err := os.StartProcess(prog, []string{prog}, &os.ProcAttr{})
	if err == nil { // it ran: not blocked; reap it within the bound
		timer := time.AfterFunc(probeTimeout, func() { proc.Kill() })
		proc.Wait()
		timer.Stop()
	}
	return outcome(ProbeExec, err, "run "+prog)
}

// probeExecve calls execve directly, without forking, with an argv
// pointer the kernel cannot read. The kernel opens the program (Landlock
// checks execute there) before it copies argv, so an unsandboxed call
// fails with EFAULT and never replaces the process; seccomp answers
// EPERM at entry, Landlock EACCES at the open.
func probeExecve(prog string) ProbeResult {
	p, err := unix.BytePtrFromString(prog)
	if err != nil {
		return outcome(ProbeExecve, err, "execve "+prog)
	}
	badArgv := uintptr(1) // unmapped: EFAULT once argv is read
	_, _, errno := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(p)), badArgv, 0)
	return outcome(ProbeExecve, errno, "execve "+prog)
}

func probeSocket() ProbeResult {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return outcome(ProbeTCPSocket, err, "socket(AF_INET, SOCK_STREAM)")
}

func probeConnect(addr string) ProbeResult {
	if addr == "" {
		return ProbeResult{Name: ProbeConnectEngine, Detail: "no target given"}
	}
	d := net.Dialer{Timeout: probeTimeout}
	c, err := d.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	return outcome(ProbeConnectEngine, err, "connect "+addr)
}
