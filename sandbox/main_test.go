//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// roleEnv makes the test binary play a child process instead of running
// tests: the sandbox is irreversible, so every sandboxed check happens
// in a fresh process.
const roleEnv = "PARALLAX_SANDBOX_TEST_ROLE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ExecArg { // what CommandSpec.Command runs
		os.Exit(ExecMain(os.Args[2:]))
	}
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "agent":
		os.Exit(agentChild())
	case "confine":
		os.Exit(confineChild())
	case "net":
		os.Exit(netChild())
	case "as-user":
		os.Exit(userChild())
	case "mask":
		os.Exit(maskChild())
	case "landlock-net":
		os.Exit(landlockNetChild())
	case "self":
		os.Exit(selfChild())
	case "hello":
		fmt.Println("the original binary")
		os.Exit(0)
	case "privileged":
		os.Exit(privChild())
	case "socket":
		os.Exit(socketChild())
	case "files":
		os.Exit(filesChild())
	default:
		fmt.Fprintln(os.Stderr, "unknown role", os.Getenv(roleEnv))
		os.Exit(2)
	}
}

// agentChildInput is what the parent passes to an agent child.
type agentChildInput struct {
	Apply     bool         `json:"apply"`
	ReadOnly  []string     `json:"read_only"` // nil: DefaultAgentReadOnly
	Forbidden []string     `json:"forbidden"`
	Targets   ProbeTargets `json:"targets"`
}

// agentChildOutput is what the child prints on stdout.
type agentChildOutput struct {
	ApplyErr   string        `json:"apply_err,omitempty"`
	Report     Report        `json:"report"`
	FromSocket string        `json:"from_socket"`
	Threads    int           `json:"threads"`
	Alloc      int           `json:"alloc"`
	Probes     []ProbeResult `json:"probes"`
	// SignalParent is the errno of kill(parent, 0): scoped signals
	// (Landlock ABI >= 6) refuse it with EPERM.
	SignalParent string `json:"signal_parent"`
	// ApplyNs and ProbesNs time ApplyAgent and RunProbes in the child.
	ApplyNs  int64 `json:"apply_ns"`
	ProbesNs int64 `json:"probes_ns"`
}

// talk wraps the inherited socket the way the agent's gRPC link will
// (net.FileConn: no socket(2) call), reads until the engine shuts its
// side, and answers.
func talk(f *os.File) (string, error) {
	c, err := net.FileConn(f)
	if err != nil {
		return "", err
	}
	defer c.Close()
	f.Close()
	b, err := io.ReadAll(c)
	if err != nil {
		return "", err
	}
	_, err = c.Write([]byte("ack: " + string(b)))
	return string(b), err
}

// agentChild sandboxes itself (when asked), then proves it still works:
// it talks over the socket it inherited as fd 3, allocates, and runs
// goroutines locked to their own OS threads; last, it runs the probes.
func agentChild() int {
	var in agentChildInput
	if err := json.Unmarshal([]byte(os.Getenv("PARALLAX_SANDBOX_TEST_INPUT")), &in); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		return 2
	}
	var out agentChildOutput
	if in.Apply {
		ro := in.ReadOnly
		if ro == nil {
			ro = DefaultAgentReadOnly()
		}
		start := time.Now()
		rep, err := ApplyAgent(AgentSpec{ReadOnly: ro, Forbidden: in.Forbidden})
		out.ApplyNs = time.Since(start).Nanoseconds()
		out.Report = rep
		if err != nil {
			out.ApplyErr = err.Error()
		}
	}
	msg, err := talk(os.NewFile(3, "engine"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "inherited socket:", err)
		return 2
	}
	out.FromSocket = msg
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 8 {
		wg.Go(func() {
			runtime.LockOSThread() // keep the thread: the next goroutine needs a new one
			buf := make([]byte, 4<<20)
			buf[len(buf)-1] = 1
			mu.Lock()
			out.Threads++
			out.Alloc += int(buf[len(buf)-1])
			mu.Unlock()
		})
	}
	wg.Wait()
	out.SignalParent = fmt.Sprint(unix.Kill(os.Getppid(), 0))
	start := time.Now()
	out.Probes = RunProbes(in.Targets)
	out.ProbesNs = time.Since(start).Nanoseconds()
	out.Report.Probes = out.Probes
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 2
	}
	return 0
}

// Exit statuses of netChild.
const (
	netOK           = 0
	netSocketEACCES = 3
	netSocketOther  = 4
	netConnectFail  = 5
)

// netChild opens a TCP socket and connects it to the address in
// PARALLAX_SANDBOX_TEST_ADDR, as a command under its sandbox would.
func netChild() int {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.EACCES):
		return netSocketEACCES
	case err != nil:
		fmt.Fprintln(os.Stderr, "socket:", err)
		return netSocketOther
	}
	unix.Close(fd)
	c, err := net.Dial("tcp4", os.Getenv("PARALLAX_SANDBOX_TEST_ADDR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return netConnectFail
	}
	c.Close()
	return netOK
}

// landlockNetChild applies only the Landlock part of a command sandbox
// without network, then connects to PARALLAX_SANDBOX_TEST_ADDR: the TCP
// rules must refuse what seccomp would otherwise have caught first.
func landlockNetChild() int {
	cfg, err := landlockConfig(Support().LandlockABI)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return netSocketOther
	}
	if err := cfg.Restrict(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return netSocketOther
	}
	c, err := net.Dial("tcp4", os.Getenv("PARALLAX_SANDBOX_TEST_ADDR"))
	if errors.Is(err, unix.EACCES) {
		return netSocketEACCES
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return netConnectFail
	}
	c.Close()
	return netOK
}

// confineChild runs ConfineAgent with the targets in
// PARALLAX_SANDBOX_TEST_INPUT and prints its error ("" when none).
func confineChild() int {
	var in agentChildInput
	if err := json.Unmarshal([]byte(os.Getenv("PARALLAX_SANDBOX_TEST_INPUT")), &in); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		return 2
	}
	_, err := ConfineAgent(AgentSpec{ReadOnly: DefaultAgentReadOnly(), Forbidden: in.Forbidden}, in.Targets)
	if err != nil {
		fmt.Print(err)
	}
	return 0
}
