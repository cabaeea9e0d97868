package workspace

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// An engine started in a workspace from before client.token creates it,
// and never replaces one that exists, good or bad.
func TestEnsureClientTokenNeverOverwrites(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	first, err := ReadToken(ClientTokenPath(root))
	if err != nil {
		t.Fatal(err)
	}
	got, err := EnsureClientToken(root, bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	if err != nil || got != first {
		t.Fatalf("existing token: got %q %v, want the one init wrote", got, err)
	}
	if err := os.Remove(ClientTokenPath(root)); err != nil {
		t.Fatal(err)
	}
	made, err := EnsureClientToken(root, bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	if err != nil || made != "0707070707070707070707070707070707070707070707070707070707070707" {
		t.Fatalf("missing token: got %q %v", made, err)
	}
	if st, err := os.Stat(ClientTokenPath(root)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode: got %v %v, want 0600", st.Mode(), err)
	}
	if err := os.WriteFile(ClientTokenPath(root), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureClientToken(root, nil); !errors.Is(err, ErrBadToken) {
		t.Fatalf("bad token: got %v, want ErrBadToken", err)
	}
	if b, _ := os.ReadFile(filepath.Clean(ClientTokenPath(root))); string(b) != "short" {
		t.Fatalf("a bad token was overwritten: %q", b)
	}
}
