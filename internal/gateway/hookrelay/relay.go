package hookrelay

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// EnvSocket names the relay's socket inside the sandbox; set, the hook
// sends its calls there and decides nothing itself.
const EnvSocket = "PARALLAX_HOOK_RELAY"

// MaxInput bounds a call's stdin, as the hook bounds its own (a larger
// one is sent cut to MaxInput+1 bytes, for the decider to refuse).
const MaxInput = 8 << 20

// maxAnswer bounds an answer.
const maxAnswer = 1 << 20

// Answer is what the decider outside returned for one call.
type Answer struct {
	Stdout []byte `json:"stdout,omitempty"`
	Code   int    `json:"code"`
	// Message is the error shown to Claude with a blocking status.
	Message string `json:"message,omitempty"`
}

// Decide answers one call's stdin.
type Decide func(ctx context.Context, stdin []byte) Answer

// Serve answers calls on ln, one per connection, until ln is closed.
// Each call gets at most timeout to be decided.
func Serve(ln net.Listener, timeout time.Duration, decide Decide) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go serveOne(c, timeout, decide)
	}
}

func serveOne(c net.Conn, timeout time.Duration, decide Decide) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout + 5*time.Second))
	in, err := readFrame(c, MaxInput+1)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	a := decide(ctx, in)
	b, err := json.Marshal(a)
	if err != nil {
		return
	}
	_ = writeFrame(c, b)
}

// Call sends one call to the relay at path and returns its answer. The
// peer must be a process of the same user outside the caller's PID
// namespace; anything else is an error, and so is no answer by ctx's
// deadline.
func Call(ctx context.Context, path string, stdin []byte) (Answer, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return Answer{}, fmt.Errorf("hook relay: %w", err)
	}
	defer conn.Close()
	if err := checkPeer(conn.(*net.UnixConn)); err != nil {
		return Answer{}, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if len(stdin) > MaxInput+1 {
		stdin = stdin[:MaxInput+1]
	}
	if err := writeFrame(conn, stdin); err != nil {
		return Answer{}, fmt.Errorf("hook relay: send the call: %w", err)
	}
	b, err := readFrame(conn, maxAnswer)
	if err != nil {
		return Answer{}, fmt.Errorf("hook relay: no answer: %w", err)
	}
	var a Answer
	if err := json.Unmarshal(b, &a); err != nil {
		return Answer{}, fmt.Errorf("hook relay: a bad answer: %w", err)
	}
	return a, nil
}

// checkPeer refuses a listener inside the caller's PID namespace (its pid
// is visible: a process of the sandbox) or of another user.
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("hook relay: %w", err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) //nolint:gosec // a descriptor fits in int
	}); err != nil {
		return fmt.Errorf("hook relay: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("hook relay: peer credentials: %w", cerr)
	}
	if cred.Pid != 0 {
		return fmt.Errorf("hook relay: the listener is process %d of this sandbox, not Parallax outside it; refused", cred.Pid)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("hook relay: the listener runs as uid %d, not %d; refused", cred.Uid, os.Getuid())
	}
	return nil
}

func writeFrame(w io.Writer, b []byte) error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b))) //nolint:gosec // bounded by MaxInput and maxAnswer
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func readFrame(r io.Reader, limit int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint32(n[:]))
	if size > limit {
		return nil, fmt.Errorf("a frame of %d bytes, over %d", size, limit)
	}
	b := make([]byte, size)
	_, err := io.ReadFull(r, b)
	return b, err
}
