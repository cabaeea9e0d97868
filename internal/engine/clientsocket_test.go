package engine

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The client socket is the owner's alone: mode 0600 from the moment it
// exists, so no other uid can even connect.
func TestClientSocketCannotBeOpenedByOthers(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n"})
	defer e.rt.Close()
	st, err := os.Stat(e.rt.opts.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("%s is %v, not a socket", e.rt.opts.Socket, st.Mode())
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Errorf("socket mode: got %#o, want 0600", got)
	}
}

// A connection from another uid is closed before anything is served: the
// listener never hands it to the gRPC server. The control (the engine's
// own uid) proves the same dial is accepted.
func TestClientSocketCannotServeAnotherUID(t *testing.T) {
	cases := []struct {
		name   string
		uid    int
		served bool
	}{
		{"the engine's uid", os.Getuid(), true},
		{"another uid", os.Getuid() + 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.sock")
			inner, err := net.Listen("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			lis := &sameUID{Listener: inner, uid: tc.uid, log: func(string, ...any) {}}
			defer lis.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				if c, err := lis.Accept(); err == nil {
					accepted <- c
				}
			}()
			c, err := net.Dial("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if tc.served {
				select {
				case sc := <-accepted:
					sc.Close()
				case <-time.After(5 * time.Second):
					t.Fatal("the listener did not hand the connection over")
				}
				return
			}
			if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Fatalf("read: got %v, want the connection closed (EOF)", err)
			}
			select {
			case sc := <-accepted:
				sc.Close()
				t.Fatal("the listener handed another uid's connection to the server")
			default:
			}
		})
	}
}
