// Package tmux runs programs in a private tmux server for the end-to-end
// tests of the terminal chat: each session is a real terminal of a
// chosen size that tmux draws into its own screen, and the test reads
// that screen back (capture-pane) as the user would see it, one row per
// screen line (joined lines are not rejoined, so wrapping shows).
//
// The server's socket lives in the test's temporary directory, the
// server reads no configuration file (-f /dev/null), runs with TMUX
// unset (never inside the developer's own tmux) and is killed when the
// test ends. A pane stays on screen after its program exits, so its last
// screen can still be read. Waiting is for expected screen content until
// a context ends, never for a fixed time.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e"
)

// Server is one private tmux server.
type Server struct {
	tb     testing.TB
	bin    string
	socket string
	env    []string
}

// Start starts nothing yet: it finds tmux (the test is skipped where it
// is missing, or fails under PARALLAX_E2E=require) and names the private
// socket; the first NewSession starts the server with env (TMUX removed)
// as its environment. The server is killed when tb ends.
func Start(tb testing.TB, env []string) *Server {
	tb.Helper()
	bin, err := exec.LookPath("tmux")
	e2e.Need(tb, err, "tmux is not installed (.ci/e2e-deps installs it)")
	s := &Server{tb: tb, bin: bin, socket: filepath.Join(tb.TempDir(), "tmux.sock")}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			s.env = append(s.env, kv)
		}
	}
	tb.Cleanup(func() { _, _ = s.run("kill-server") })
	return s
}

// run runs one tmux client command against the private server.
func (s *Server) run(args ...string) (string, error) {
	c := exec.Command(s.bin, append([]string{"-S", s.socket, "-f", "/dev/null"}, args...)...) //nolint:gosec // the test's own tmux
	c.Env = s.env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.String(), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// must is run, failing the test on an error.
func (s *Server) must(args ...string) string {
	s.tb.Helper()
	out, err := s.run(args...)
	if err != nil {
		s.tb.Fatal(err)
	}
	return out
}

// NewSession runs argv in dir in a new detached session called name,
// cols × rows cells. The pane stays after argv exits (remain-on-exit).
func (s *Server) NewSession(name string, cols, rows int, dir string, argv ...string) {
	s.tb.Helper()
	args := []string{"new-session", "-d", "-s", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", dir}
	args = append(args, argv...)
	// remain-on-exit is set for the window in the same client command,
	// before argv can have exited.
	s.must(append(args, ";", "set-option", "-w", "-t", name, "remain-on-exit", "on")...)
}

// Type sends text to the session's pane as typed, literally (no key
// names); a "\r" in text is Enter.
func (s *Server) Type(name, text string) {
	s.tb.Helper()
	for len(text) > 0 {
		line, rest, enter := strings.Cut(text, "\r")
		if line != "" {
			s.must("send-keys", "-t", name, "-l", line)
		}
		if enter {
			s.must("send-keys", "-t", name, "Enter")
		}
		text = rest
	}
}

// Key sends one named key (y, Enter, C-c, …).
func (s *Server) Key(name, key string) {
	s.tb.Helper()
	s.must("send-keys", "-t", name, key)
}

// Screen is what a pane shows: one string per screen row, trailing
// blanks removed (a wide character is one rune in its row).
type Screen []string

// String is the screen, one row a line.
func (sc Screen) String() string { return strings.Join(sc, "\n") }

// Contains reports whether some row holds want.
func (sc Screen) Contains(want string) bool {
	for _, row := range sc {
		if strings.Contains(row, want) {
			return true
		}
	}
	return false
}

// Capture is the session's pane as it is now.
func (s *Server) Capture(name string) (Screen, error) {
	out, err := s.run("capture-pane", "-p", "-t", name)
	if err != nil {
		return nil, err
	}
	return Screen(strings.Split(strings.TrimSuffix(out, "\n"), "\n")), nil
}

// Dead reports whether the pane's program has exited.
func (s *Server) Dead(name string) bool {
	out, err := s.run("display-message", "-p", "-t", name, "#{pane_dead}")
	return err == nil && strings.TrimSpace(out) == "1"
}

// WaitFor captures the pane until ok holds for its screen, and returns
// that screen; it fails the test with the last screen when ctx ends (or
// the pane's program exits) first. what names the wait in the failure.
func (s *Server) WaitFor(ctx context.Context, name, what string, ok func(Screen) bool) Screen {
	s.tb.Helper()
	var last Screen
	var err error
	for {
		dead := s.Dead(name)
		last, err = s.Capture(name)
		if err == nil && ok(last) {
			return last
		}
		if dead {
			s.tb.Fatalf("tmux %s: %s never appeared before its program exited; the screen:\n%s", name, what, last)
		}
		select {
		case <-ctx.Done():
			s.tb.Fatalf("tmux %s: %s never appeared: %v; the screen:\n%s", name, what, errors.Join(ctx.Err(), err), last)
		case <-time.After(50 * time.Millisecond): // the next look, not a measure
		}
	}
}

// WaitText waits until some row of the pane holds want.
func (s *Server) WaitText(ctx context.Context, name, want string) Screen {
	s.tb.Helper()
	return s.WaitFor(ctx, name, fmt.Sprintf("%q", want), func(sc Screen) bool { return sc.Contains(want) })
}
