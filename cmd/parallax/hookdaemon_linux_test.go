package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// hookDaemonProcessEnv makes the test binary act as `parallax hook
// claude-code daemon --workspace DIR --watch 20ms` for the workspace it
// names (TestHookDaemonProcess).
const hookDaemonProcessEnv = "PARALLAX_HOOK_DAEMON_PROCESS"

// TestHookDaemonProcess is not a test: it is the daemon process of
// TestHookDaemonExitsWhenGone when hookDaemonProcessEnv is set.
func TestHookDaemonProcess(t *testing.T) {
	dir := os.Getenv(hookDaemonProcessEnv)
	if dir == "" {
		t.Skip("helper process of TestHookDaemonExitsWhenGone")
	}
	root := &cobra.Command{Use: "parallax", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(newHookCmd())
	root.SetArgs([]string{"hook", "claude-code", "daemon", "--workspace", dir, "--watch", "20ms"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "parallax:", err)
		os.Exit(exitCode(err))
	}
	os.Exit(0)
}

// TestHookDaemonExitsWhenGone: a real daemon process exits on its own,
// with status 0, once its project is deleted or its binary removed; it
// would otherwise wait for 10 idle minutes.
func TestHookDaemonExitsWhenGone(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, root, bin string)
	}{
		{"project deleted", func(t *testing.T, root, _ string) {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
		}},
		{"binary removed", func(t *testing.T, _, bin string) {
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, home := newHookWorkspace(t)
			bin := copyTestBinary(t)
			cmd := exec.Command(bin, "-test.run=^TestHookDaemonProcess$") //nolint:gosec // a copy of the test binary
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), hookDaemonProcessEnv + "=" + root}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited, reaped := make(chan error, 1), make(chan struct{})
			go func() {
				defer close(reaped)
				exited <- cmd.Wait()
			}()
			t.Cleanup(func() { // whatever failed, no process is left behind
				_ = cmd.Process.Kill()
				<-reaped
			})
			waitListening(t, filepath.Join(root, ".parallax", "hookd.sock"), exited)
			c.change(t, root, bin)
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("daemon: %v\n%s", err, out.String())
				}
			case <-time.After(time.Minute):
				t.Fatalf("the daemon did not exit\n%s", out.String())
			}
		})
	}
}

// copyTestBinary copies the test binary to a temporary file the test may
// remove.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "parallax.test")
	if err := os.WriteFile(bin, data, 0o700); err != nil { //nolint:gosec // an executable copy
		t.Fatal(err)
	}
	return bin
}

// waitListening waits until sock accepts a connection; the test fails if
// the process exits first or it takes over a minute.
func waitListening(t *testing.T, sock string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			_ = c.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("the daemon exited before listening: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not listen on %s", sock)
		}
	}
}
