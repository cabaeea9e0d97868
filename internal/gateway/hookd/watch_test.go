package hookd

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/gateway/claudecode"
	"github.com/parallax/parallax/internal/workspace"
)

// watched is a Server whose watch runs on the test's ticks.
type watched struct {
	srv   *Server
	ticks chan time.Time
	done  chan error
}

// serveWatched serves the workspace at root with exe as the server's
// executable and the key of home, its watch driven by w.tick, until the
// test ends.
func serveWatched(t *testing.T, root, home string, exe Identity) *watched {
	t.Helper()
	sock, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &watched{ticks: make(chan time.Time), done: make(chan error, 1)}
	w.srv = &Server{Socket: sock, Identity: exe, Workspace: root, KeyFile: KeyPath(home), Ready: make(chan struct{}), ticks: w.ticks}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { w.done <- w.srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-w.done:
		case <-time.After(time.Minute):
			t.Error("the daemon did not stop")
		}
	})
	select {
	case <-w.srv.Ready:
	case err := <-w.done:
		t.Fatalf("serve: %v", err)
	}
	return w
}

// tickTwice sends two ticks: the second is taken only once the check of
// the first is done. It reports false when the daemon stopped.
func (w *watched) tickTwice(t *testing.T) bool {
	t.Helper()
	if !w.tick(t) {
		return false
	}
	return w.tick(t)
}

// tick runs one check of the watch; it reports false when the server
// had stopped instead (its error is then in w.done again).
func (w *watched) tick(t *testing.T) bool {
	t.Helper()
	select {
	case w.ticks <- time.Time{}:
		return true
	case err := <-w.done:
		w.done <- err
		return false
	case <-time.After(time.Minute):
		t.Fatal("the daemon neither took a tick nor stopped")
		return false
	}
}

// stopped ticks until Serve returns (within a generous deadline) and
// returns its error.
func (w *watched) stopped(t *testing.T) error {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case w.ticks <- time.Time{}:
		case err := <-w.done:
			w.done <- err // for the cleanup
			return err
		case <-deadline:
			t.Fatal("the daemon did not stop")
			return nil
		}
	}
}

// fakeExe is a file standing for the daemon's executable, which a test
// may remove or replace (the test binary itself must stay).
func fakeExe(t *testing.T) (path string, id Identity) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "parallax")
	writeFile(t, path, "#!/bin/sh\n")
	id, err := FileIdentity(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, id
}

// replace puts a new file at path (written aside, renamed over it), as
// an install or a rebuild does.
func replace(t *testing.T, path, content string) {
	t.Helper()
	writeFile(t, path+".new", content)
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// TestServerStopsWhenGone: the daemon exits on its own once the
// workspace's .parallax, its socket, its executable or the key file is
// removed or replaced, and removes its socket unless another one took its place.
func TestServerStopsWhenGone(t *testing.T) {
	cases := []struct {
		name     string
		longPath bool // the socket is in the runtime directory, not in .parallax
		// change returns the listener that took the socket's place, if any.
		change func(t *testing.T, root, sock, exe, home string) net.Listener
		want   string
	}{
		{"project deleted", false, func(t *testing.T, root, _, _, _ string) net.Listener {
			removeAll(t, root)
			return nil
		}, stopWorkspaceGone},
		{"project deleted, socket in the runtime directory", true, func(t *testing.T, root, _, _, _ string) net.Listener {
			removeAll(t, root)
			return nil
		}, stopWorkspaceGone},
		{"workspace re-initialised", false, func(t *testing.T, root, _, _, _ string) net.Listener {
			removeAll(t, filepath.Join(root, ".parallax"))
			if _, err := workspace.Init(context.Background(), root, workspace.InitOptions{}); err != nil {
				t.Fatal(err)
			}
			return nil
		}, stopWorkspaceGone},
		{".parallax moved away", true, func(t *testing.T, root, _, _, _ string) net.Listener {
			if err := os.Rename(filepath.Join(root, ".parallax"), filepath.Join(root, "old")); err != nil {
				t.Fatal(err)
			}
			return nil
		}, stopWorkspaceGone},
		{"socket removed", false, func(t *testing.T, _, sock, _, _ string) net.Listener {
			if err := os.Remove(sock); err != nil {
				t.Fatal(err)
			}
			return nil
		}, stopSocketGone},
		{"socket replaced", false, func(t *testing.T, _, sock, _, _ string) net.Listener {
			if err := os.Remove(sock); err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			return ln
		}, stopSocketGone},
		{"binary removed", false, func(t *testing.T, _, _, exe, _ string) net.Listener {
			if err := os.Remove(exe); err != nil {
				t.Fatal(err)
			}
			return nil
		}, stopBinaryGone},
		{"binary replaced", false, func(t *testing.T, _, _, exe, _ string) net.Listener {
			replace(t, exe, "#!/bin/sh\n# rebuilt\n")
			return nil
		}, stopBinaryGone},
		{"key removed", false, func(t *testing.T, _, _, _, home string) net.Listener {
			if err := os.Remove(KeyPath(home)); err != nil {
				t.Fatal(err)
			}
			return nil
		}, stopKeyChanged},
		{"key replaced", false, func(t *testing.T, _, _, _, home string) net.Listener {
			replace(t, KeyPath(home), strings.Repeat("k", KeySize))
			return nil
		}, stopKeyChanged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, home := newWorkspace(t)
			if c.longPath {
				root = longWorkspace(t)
			}
			exe, id := fakeExe(t)
			w := serveWatched(t, root, home, id)
			if !w.tickTwice(t) {
				t.Fatalf("the daemon stopped before anything changed (%q)", w.srv.why)
			}
			other := c.change(t, root, w.srv.Socket, exe, home)
			if other != nil {
				defer other.Close()
			}
			if err := w.stopped(t); err != nil {
				t.Errorf("serve: %v", err)
			}
			if w.srv.why != c.want {
				t.Errorf("stopped for %q, want %q", w.srv.why, c.want)
			}
			fi, err := os.Lstat(w.srv.Socket)
			switch {
			case other == nil && !errors.Is(err, os.ErrNotExist):
				t.Errorf("socket after exit: %v, want it removed", err)
			case other != nil && err != nil:
				t.Errorf("the socket that took the daemon's place was removed: %v", err)
			case other != nil && fi.Mode()&os.ModeSocket == 0:
				t.Errorf("socket path after exit: %v, want the other socket", fi.Mode())
			}
		})
	}
}

// TestServerWatchKeepsServing: while the workspace, the socket and the
// executable are the ones it started with, the watch does not stop the
// daemon, whatever else changes in .parallax.
func TestServerWatchKeepsServing(t *testing.T) {
	root, home := newWorkspace(t)
	w := serveWatched(t, root, home, testID)
	in := hookInput(t, claudecode.EventPreToolUse, "w1", root, "Read", map[string]any{"file_path": "~/.ssh/id_rsa"}, nil)
	for i := range 3 {
		writeFile(t, filepath.Join(root, ".parallax", "policy.yaml"), "deny:\nverify:\nallow:\n")
		writeFile(t, filepath.Join(root, "notes.txt"), "edited\n")
		if !w.tickTwice(t) {
			t.Fatalf("check %d: the daemon stopped (%q)", i, w.srv.why)
		}
		opts := clientOpts(home)
		opts.Start = func(string, string) { t.Errorf("call %d: a new daemon was asked for", i) }
		if r := run(context.Background(), opts, in); !strings.Contains(r.stdout, `"deny"`) {
			t.Errorf("call %d: got %+v, want the deny", i, r)
		}
	}
}

// longWorkspace is a workspace whose socket path does not fit in
// sockaddr_un.
func longWorkspace(t *testing.T) string {
	t.Helper()
	rt, err := os.MkdirTemp("", "hookd-rt-") // short: the socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(t, rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	root := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if _, err := workspace.Init(context.Background(), root, workspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err := SocketPath(root); err != nil || strings.HasPrefix(p, root) {
		t.Fatalf("socket %q, %v; want one outside the workspace", p, err)
	}
	return root
}

func removeAll(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}
