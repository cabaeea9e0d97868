// Package pty runs a program on a real pseudo-terminal for the end-to-end
// tests of the terminal chat: the program gets the terminal's slave side
// as its stdin, stdout and stderr and as the controlling terminal of a new
// session, with a window size set; the test types on the master side and
// waits for text on the screen.
//
// What the program draws is kept twice: the raw bytes and the text with
// the terminal's escape sequences (CSI, OSC, DCS, APC, PM, SOS and the
// two- and three-byte ones) and carriage returns removed, which is what
// the tests search. Waiting is always for expected text until a context
// ends, never for a fixed time.
//
// Only Linux is supported (/dev/ptmx with TIOCSPTLCK and TIOCGPTN); on
// other systems the package has Strip alone.
package pty
