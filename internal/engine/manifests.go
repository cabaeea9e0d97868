package engine

import (
	"path/filepath"
	"slices"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/gateway/snapshot"
	"github.com/parallax/parallax/shell"
)

// manifestEdits are the package-manager commands that rewrite a
// project's manifest and lock files without naming them (go get, npm pkg
// set, cargo add, ...): by program, the subcommands, and the files they
// rewrite in the directory they run in.
var manifestEdits = map[string]struct {
	subs  []string
	files []string
}{
	"go":     {[]string{"get", "mod", "work"}, []string{"go.mod", "go.sum", "go.work", "go.work.sum"}},
	"npm":    {[]string{"install", "i", "add", "uninstall", "remove", "rm", "un", "update", "up", "upgrade", "pkg", "ci", "dedupe"}, []string{"package.json", "package-lock.json", "npm-shrinkwrap.json"}},
	"yarn":   {[]string{"add", "remove", "install", "upgrade", "up", ""}, []string{"package.json", "yarn.lock"}},
	"pnpm":   {[]string{"add", "remove", "rm", "install", "i", "update", "up"}, []string{"package.json", "pnpm-lock.yaml"}},
	"cargo":  {[]string{"add", "remove", "rm", "update", "generate-lockfile"}, []string{"Cargo.toml", "Cargo.lock"}},
	"poetry": {[]string{"add", "remove", "lock", "update", "install"}, []string{"pyproject.toml", "poetry.lock"}},
	"uv":     {[]string{"add", "remove", "lock", "sync"}, []string{"pyproject.toml", "uv.lock"}},
}

// dirFlags name the directory a package manager works in.
var dirFlags = []string{"-C", "--prefix", "--cwd", "--dir", "--directory", "--project", "--manifest-path"}

// manifestTargets are the manifest and lock files the command's package
// managers rewrite, so that a turn's snapshot (and /undo) covers a go get
// or an npm pkg set whose writes the analysis does not name: in the
// workspace, or the directory a -C/--prefix/--cwd flag names.
func manifestTargets(eff *shell.Effects, ws string) []snapshot.Target {
	var out []snapshot.Target
	for _, e := range eff.Execs {
		m, ok := manifestEdits[e.Name]
		if !ok {
			continue
		}
		sub, dir := "", ws
		for i := 0; i < len(e.Args); i++ {
			a := e.Args[i]
			if slices.Contains(dirFlags, a) && i+1 < len(e.Args) && e.Args[i+1] != "" {
				dir = e.Args[i+1]
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(ws, dir)
				}
				if filepath.Base(dir) == "Cargo.toml" {
					dir = filepath.Dir(dir)
				}
				i++
				continue
			}
			if sub == "" && len(a) > 0 && a[0] != '-' {
				sub = a
			}
		}
		if !slices.Contains(m.subs, sub) {
			continue
		}
		for _, f := range m.files {
			out = append(out, snapshot.Target{Path: filepath.Join(dir, f), Access: action.AccessWrite})
		}
	}
	return out
}
