//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAddGrantNeverFollowsSymlinks: a path planned as a directory but
// found to hold a symlink when its rule is added is refused (or skipped,
// when optional), never followed to where the link points. Only a
// ruleset is built here; nothing is enforced on the test process.
func TestAddGrantNeverFollowsSymlinks(t *testing.T) {
	requireLandlock(t)
	root := t.TempDir()
	dir, secret := filepath.Join(root, "dir"), filepath.Join(root, "secret")
	for _, d := range []string{dir, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	cfg, err := landlockConfig(Support().LandlockABI)
	if err != nil {
		t.Fatal(err)
	}
	fd, _, err := cfg.NewRulesetFD()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	cases := []struct {
		name     string
		path     string
		optional bool
		want     error // nil = added or skipped without error
	}{
		{"directory", dir, false, nil},
		{"file", filepath.Join(dir, "f"), false, nil},
		{"symlink required", filepath.Join(root, "link"), false, unix.ELOOP},
		{"symlink in the middle", filepath.Join(root, "link", "."), false, unix.ELOOP},
		{"symlink optional", filepath.Join(root, "link"), true, nil},
		{"vanished required", filepath.Join(root, "gone"), false, unix.ENOENT},
		{"vanished optional", filepath.Join(root, "gone"), true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := addGrant(fd, cfg, grant{path: tc.path, rights: readRights, optional: tc.optional})
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
