//go:build linux

package files

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/internal/tools"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	lines := "one\ntwo\nthree\nfour\n"
	writeFile(t, filepath.Join(dir, "lines.txt"), lines, 0o644)
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("abcdefghij", 10), 0o644)
	writeFile(t, filepath.Join(dir, "utf8.txt"), strings.Repeat("é", 20), 0o644)
	writeFile(t, filepath.Join(dir, "bin"), "ELF\x00\x01\x02", 0o644)
	writeFile(t, filepath.Join(dir, "long.txt"), strings.Repeat("x", 200)+"\nsecond\n", 0o644)
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	small := New(Config{MaxReadBytes: 25})
	cases := []struct {
		name      string
		e         *Executor
		payload   map[string]any
		code      string
		want      string // exact output when truncated is false; prefix otherwise
		truncated bool
	}{
		{"whole", nil, map[string]any{"path": "lines.txt"}, "", lines, false},
		{"offset", nil, map[string]any{"path": "lines.txt", "offset": 2}, "", "two\nthree\nfour\n", false},
		{"offset and limit", nil, map[string]any{"path": "lines.txt", "offset": 2, "limit": 2}, "", "two\nthree\n", false},
		{"offset zero is the start", nil, map[string]any{"path": "lines.txt", "offset": 0, "limit": 1}, "", "one\n", false},
		{"limit only", nil, map[string]any{"path": "lines.txt", "limit": 3}, "", "one\ntwo\nthree\n", false},
		{"past the end", nil, map[string]any{"path": "lines.txt", "offset": 9}, "", "", false},
		{"size cap", small, map[string]any{"path": "big.txt"}, "", strings.Repeat("abcdefghij", 2) + "abcde", true},
		{"size cap with limit", small, map[string]any{"path": "long.txt", "limit": 1}, "", strings.Repeat("x", 25), true},
		{"cap keeps utf8 whole", small, map[string]any{"path": "utf8.txt"}, "", strings.Repeat("é", 12), true},
		{"binary summarised", nil, map[string]any{"path": "bin"}, "", "[binary file, 6 bytes; not shown]", false},
		{"directory", nil, map[string]any{"path": "."}, tools.CodeIsDir, "", false},
		{"missing", nil, map[string]any{"path": "nope.txt"}, tools.CodeNotFound, "", false},
		{"fifo", nil, map[string]any{"path": "fifo"}, tools.CodeNotRegular, "", false},
		{"missing parent", nil, map[string]any{"path": "no/such/file"}, tools.CodeNotFound, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			if e == nil {
				e = New(Config{})
			}
			c.payload["path"] = filepath.Join(dir, c.payload["path"].(string))
			res, err := do(t, e, "read_file", c.payload)
			wantCode(t, res, err, c.code)
			if c.code != "" {
				if !strings.Contains(err.Error(), c.payload["path"].(string)) {
					t.Fatalf("error %q does not name the path", err)
				}
				return
			}
			if res.Truncated != c.truncated {
				t.Fatalf("truncated: got %v, want %v", res.Truncated, c.truncated)
			}
			if !c.truncated && res.Output != c.want {
				t.Fatalf("got %q, want %q", res.Output, c.want)
			}
			if c.truncated && !strings.HasPrefix(res.Output, c.want+"\n[… truncated at ") {
				t.Fatalf("got %q, want prefix %q and a truncation note", res.Output, c.want)
			}
		})
	}
}

func TestReadFollowsSymlinkDecidedOn(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real.txt"), "real", 0o644)
	if err := unix.Symlink("real.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	a := mkAction(t, "read_file", map[string]any{"path": filepath.Join(dir, "link")})
	p := prepare(t, a)
	if got, want := p.Paths[0].Resolved, filepath.Join(dir, "real.txt"); got != want {
		t.Fatalf("resolved: got %s, want %s", got, want)
	}
	res, err := execute(a, p)
	wantCode(t, res, err, "")
	if res.Output != "real" {
		t.Fatalf("got %q, want %q", res.Output, "real")
	}
}
