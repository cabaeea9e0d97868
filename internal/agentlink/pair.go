package agentlink

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Environment variables through which the engine hands the link to the
// agent. Dial removes both from the agent's environment.
const (
	EnvFD    = "PARALLAX_AGENT_FD"
	EnvToken = "PARALLAX_AGENT_TOKEN"
)

// MaxMessageBytes is the largest protocol message either end sends or
// accepts (16 MiB). An LLM request carries the whole conversation: a
// million-token context is about 4 MB of text, with room to spare for
// tool results and JSON framing. Tool outputs are cut well below it by the
// executors. A larger message is refused with codes.ResourceExhausted:
// the sender's Send fails, or the receiver ends the stream.
const MaxMessageBytes = 16 << 20

// tokenBytes is the per-spawn token's entropy; it travels hex-encoded.
const tokenBytes = 32

// tokenKey is the metadata key carrying the token on every call.
const tokenKey = "x-parallax-agent-token"

// secret is a token that never prints.
type secret string

func (secret) String() string       { return "[redacted]" }
func (secret) GoString() string     { return "[redacted]" }
func (secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// Pair is the engine's side of one agent link before it is served: a
// private Unix socketpair and a fresh token. One end is given to one child
// process (Attach); the engine serves the other (Serve).
type Pair struct {
	token secret

	mu       sync.Mutex
	engine   *os.File // the engine's end, SO_PASSCRED set
	agent    *os.File // the child's end, closed here once the child holds it
	attached bool
	served   bool
}

// NewPair creates the socketpair and the token. Both ends are
// close-on-exec: only the end Attach adds to a command's extra files
// reaches a child, and only that child.
func NewPair() (*Pair, error) {
	var raw [tokenBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("agentlink: read token randomness: %w", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("agentlink: socketpair: %w", err)
	}
	// The kernel stamps what the child writes with its pid and uid only
	// when the receiving end asks for credentials; set it before the child
	// exists so its first byte carries them.
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("agentlink: set SO_PASSCRED: %w", err)
	}
	return &Pair{
		token:  secret(hex.EncodeToString(raw[:])),
		engine: os.NewFile(uintptr(fds[0]), "agentlink-engine"),
		agent:  os.NewFile(uintptr(fds[1]), "agentlink-agent"),
	}, nil
}

// String keeps the token out of logs and error messages.
func (p *Pair) String() string { return "agentlink.Pair" }

// GoString keeps the token out of %#v.
func (p *Pair) GoString() string { return "agentlink.Pair" }

// Attach hands the child's end to a command about to start. It takes the
// command's extra files and environment (nil env means os.Environ()) and
// returns them with the end appended to the files, and its fd number and
// the token in the environment, any earlier values of those variables
// dropped: assign them to exec.Cmd.ExtraFiles and exec.Cmd.Env. The
// slices given are not modified. Call it once, before the child starts;
// then call Serve with the started child's pid.
func (p *Pair) Attach(files []*os.File, env []string) ([]*os.File, []string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.attached {
		return nil, nil, errors.New("agentlink: pair already attached to a command")
	}
	if p.agent == nil {
		return nil, nil, errors.New("agentlink: pair is closed")
	}
	if env == nil {
		env = os.Environ()
	}
	kept := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, EnvFD+"=") || strings.HasPrefix(kv, EnvToken+"=") {
			continue
		}
		kept = append(kept, kv)
	}
	fd := 3 + len(files)
	files = append(slices.Clip(files), p.agent)
	p.attached = true
	return files, append(kept, EnvFD+"="+strconv.Itoa(fd), EnvToken+"="+string(p.token)), nil
}

// Close releases both ends if Serve has not taken them (a child that
// failed to start). It is safe to call more than once.
func (p *Pair) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	if p.agent != nil {
		errs = append(errs, p.agent.Close())
		p.agent = nil
	}
	if p.engine != nil && !p.served {
		errs = append(errs, p.engine.Close())
		p.engine = nil
	}
	return errors.Join(errs...)
}
