package workspace

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
)

// TestVerifyChain: what long-running gates check at start. A chain edited
// in the middle, whose last entry and head still agree (what Open checks),
// is caught.
func TestVerifyChain(t *testing.T) {
	tests := []struct {
		name    string
		tamper  func(t *testing.T, root string)
		wantErr string // "" : verifies
	}{
		{"intact", func(*testing.T, string) {}, ""},
		{"middle entry edited", func(t *testing.T, root string) {
			path := audit.DefaultPath(root)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			edited := bytes.Replace(raw, []byte(`"session":"s2"`), []byte(`"session":"s9"`), 1)
			if bytes.Equal(edited, raw) {
				t.Fatal("nothing to edit")
			}
			if err := os.WriteFile(path, edited, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "hash_mismatch"},
		{"log removed, head left", func(t *testing.T, root string) {
			if err := os.Remove(audit.DefaultPath(root)); err != nil {
				t.Fatal(err)
			}
		}, "is missing"},
		{"log and head removed", func(t *testing.T, root string) {
			if err := os.Remove(audit.DefaultPath(root)); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(audit.HeadPath(audit.DefaultPath(root))); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
				t.Fatal(err)
			}
			l, err := audit.Open(audit.DefaultPath(root), audit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"s1", "s2", "s3"} {
				if _, err := l.Append(context.Background(), audit.Event{Type: audit.SessionStarted, Session: s}); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			tt.tamper(t, root)
			if tt.name == "middle entry edited" {
				l, err := audit.Open(audit.DefaultPath(root), audit.Options{})
				if err != nil {
					t.Fatalf("Open already catches it (%v): the test proves nothing", err)
				}
				if err := l.Close(); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := VerifyChain(root)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				if s := ChainStatus(rep); !strings.HasPrefix(s, "verified at start") {
					t.Errorf("status %q", s)
				}
				return
			}
			if !errors.Is(err, ErrChainBroken) || !strings.Contains(err.Error(), tt.wantErr) ||
				!strings.Contains(err.Error(), "parallax doctor") {
				t.Errorf("got %v, want ErrChainBroken naming %q and parallax doctor", err, tt.wantErr)
			}
		})
	}
}
