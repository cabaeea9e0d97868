package pty

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A shell on the terminal sees it as its controlling terminal with the
// window size set, reads what is typed and its output is read back; once
// it exits the terminal reports closed.
func TestTerminalShell(t *testing.T) {
	term, err := Open(33, 121)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer term.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a deadline to fail by, not a measure
	defer cancel()
	sh := exec.Command("/bin/sh", "-c", `stty -echo; printf 'size %s tty %s\n' "$(stty size)" "$(tty)"; read line; printf '\033[1mgot <%s>\033[0m\n' "$line"; exit 3`)
	if err := term.Start(sh); err != nil {
		t.Fatal(err)
	}
	if err := term.Start(exec.Command("/bin/true")); err == nil {
		t.Error("a second Start on the same terminal: got nil, want an error")
	}
	end, err := term.WaitFor(ctx, 0, "size 33 121 tty /dev/pts/")
	if err != nil {
		t.Fatal(err)
	}
	mark := term.Mark()
	if mark < end {
		t.Fatalf("Mark() = %d before the end of a match at %d", mark, end)
	}
	if err := term.Type("typed text\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := term.WaitFor(ctx, mark, "got <typed text>"); err != nil {
		t.Fatal(err)
	}
	err = sh.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("shell exit: got %v, want status 3", err)
	}
	if err := term.Closed(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(term.Raw()), "\x1b[1mgot <typed text>\x1b[0m") {
		t.Errorf("raw output lost the escape sequences: %q", term.Raw())
	}
	if strings.Contains(term.Text(0), "\x1b") || strings.Contains(term.Text(0), "\r") {
		t.Errorf("text kept escapes or carriage returns: %q", term.Text(0))
	}
	if _, err := term.WaitFor(ctx, mark, "never printed"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("WaitFor on a closed terminal: got %v, want an error saying it closed", err)
	}
}
