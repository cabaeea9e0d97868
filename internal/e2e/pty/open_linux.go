package pty

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Open opens a new pseudo-terminal of rows×cols characters.
func Open(rows, cols uint16) (*Terminal, error) {
	// os.OpenFile puts the master in the runtime's poller, so a Close
	// interrupts a blocked Read.
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("pty: open /dev/ptmx: %w", err)
	}
	name, err := unlock(master)
	if err != nil {
		master.Close()
		return nil, err
	}
	slave, err := os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("pty: open %s: %w", name, err)
	}
	t := &Terminal{master: master, slave: slave, changed: make(chan struct{})}
	if err := t.Resize(rows, cols); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// unlock unlocks the slave side of master and returns its path.
func unlock(master *os.File) (string, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		return "", fmt.Errorf("pty: %w", err)
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr != nil {
			ierr = fmt.Errorf("pty: unlock the slave (TIOCSPTLCK): %w", ierr)
			return
		}
		if n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN); ierr != nil {
			ierr = fmt.Errorf("pty: slave number (TIOCGPTN): %w", ierr)
		}
	}); err != nil {
		return "", fmt.Errorf("pty: %w", err)
	}
	if ierr != nil {
		return "", ierr
	}
	return "/dev/pts/" + strconv.Itoa(n), nil
}

// Resize sets the terminal's window size (TIOCSWINSZ); the program on it
// gets SIGWINCH.
func (t *Terminal) Resize(rows, cols uint16) error {
	rc, err := t.master.SyscallConn()
	if err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	}); err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	if ierr != nil {
		return fmt.Errorf("pty: set the window size to %dx%d: %w", cols, rows, ierr)
	}
	return nil
}
