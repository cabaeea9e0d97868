package mcpproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Shutdown timing of a server process (ProcessTransport).
const (
	// DefaultGrace is how long a server has to exit, with every process
	// of its group, after its stdin is closed.
	DefaultGrace = 300 * time.Millisecond
	// DefaultKillAfter is when, counted from the start of the shutdown,
	// the process group is killed (SIGKILL). It leaves room under the
	// 2 s within which the whole group must be gone once the client
	// went away.
	DefaultKillAfter = 1500 * time.Millisecond
	// reapWait bounds the wait for the group to vanish after SIGKILL: the
	// proxy's exit never waits on a process that cannot be killed.
	reapWait = 500 * time.Millisecond
)

// ProcessTransport runs an MCP server as a child process speaking MCP on
// its stdin and stdout, like mcp.CommandTransport, but in a process
// group of its own (on Unix), so that closing the connection ends the
// server and everything it started (npx → node, a shell → its
// children): stdin is closed; after Grace the group gets SIGTERM; at
// KillAfter it gets SIGKILL. Close returns once the group is gone, or
// reapWait after SIGKILL at the latest.
type ProcessTransport struct {
	Command *exec.Cmd
	// Grace and KillAfter default to DefaultGrace and DefaultKillAfter.
	Grace, KillAfter time.Duration
}

// Connect starts the server.
func (t *ProcessTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := t.Command
	ownGroup(cmd)
	// The server's stdout is a pipe this process owns (not StdoutPipe,
	// which Wait closes while output may still be unread).
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start MCP server: %w", err)
	}
	cmd.Stdout = outW
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("start MCP server: %w", err), outR.Close(), outW.Close())
	}
	if err := cmd.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("start MCP server: %w", err), outR.Close(), outW.Close())
	}
	_ = outW.Close() // the server holds its copy
	p := &serverProc{cmd: cmd, stdin: stdin, exited: make(chan struct{}),
		grace: t.Grace, killAfter: t.KillAfter}
	if p.grace <= 0 {
		p.grace = DefaultGrace
	}
	if p.killAfter <= p.grace {
		p.killAfter = max(DefaultKillAfter, p.grace)
	}
	go func() {
		_ = cmd.Wait() // reaps the leader, so a dead group reads as gone
		close(p.exited)
	}()
	return (&mcp.IOTransport{Reader: outR, Writer: p}).Connect(ctx)
}

// serverProc is the write side of the connection to a server process;
// closing it shuts the process group down.
type serverProc struct {
	cmd              *exec.Cmd
	stdin            io.WriteCloser
	exited           chan struct{}
	grace, killAfter time.Duration

	once sync.Once
	err  error
}

func (p *serverProc) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close shuts the server down (once; later calls return the same).
func (p *serverProc) Close() error {
	p.once.Do(func() { p.err = p.shutdown() })
	return p.err
}

func (p *serverProc) shutdown() error {
	start := time.Now()
	_ = p.stdin.Close()
	if p.waitGone(p.grace) {
		return nil
	}
	signalGroup(p.cmd, sigTerm)
	if p.waitGone(p.killAfter - time.Since(start)) {
		return nil
	}
	signalGroup(p.cmd, sigKill)
	if p.waitGone(reapWait) {
		return nil
	}
	return fmt.Errorf("MCP server (pid %d) or a process it started did not exit after SIGKILL", p.cmd.Process.Pid)
}

// waitGone waits up to d for the leader to be reaped and its group to
// be empty (checked every 10 ms once the leader is gone).
func (p *serverProc) waitGone(d time.Duration) bool {
	deadline := time.NewTimer(max(d, 0))
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	exited := p.exited // nil once the leader is reaped
	for {
		if exited == nil && groupGone(p.cmd) {
			return true
		}
		select {
		case <-exited:
			exited = nil
		case <-tick.C:
		case <-deadline.C:
			select {
			case <-p.exited:
				return groupGone(p.cmd)
			default:
				return false
			}
		}
	}
}
