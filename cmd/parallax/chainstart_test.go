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
