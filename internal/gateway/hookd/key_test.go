package hookd

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestKeyFileRefused: LoadKey accepts only a regular file of KeySize
// bytes, this user's, closed to others, in a directory others cannot
// write to; anything else is an error (no daemon), without blocking.
func TestKeyFileRefused(t *testing.T) {
	key := strings.Repeat("k", KeySize)
	cases := []struct {
		name string
		make func(t *testing.T, home string) // the key at KeyPath(home)
	}{
		{"missing", func(t *testing.T, home string) { mkdir(t, filepath.Join(home, ".parallax")) }},
		{"no ~/.parallax", func(*testing.T, string) {}},
		{"short", func(t *testing.T, home string) { writeFile(t, KeyPath(home), key[1:]) }},
		{"long", func(t *testing.T, home string) { writeFile(t, KeyPath(home), key+"k") }},
		{"readable by the group", func(t *testing.T, home string) {
			writeFile(t, KeyPath(home), key)
			chmod(t, KeyPath(home), 0o640)
		}},
		{"readable by others", func(t *testing.T, home string) {
			writeFile(t, KeyPath(home), key)
			chmod(t, KeyPath(home), 0o604)
		}},
		{"a link to a good key", func(t *testing.T, home string) {
			other := filepath.Join(t.TempDir(), "key")
			writeFile(t, other, key)
			mkdir(t, filepath.Join(home, ".parallax"))
			if err := os.Symlink(other, KeyPath(home)); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, home string) { mkdir(t, KeyPath(home)) }},
		{"a fifo", func(t *testing.T, home string) {
			mkdir(t, filepath.Join(home, ".parallax"))
			if err := syscall.Mkfifo(KeyPath(home), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"~/.parallax writable by others", func(t *testing.T, home string) {
			writeFile(t, KeyPath(home), key)
			chmod(t, filepath.Join(home, ".parallax"), 0o777)
		}},
		{"another user's", func(t *testing.T, home string) {
			if os.Getuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			writeFile(t, KeyPath(home), key)
			if err := os.Chown(KeyPath(home), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			c.make(t, home)
			if k, err := LoadKey(home); err == nil {
				t.Errorf("loaded %x, want an error", k[:4])
			}
		})
	}
	t.Run("relative HOME", func(t *testing.T) {
		if _, err := LoadKey("home"); err == nil {
			t.Error("a relative HOME must be refused")
		}
	})
	t.Run("good", func(t *testing.T) {
		home := t.TempDir()
		writeFile(t, KeyPath(home), key)
		if k, err := LoadKey(home); err != nil || string(k[:]) != key {
			t.Errorf("got %v, want the key", err)
		}
	})
}

// TestCreateKey: install makes a 0600 key of random bytes, keeps a good
// one, and replaces one that is too open or of the wrong size.
func TestCreateKey(t *testing.T) {
	home := t.TempDir()
	created, err := CreateKey(home, rand.Reader)
	if err != nil || !created {
		t.Fatalf("create: %v, %v", created, err)
	}
	fi, err := os.Stat(KeyPath(home))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != KeySize {
		t.Fatalf("key file: %v, %v; want 0600 and %d bytes", fi.Mode(), err, KeySize)
	}
	if di, _ := os.Stat(filepath.Dir(KeyPath(home))); di.Mode().Perm() != 0o700 {
		t.Errorf("~/.parallax mode %v, want 0700", di.Mode().Perm())
	}
	first, _ := os.ReadFile(KeyPath(home))
	if created, err := CreateKey(home, rand.Reader); err != nil || created {
		t.Errorf("again: %v, %v; want the key kept", created, err)
	}
	if again, _ := os.ReadFile(KeyPath(home)); !bytes.Equal(first, again) {
		t.Error("a good key was replaced")
	}
	chmod(t, KeyPath(home), 0o644)
	if created, err := CreateKey(home, rand.Reader); err != nil || !created {
		t.Errorf("too open: %v, %v; want a new key", created, err)
	}
	if k, err := LoadKey(home); err != nil || bytes.Equal(k[:], first) {
		t.Errorf("after replacing a key open to others: %v; want a new key that loads", err)
	}
	removeAll(t, KeyPath(home))
	if _, err := CreateKey(home, bytes.NewReader(make([]byte, KeySize-1))); err == nil {
		t.Error("want an error when randomness runs short")
	}
	if _, err := CreateKey(home, rand.Reader); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(KeyPath(home))); len(ents) != 1 {
		t.Errorf("~/.parallax holds %d entries, want the key alone", len(ents))
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
