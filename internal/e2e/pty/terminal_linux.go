package pty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// Terminal is a pseudo-terminal with at most one program on it.
type Terminal struct {
	master *os.File
	slave  *os.File // nil once handed to the program

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every new output
	raw     []byte
	pending []byte // the start of an escape sequence not read in full
	text    []byte
	readErr error // set when the master side can no longer be read
}

// Start runs cmd on the terminal: its stdin, stdout and stderr are the
// slave side, which is also the controlling terminal of the new session
// cmd leads. The terminal's copy of the slave is closed once cmd runs,
// so that the master side reads EOF (EIO) when cmd and its children are
// gone. Start may be called once.
func (t *Terminal) Start(cmd *exec.Cmd) error {
	if t.slave == nil {
		return errors.New("pty: a program was already started on this terminal")
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = t.slave, t.slave, t.slave
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0 // the child's stdin
	err := cmd.Start()
	t.slave.Close()
	t.slave = nil
	if err != nil {
		return fmt.Errorf("pty: start %s: %w", cmd.Path, err)
	}
	go t.read()
	return nil
}

// read copies the program's output until the master side fails (EIO
// once nothing holds the slave side open).
func (t *Terminal) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.master.Read(buf)
		t.mu.Lock()
		if n > 0 {
			t.raw = append(t.raw, buf[:n]...)
			t.pending = append(t.pending, buf[:n]...)
			text, used := Strip(t.pending)
			t.text = append(t.text, text...)
			t.pending = append(t.pending[:0], t.pending[used:]...)
		}
		if err != nil {
			t.readErr = err
		}
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Type writes s to the program as if typed (a carriage return is Enter).
func (t *Terminal) Type(s string) error {
	if _, err := io.WriteString(t.master, s); err != nil {
		return fmt.Errorf("pty: type %q: %w", s, err)
	}
	return nil
}

// Mark is the current length of the screen text: WaitFor(ctx, Mark(),
// ...) waits for text drawn after now.
func (t *Terminal) Mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.text)
}

// Text is the screen text (escape sequences removed) drawn since from.
func (t *Terminal) Text(from int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if from < 0 || from > len(t.text) {
		from = 0
	}
	return string(t.text[from:])
}

// Raw is every byte the program wrote to the terminal.
func (t *Terminal) Raw() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.raw...)
}

// WaitFor waits until want appears in the screen text drawn since from
// and returns the offset just past it. It fails when ctx ends or the
// program's side of the terminal is closed first, with the text seen.
func (t *Terminal) WaitFor(ctx context.Context, from int, want string) (int, error) {
	for {
		t.mu.Lock()
		if from < 0 || from > len(t.text) {
			from = 0
		}
		if i := strings.Index(string(t.text[from:]), want); i >= 0 {
			t.mu.Unlock()
			return from + i + len(want), nil
		}
		changed, readErr, seen := t.changed, t.readErr, string(t.text[from:])
		t.mu.Unlock()
		if readErr != nil {
			return 0, fmt.Errorf("pty: %q never appeared before the terminal closed (%v); the screen since the mark, its end:\n%s", want, readErr, Tail(seen, 40))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return 0, fmt.Errorf("pty: %q never appeared: %w; the screen since the mark, its end:\n%s", want, ctx.Err(), Tail(seen, 40))
		}
	}
}

// Closed is closed once the master side can no longer be read: the
// program and everything it started have let go of the terminal.
func (t *Terminal) Closed(ctx context.Context) error {
	for {
		t.mu.Lock()
		changed, readErr := t.changed, t.readErr
		t.mu.Unlock()
		if readErr != nil {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("pty: the terminal is still held open: %w", ctx.Err())
		}
	}
}

// Close closes both sides of the terminal.
func (t *Terminal) Close() error {
	if t.slave != nil {
		t.slave.Close()
		t.slave = nil
	}
	return t.master.Close()
}
