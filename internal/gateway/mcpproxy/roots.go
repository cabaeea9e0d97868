package mcpproxy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// RuleRelativePath is the reason code of a call refused because a
// relative path in it has no known base: the gate cannot judge a path
// without knowing where the server will put it.
const RuleRelativePath = "mcp_relative_path"

// Roots says how a server resolves a relative path argument: against
// which directories, by which rule. The zero value knows no base, and
// every relative path is refused.
type Roots struct {
	// Dirs are absolute directories, in the server's order.
	Dirs []string
	// Filesystem applies @modelcontextprotocol/server-filesystem's rule:
	// the first allowed directory under which the joined path stays
	// inside an allowed directory, else the first allowed directory.
	// Otherwise a relative path resolves against the only directory, and
	// is ambiguous when there are several.
	Filesystem bool
	// Source says where the directories come from, for reasons.
	Source string
}

// PathError is a path argument the proxy cannot place.
type PathError struct {
	Path, Server, Why string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("relative path %q: %s; give an absolute path, or start the proxy with "+
		"`--root DIR` naming the one directory server %s resolves relative paths against", e.Path, e.Why, e.Server)
}

// Resolve places a relative path the way the server will.
func (r Roots) Resolve(server, rel string) (string, error) {
	switch {
	case len(r.Dirs) == 0:
		return "", &PathError{Path: rel, Server: server,
			Why: "Parallax does not know which directory server " + server + " resolves it against"}
	case r.Filesystem:
		for _, d := range r.Dirs {
			if c := filepath.Join(d, rel); withinAny(c, r.Dirs) {
				return c, nil
			}
		}
		return filepath.Join(r.Dirs[0], rel), nil
	case len(r.Dirs) == 1:
		return filepath.Join(r.Dirs[0], rel), nil
	}
	return "", &PathError{Path: rel, Server: server, Why: fmt.Sprintf("server %s has several roots (%s, from %s) "+
		"and Parallax does not know which one it resolves it against", server, strings.Join(r.Dirs, ", "), r.Source)}
}

// PlaceError is a path argument the proxy cannot place where the server
// will open it.
type PlaceError struct {
	Path, Why string
}

func (e *PlaceError) Error() string {
	return fmt.Sprintf("path %q: %s", e.Path, e.Why)
}

// OnDisk places an absolute path p the way server-filesystem opens a
// path that does not exist as written (its resolveUnicodeEquivalentPath):
// from the longest allowed directory holding p, each component missing
// as written is matched against the directory's entries by Unicode NFC,
// so "cafe\u0301" opens an entry "café" and "Key" an entry "\u212aey"
// (KELVIN SIGN), links included. The gate must judge that entry, where
// the guard resolves its links, not the name as written, which does not
// exist. A component matching several entries is refused (the server
// refuses it too), and so is a directory that cannot be read. A path
// outside the roots is returned as is: the server refuses it.
func (r Roots) OnDisk(p string) (string, error) {
	base := ""
	for _, d := range r.Dirs {
		if d = filepath.Clean(d); withinAny(p, []string{d}) && len(d) > len(base) {
			base = d
		}
	}
	if base == "" || p == base {
		return p, nil
	}
	parts := strings.Split(strings.TrimPrefix(strings.TrimPrefix(p, base), "/"), "/")
	cur := base
	for i, part := range parts {
		next := filepath.Join(cur, part)
		_, err := os.Lstat(next)
		if err == nil {
			cur = next
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", &PlaceError{Path: p, Why: "it cannot be inspected (" + err.Error() + ")"}
		}
		match, err := equivalentEntry(cur, part)
		if err != nil {
			return "", &PlaceError{Path: p, Why: err.Error()}
		}
		if match == "" {
			return filepath.Join(append([]string{cur}, parts[i:]...)...), nil
		}
		cur = filepath.Join(cur, match)
	}
	return cur, nil
}

// equivalentEntry returns the entry of dir that is name under Unicode
// NFC, "" when there is none (or dir does not exist: nothing below it
// does either).
func equivalentEntry(dir, name string) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("directory %s cannot be read (%w)", dir, err)
	}
	want := norm.NFC.String(name)
	var found []string
	for _, e := range entries {
		if norm.NFC.String(e.Name()) == want {
			found = append(found, e.Name())
		}
	}
	if len(found) > 1 {
		return "", fmt.Errorf("component %q is the same in Unicode (NFC) as %d entries of %s, "+
			"and server-filesystem refuses an ambiguous name", name, len(found), dir)
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], nil
}

// withinAny reports whether p is one of dirs or below one, as
// server-filesystem's isPathWithinAllowedDirectories decides it.
func withinAny(p string, dirs []string) bool {
	for _, d := range dirs {
		d = filepath.Clean(d)
		if p == d || d == "/" || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// filesystemPackage matches the npm package of the reference filesystem
// server, with an optional version.
var filesystemPackage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^@modelcontextprotocol/server-filesystem(@[^/\s]+)?$`)
})

// isFilesystemServer reports whether an argv element starts the reference
// filesystem server: its bin, its npm package, or its entry point.
func isFilesystemServer(arg string) bool {
	return filepath.Base(arg) == "mcp-server-filesystem" || filesystemPackage().MatchString(arg) ||
		strings.HasSuffix(filepath.ToSlash(arg), "/server-filesystem/dist/index.js")
}

// LearnRoots reads a server's roots from its command line, for the
// servers whose rule Parallax knows: @modelcontextprotocol/server-
// filesystem takes every argument after its program (or npm package) as an
// allowed directory; it expands ~ (home is the server's HOME), resolves
// the rest against its working directory dir, adds the symlink-resolved
// form when it differs, and drops what is not a directory when it starts.
// The proxy offers the server no MCP roots, so these stay its directories.
// ok is false for any other server.
func LearnRoots(argv []string, dir, home string) (Roots, bool) {
	at := -1
	for i, a := range argv {
		if isFilesystemServer(a) {
			at = i // the last one: npx -p PKG mcp-server-filesystem DIR…
		}
	}
	if at < 0 {
		return Roots{}, false
	}
	r := Roots{Filesystem: true, Source: "the arguments of server-filesystem"}
	for _, a := range argv[at+1:] {
		if home != "" && (a == "~" || strings.HasPrefix(a, "~/")) {
			a = filepath.Join(home, a[1:])
		}
		if !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		a = filepath.Clean(a)
		forms := []string{a}
		if real, err := filepath.EvalSymlinks(a); err == nil && real != a {
			forms = append(forms, real)
		}
		for _, f := range forms {
			if st, err := os.Stat(f); err == nil && st.IsDir() {
				r.Dirs = append(r.Dirs, f)
			}
		}
	}
	return r, true
}

// ExplicitRoots are the directories given with --root, made absolute
// against dir. They must exist as directories.
func ExplicitRoots(dirs []string, dir, home string) (Roots, error) {
	r := Roots{Source: "--root"}
	for _, d := range dirs {
		if d == "" {
			return Roots{}, errors.New("--root: empty directory")
		}
		if home != "" && (d == "~" || strings.HasPrefix(d, "~/")) {
			d = filepath.Join(home, d[1:])
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		d = filepath.Clean(d)
		st, err := os.Stat(d)
		if err != nil {
			return Roots{}, fmt.Errorf("--root %s: %w", d, err)
		}
		if !st.IsDir() {
			return Roots{}, fmt.Errorf("--root %s: not a directory", d)
		}
		r.Dirs = append(r.Dirs, d)
	}
	return r, nil
}

// ServerRoots returns how the server argv starts resolves relative
// paths: learned from its command line when Parallax knows its rule
// (LearnRoots), else the --root directories (ExplicitRoots), else none.
// For a known server --root must name the same directories, links
// resolved, in the same order: the server resolves against its own,
// whatever --root says, and a narrower --root would have the gate judge
// project/.bashrc while the server writes ~/.bashrc.
func ServerRoots(argv, explicit []string, dir, home string) (Roots, error) {
	learned, known := LearnRoots(argv, dir, home)
	if len(explicit) == 0 {
		return learned, nil
	}
	r, err := ExplicitRoots(explicit, dir, home)
	if err != nil || !known {
		return r, err
	}
	if a, b := realDirs(r.Dirs), realDirs(learned.Dirs); strings.Join(a, "\x00") != strings.Join(b, "\x00") {
		return Roots{}, fmt.Errorf("--root %s: server-filesystem resolves relative paths against its own allowed "+
			"directories (%s), not these; drop --root, or give the server the directories", strings.Join(explicit, ", "),
			strings.Join(b, ", "))
	}
	return learned, nil
}

// realDirs resolves the links of dirs and drops repeats, in order.
func realDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
