//go:build unix

package shield

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// A workspace file that is a hard link to the home's SSH key is the key:
// reading it with cat, with the Read tool (hook: no plan) or through the
// own agent's file tools (a plan with the file's identity) is judged as
// reading the key. A package store's links (pnpm) stay ordinary.
func TestHardLinkCannotReadSSHKey(t *testing.T) {
	ws, home := internalsWorkspace(t)
	key := filepath.Join(home, ".ssh", "id_ed25519")
	store := filepath.Join(home, ".local", "share", "pnpm", "index.js")
	for _, f := range []string{key, store} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	notes := filepath.Join(ws, "notes.txt")
	dep := filepath.Join(ws, "node_modules", "x", "index.js")
	if err := os.MkdirAll(filepath.Dir(dep), 0o700); err != nil {
		t.Fatal(err)
	}
	for old, name := range map[string]string{key: notes, store: dep} {
		if err := os.Link(old, name); err != nil {
			t.Skipf("hard links unsupported: %v", err)
		}
	}
	for _, hidden := range []bool{false, true} {
		g, err := New(Config{Workspace: ws, Home: home, Policy: "default", InternalsHidden: hidden})
		if err != nil {
			t.Fatal(err)
		}
		// read reads p; with plan, the plan names the identity of idOf.
		read := func(p string, plan bool, idOf ...string) verdict.Verdict {
			b, _ := json.Marshal(map[string]string{"path": p})
			r := Request{Session: "s", Type: "read_file", Payload: b}
			if plan {
				var st syscall.Stat_t
				of := p
				if len(idOf) > 0 {
					of = idOf[0]
				}
				if err := syscall.Lstat(of, &st); err != nil {
					t.Fatal(err)
				}
				r.Resolved = []ResolvedPath{{Field: "path", Path: p, Resolved: p, Access: action.AccessRead,
					Identity: fmt.Sprintf("%d:%d:0", uint64(st.Dev), uint64(st.Ino))}} //nolint:unconvert
			}
			return g.Fresh().Evaluate(context.Background(), r)
		}
		cases := []struct {
			name string
			v    verdict.Verdict
			want verdict.Decision
		}{
			{"cat", evalCmd(t, g, "cat notes.txt"), verdict.Block},
			{"Read", read(notes, false), verdict.Block},
			{"planned Read", read(notes, true), verdict.Block},
			// The executor found the key's identity at the name it planned
			// (the name was swapped for a link): judged as the key.
			{"planned Read of the key's identity", read(filepath.Join(ws, "src", "main.go"), true, key), verdict.Block},
			{"cat of a pnpm link", evalCmd(t, g, "cat node_modules/x/index.js"), verdict.Allow},
			{"Read of a pnpm link", read(dep, false), verdict.Allow},
			{"planned Read of a pnpm link", read(dep, true), verdict.Allow},
		}
		for _, c := range cases {
			if c.v.Decision != c.want {
				t.Errorf("hidden=%v %s: got %s (%s: %s), want %s", hidden, c.name, c.v.Decision, c.v.Rule, c.v.Reason, c.want)
			}
		}
	}
}
