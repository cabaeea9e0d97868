package shield

import (
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parallax/parallax/shell"
)

// This file judges a command with the environment it will run with
// (Request.Env): the executor that runs it names the values of a few
// variables, and the shell analysis resolves $TMPDIR, $PATH, mktemp's
// fresh names in the private temp directory and the globs of a loop's
// word list against the workspace's entries. A request without Env is
// judged as before: those stay unknown.

// envNames are the variables a Request's Env may carry. HOME and PWD are
// checked against the gate's own home and workspace; the others are
// passed to the analysis. Only values of the command's scrubbed
// environment belong here, never a secret: the gate ignores every other
// name.
var envNames = [...]string{"HOME", "PWD", "TMPDIR", "PATH", "USER", "LOGNAME", "SHELL"}

// EnvNames returns the variables a Request's Env may carry (a copy).
func EnvNames() []string { return slices.Clone(envNames[:]) }

// Bounds of a request's environment and of what the gate reads for it.
const (
	maxEnvValue   = 4096     // bytes of one value
	maxGlobListed = 1024     // entries of one directory listed for a loop's glob
	maxSourced    = 64 << 10 // bytes of a file a command sources
)

// shellOptions are the analysis options for a request: the gate's
// workspace and home, and the request's environment when it carries one
// that agrees with them (HOME and PWD, when named, must be the gate's
// home and workspace; otherwise the whole environment is ignored: the
// command is judged as without one).
func (g *Gate) shellOptions(r *Request) shell.Options {
	o := shell.Options{Cwd: g.ws, Home: g.home}
	if r == nil || len(r.Env) == 0 {
		return o
	}
	if h, ok := r.Env["HOME"]; ok && filepath.Clean(h) != g.home {
		return o
	}
	if p, ok := r.Env["PWD"]; ok && filepath.Clean(p) != g.ws {
		return o
	}
	env := make(map[string]string, len(envNames))
	for _, n := range envNames {
		v, ok := r.Env[n]
		if !ok || n == "HOME" || n == "PWD" || len(v) > maxEnvValue || strings.ContainsRune(v, 0) {
			continue
		}
		if n == "TMPDIR" && (!filepath.IsAbs(v) || v == "/") {
			continue
		}
		env[n] = v
	}
	o.Env = env
	o.Glob, o.Source = g.listGlob, g.readSourced
	return o
}

// readSourced reads a workspace file a command sources (shell.SourceFunc:
// . .venv/bin/activate), for the analysis to walk it in the command's
// shell. Only a regular file of at most maxSourced bytes that is in the
// workspace, outside its .parallax, where its links lead too.
func (g *Gate) readSourced(p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	for _, q := range []string{filepath.Clean(p), real} {
		rel, ok := strings.CutPrefix(q, g.ws+"/")
		if !ok || rel == ".parallax" || strings.HasPrefix(rel, ".parallax/") || strings.Contains(rel, "/.parallax/") {
			return "", false
		}
	}
	f, err := os.Open(real)
	if err != nil {
		return "", false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxSourced {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSourced+1))
	if err != nil || len(b) > maxSourced {
		return "", false
	}
	return string(b), true
}

// listGlob lists the entries of a workspace directory that match a
// one-component pattern with bash's default rules (shell.GlobFunc): no
// dot names, * and ? only. Directories outside the workspace, or below a
// dot directory of it (.parallax is hidden from commands: they would see
// other entries), are not listed; nor is a directory of more than
// maxGlobListed entries.
func (g *Gate) listGlob(dir, pattern string, dirsOnly bool) ([]string, bool) {
	dir = path.Clean(dir)
	rel, ok := strings.CutPrefix(dir, g.ws)
	if !ok || rel != "" && rel[0] != '/' || strings.Contains(rel, "/.") || pattern == "" || pattern[0] == '.' ||
		strings.ContainsAny(pattern, "[\\/") {
		return nil, false
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	ents, err := f.ReadDir(maxGlobListed + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(ents) > maxGlobListed {
		return nil, false
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if name[0] == '.' {
			continue
		}
		if m, err := path.Match(pattern, name); err != nil {
			return nil, false
		} else if !m {
			continue
		}
		if dirsOnly {
			st, err := os.Stat(filepath.Join(dir, name)) // a link to a directory matches */ too
			if err != nil || !st.IsDir() {
				continue
			}
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out, true
}
