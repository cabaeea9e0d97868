package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// breakChainMiddle edits the first entry of root's chain without re-hashing
// it: the last entry and the head still agree, so only a full
// verification sees it.
func breakChainMiddle(t *testing.T, root string) {
	t.Helper()
	path := audit.DefaultPath(root)
	l, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background(), audit.Event{Type: audit.SessionStarted, Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexByte(raw, '\n')
	edited := append(bytes.Replace(raw[:i], []byte(`"type":"`), []byte(`"type":"X`), 1), raw[i:]...)
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLongRunningRefuseBrokenChain: serve, mcp proxy and the hook daemon
// verify the whole chain when they start and refuse to start on a broken
// one, naming the damage and parallax doctor.
func TestLongRunningRefuseBrokenChain(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, root string) error
	}{
		{"serve", func(t *testing.T, root string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var stderr bytes.Buffer
			return runServe(ctx, serveOptions{workspace: root, home: t.TempDir(), addr: "127.0.0.1:0", logLevel: "info"}, &stderr)
		}},
		{"mcp proxy", func(t *testing.T, root string) error {
			_, err := runMCP(t, "proxy", "--workspace", root, "--approval", "none", "--", "/bin/true")
			return err
		}},
		{"hook daemon", func(t *testing.T, root string) error {
			return runHookDaemon(context.Background(), root, time.Second, time.Second)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := initialisedForDoctor(t)
			breakChainMiddle(t, root)
			err := tt.run(t, root)
			if !errors.Is(err, pxworkspace.ErrChainBroken) || !strings.Contains(err.Error(), "parallax doctor") {
				t.Errorf("got %v, want a refusal: the chain does not verify", err)
			}
		})
	}
}

// TestHookDaemonRefusalHoldsBackTheNext: a daemon that refused a broken
// chain marks the workspace, so hook calls do not start one daemon each
// for a while; a daemon that starts on a sound chain clears the mark.
func TestHookDaemonRefusalHoldsBackTheNext(t *testing.T) {
	root := initialisedForDoctor(t)
	marker := hookDaemonRefusedPath(root)
	breakChainMiddle(t, root)
	if err := runHookDaemon(context.Background(), root, time.Second, time.Second); !errors.Is(err, pxworkspace.ErrChainBroken) {
		t.Fatalf("got %v, want a refusal", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after the refusal: %v", err)
	}
	// A fresh marker: no daemon is started (the call returns before
	// os.Executable, so the test binary is never run as a daemon).
	startHookDaemon(root, "")
	if pids := daemonPIDs(t, root); len(pids) > 0 {
		t.Errorf("a daemon was started within the backoff: %v", pids)
	}

	sound := initialisedForDoctor(t)
	if err := os.WriteFile(hookDaemonRefusedPath(sound), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // starts, clears the mark, and stops at once
	_ = runHookDaemon(ctx, sound, time.Second, time.Second)
	if _, err := os.Stat(hookDaemonRefusedPath(sound)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the mark of a sound workspace was kept: %v", err)
	}
}

// daemonPIDs lists the processes whose command line is a hook daemon of
// root.
func daemonPIDs(t *testing.T, root string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte("daemon\x00--workspace\x00"+root)) {
			out = append(out, e.Name())
		}
	}
	return out
}
