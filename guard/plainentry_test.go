package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/action"
)

// TestPlainEntryAgreesWithCheck: expanding globs with the plain-entry
// shortcut gives the very findings that checking every entry gives, over
// a tree with secret names, dot names, links into protected areas,
// control characters and protected workspace files.
func TestPlainEntryAgreesWithCheck(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	files := []string{
		"ws/SOUL.md", "ws/README.md", "ws/.parallax/audit.jsonl", "ws/src/a.c", "ws/src/id_rsa", "ws/src/key.pem",
		"ws/src/.env", "ws/src/normal.txt", "ws/src/bad\x01name", "ws/src/credentials.json", "ws/src/id_rsa.pub",
		"home/.ssh/id_rsa", "home/.ssh/config", "home/.bashrc", "home/docs/a.txt", "home/docs/credentials",
		"home/docs/secrets.yaml", "other/plain.txt", "other/server.key", "other/deep/x.txt", "links/a.txt", "links/b.txt",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		mustDo(t, os.MkdirAll(filepath.Dir(p), 0o700), os.WriteFile(p, nil, 0o600))
	}
	mustDo(t, os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "src", "keys")),
		os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(root, "other", "rc")),
		os.Symlink(filepath.Join(home, "docs"), filepath.Join(root, "other", "docs")),
		os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(root, "links", "key")),
		os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(root, "links", "rc")))
	patterns := []string{"ws/*", "ws/src/*", "ws/src/*.c", "home/*", "home/docs/*", "other/*", "other/*/*",
		"ws/**", "other/**", "home/.ssh/*", "ws/src/[a-z]*", "links/*", "links/r*"}
	accs := []action.Access{action.AccessRead, action.AccessWrite, action.AccessDelete,
		action.AccessRead | action.AccessWrite | action.AccessDelete}
	g := New(ws, home, WithFS(osFS{}))
	shortcuts := 0
	for _, pat := range patterns {
		for _, acc := range accs {
			full := filepath.Join(root, pat)
			plainEntries = false
			want, wantOK := g.Memo().CheckGlob(full, acc)
			plainEntries = true
			got, gotOK := g.Memo().CheckGlob(full, acc)
			if got != want || gotOK != wantOK {
				t.Errorf("%s %v: shortcut %+v %v, full check %+v %v", pat, acc, got, gotOK, want, wantOK)
			}
		}
	}
	// The shortcut must actually be taken for plain directories.
	m := g.Memo()
	var pd plainDirs
	m.fs.(dirReader).ReadDir(filepath.Join(root, "other", "deep"))
	if _, _, done := m.plainEntry(&pd, filepath.Join(root, "other", "deep", "x.txt"), 0, action.AccessRead); done {
		shortcuts++
	}
	if shortcuts == 0 {
		t.Errorf("the shortcut never applied to a plain directory")
	}
}
