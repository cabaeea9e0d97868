package runfile

import (
	"path"
	"strings"
)

// npmCommands are npm's own commands that run no script of the package
// (anything else after "npm" runs nothing either; yarn and pnpm run a
// script by its bare name).
var pmBuiltins = map[string]bool{
	"remove": true, "rm": true, "uninstall": true, "upgrade": true, "up": true, "update": true,
	"info": true, "view": true, "init": true, "create": true, "global": true, "list": true, "ls": true,
	"outdated": true, "why": true, "audit": true, "config": true, "cache": true, "login": true, "logout": true,
	"link": true, "unlink": true, "exec": true, "dlx": true, "x": true, "bin": true, "dedupe": true,
	"help": true, "version": true, "whoami": true, "licenses": true, "import": true, "store": true,
	"set": true, "search": true, "fund": true, "doctor": true, "prune": true, "explain": true, "owner": true,
	"token": true, "access": true, "team": true, "org": true, "profile": true, "completion": true,
	"root": true, "prefix": true, "docs": true, "bugs": true, "repo": true, "ping": true, "edit": true,
	"explore": true, "hook": true, "star": true, "stars": true, "unstar": true, "deprecate": true,
	"dist-tag": true, "query": true, "sbom": true, "shrinkwrap": true, "pkg": true, "diff": true,
	"workspaces": true, "plugin": true, "constraints": true, "dedup": true, "patch": true, "patch-commit": true,
}

// packageRuns: npm/yarn/pnpm SCRIPT-running commands.
func packageRuns(pm string, args []string, cwd string) []Target {
	dir := cwd
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--prefix" || a == "-C" || a == "--cwd" || a == "--dir":
			if i+1 < len(args) {
				i++
				dir = abs(dir, args[i])
			}
		case strings.HasPrefix(a, "--prefix=") || strings.HasPrefix(a, "--cwd=") || strings.HasPrefix(a, "--dir="):
			_, v, _ := strings.Cut(a, "=")
			dir = abs(dir, v)
		case a == "--":
			i = len(args)
		case strings.HasPrefix(a, "-"):
		default:
			words = append(words, a)
		}
	}
	file := path.Join(dir, "package.json")
	t := Target{File: file, Kind: KindPackage, Dir: dir}
	cmd := ""
	if len(words) > 0 {
		cmd = words[0]
	}
	switch cmd {
	case "":
		if pm == "npm" {
			return nil // npm alone prints its usage
		}
		t.Select = npmLifecycle // yarn, pnpm alone install
	case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
		"ci", "clean-install", "install-clean", "ic", "add", "rebuild", "rb", "install-test", "it", "install-ci-test", "cit":
		t.Select = append([]string(nil), npmLifecycle...)
		if cmd == "install-test" || cmd == "it" || cmd == "install-ci-test" || cmd == "cit" {
			t.Select = append(t.Select, withPrePost("test")...)
		}
	case "test", "t", "tst":
		t.Select = withPrePost("test")
	case "start", "stop", "restart":
		t.Select = append(withPrePost(cmd), withPrePost("start")...)
		if cmd == "restart" {
			t.Select = append(t.Select, withPrePost("stop")...)
		}
	case "publish", "pack":
		t.Select = []string{"prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"}
	case "run", "run-script", "rum", "urn":
		if len(words) < 2 || words[1] == "" {
			if len(words) >= 2 { // a script name the analysis could not resolve: any of them
				t.All = true
				return []Target{t}
			}
			return nil
		}
		t.Select = withPrePost(words[1])
	default:
		if pm == "npm" || pmBuiltins[cmd] {
			return nil
		}
		t.Select = withPrePost(cmd) // yarn test, pnpm build
	}
	return []Target{t}
}

// pytestRuns: conftest.py of the rootdir and of the test directories the
// command names (or tests/, test/).
func pytestRuns(args []string, cwd string, fs FS) []Target {
	dirs := []string{cwd, path.Join(cwd, "tests"), path.Join(cwd, "test")}
	for _, a := range args {
		if a != "" && !strings.HasPrefix(a, "-") {
			p := abs(cwd, strings.SplitN(a, "::", 2)[0])
			if strings.HasSuffix(p, ".py") {
				p = path.Dir(p)
			}
			dirs = append(dirs, p)
		}
	}
	var out []Target
	seen := map[string]bool{}
	for _, d := range dirs {
		p := path.Join(d, "conftest.py")
		if !seen[p] && len(out) < 16 {
			seen[p] = true
			out = append(out, scriptRun(p, "python", cwd, fs)...)
		}
	}
	return out
}

// pipRuns: pip install of a local directory (., ./pkg, -e .) runs its
// setup.py.
func pipRuns(args []string, cwd string, fs FS) []Target {
	if len(args) == 0 || args[0] != "install" && args[0] != "wheel" && args[0] != "download" {
		return nil
	}
	var out []Target
	for _, a := range args[1:] {
		if a == "." || a == ".." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasPrefix(a, "/") {
			dir := abs(cwd, a)
			out = append(out, scriptRun(path.Join(dir, "setup.py"), "python", dir, fs)...)
			out = append(out, backendRuns(dir, fs)...)
		}
	}
	return out
}

// gitHooks are the hooks each git command runs.
var gitHooks = map[string][]string{
	"commit":      {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-rewrite"},
	"push":        {"pre-push", "reference-transaction"},
	"merge":       {"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge"},
	"pull":        {"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "post-checkout"},
	"checkout":    {"post-checkout"},
	"switch":      {"post-checkout"},
	"rebase":      {"pre-rebase", "post-rewrite", "post-checkout"},
	"am":          {"applypatch-msg", "pre-applypatch", "post-applypatch"},
	"cherry-pick": {"prepare-commit-msg", "commit-msg", "post-commit"},
	"revert":      {"prepare-commit-msg", "commit-msg", "post-commit"},
	"gc":          {"pre-auto-gc"},
}

// gitRuns: the hooks a git command runs, from core.hooksPath (-c or the
// repository's config) or .git/hooks.
func gitRuns(args []string, cwd string, fs FS) []Target {
	dir, hooksPath := cwd, ""
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" && i+1 < len(args):
			i++
			dir = abs(dir, args[i])
		case a == "-c" && i+1 < len(args):
			i++
			if k, v, ok := strings.Cut(args[i], "="); ok && strings.EqualFold(k, "core.hooksPath") {
				hooksPath = v
			}
		case strings.HasPrefix(a, "-"):
		default:
			goto sub
		}
	}
	return nil
sub:
	hooks := gitHooks[args[i]]
	if hooks == nil {
		return nil
	}
	for _, a := range args[i+1:] {
		if a == "--no-verify" || a == "-n" && args[i] == "commit" {
			hooks = without(hooks, "pre-commit", "commit-msg", "pre-push", "pre-merge-commit")
		}
	}
	gitDir := path.Join(dir, ".git")
	if s, ok := fs.Read(gitDir); ok && strings.HasPrefix(s, "gitdir:") { // a worktree's .git file
		gitDir = abs(dir, strings.TrimSpace(strings.TrimPrefix(s, "gitdir:")))
	}
	if hooksPath == "" {
		hooksPath = configHooksPath(fs, path.Join(gitDir, "config"))
	}
	dirs := []string{path.Join(gitDir, "hooks")}
	if hooksPath != "" {
		hp := abs(dir, hooksPath)
		dirs = []string{hp}
		if path.Base(hp) == "_" { // husky: .husky/_/HOOK runs .husky/HOOK
			dirs = append(dirs, path.Dir(hp))
		}
	}
	var out []Target
	for _, d := range dirs {
		for _, h := range hooks {
			out = append(out, scriptRun(path.Join(d, h), "", dir, fs)...)
		}
	}
	return out
}

func without(xs []string, drop ...string) []string {
	var out []string
	for _, x := range xs {
		keep := true
		for _, d := range drop {
			keep = keep && x != d
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}

// configHooksPath reads core.hooksPath from a git config file (any
// "hookspath = X" line: over-approximated to every section).
func configHooksPath(fs FS, file string) string {
	s, ok := fs.Read(file)
	if !ok {
		return ""
	}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "hooksPath") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}
