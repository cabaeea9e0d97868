package shield

import (
	"strings"

	"github.com/parallax/parallax/runfile"
)

// The fast path allows, without analysis, single commands of programs that
// only inspect or build the project: git status, go test ./..., go vet,
// pwd, whoami. It is an optimisation, not a bypass: TestFastPathAgrees
// checks on the real corpus that the full analysis allows every command
// the fast path allows. Never cat, ls, grep, find, rm, cp or mv: their
// arguments are paths. Words that may name a file (fastPathNames) go to
// the guard first: the fast path is refused when it has any finding.

// fastSpec is what one program may take on the fast path.
type fastSpec struct {
	// subs lists allowed first arguments (subcommands); nil means the
	// program takes no subcommand.
	subs map[string]bool
	// flags lists allowed flag spellings (after the subcommand).
	flags map[string]bool
	// words allows plain words (targets, refs, test names): letters,
	// digits and -_.:, with no path separator.
	words bool
	// noWords lists subcommands that take flags only (git remote -v, not
	// git remote add).
	noWords map[string]bool
	// pkgs allows Go-style package patterns "./..." and "./name/...".
	pkgs bool
	// maxArgs bounds the argument count (subcommand included).
	maxArgs int
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

var versionOnly = fastSpec{flags: set("--version", "-V", "version"), maxArgs: 1}

// fastPrograms is the compiled-in safe list.
var fastPrograms = map[string]fastSpec{
	// Never git's working-tree writers (stash, pull, checkout, ...): what
	// they write depends on content the gate cannot see.
	"git": {subs: set("status", "log", "diff", "branch", "show", "fetch", "remote", "tag",
		"rev-parse", "shortlog", "describe", "blame", "add", "version", "help"),
		flags: set("-s", "--short", "-b", "--porcelain", "--oneline", "--graph", "--all", "--decorate",
			"--stat", "--cached", "--staged", "--name-only", "--name-status", "-a", "-v", "-r", "-A",
			"--list", "-n", "--abbrev-ref", "--show-toplevel", "HEAD", "--prune", "--tags", "-p",
			"--no-pager", "--short-stat", "--shortstat", "-u"),
		words: true, noWords: set("remote", "tag", "branch", "version", "help"), maxArgs: 6},
	"go": {subs: set("build", "test", "vet", "fmt", "version", "list", "mod", "generate", "doc", "help"),
		flags: set("-v", "-race", "-short", "-cover", "-json", "-x", "-m", "tidy", "download", "verify",
			"graph", "why", "all", "-count=1", "-failfast", "-trimpath", "-mod=mod", "-mod=readonly"),
		words: true, pkgs: true, maxArgs: 6},
	"cargo": {subs: set("build", "test", "check", "clippy", "fmt", "doc", "tree", "metadata", "version", "bench"),
		flags: set("--release", "--all", "--workspace", "--verbose", "-v", "-q", "--quiet", "--all-targets",
			"--all-features", "--lib", "--bins", "--tests", "--no-deps", "--offline", "--locked"),
		words: true, maxArgs: 5},
	"npm": {subs: set("test", "t", "run", "ci", "ls", "list", "outdated", "audit", "version", "--version", "-v", "start", "build"),
		flags: set("--silent", "-s", "--production", "--json", "--depth=0", "--long"), words: true, maxArgs: 4},
	"yarn": {subs: set("test", "run", "build", "lint", "start", "--version", "list", "outdated"),
		flags: set("--silent", "--json"), words: true, maxArgs: 3},
	"pnpm": {subs: set("test", "run", "build", "lint", "start", "--version", "list", "outdated"),
		flags: set("--silent", "--json"), words: true, maxArgs: 3},
	"make":    {flags: set("-j", "-j2", "-j4", "-j8", "-k", "-n", "-s", "--dry-run", "-B"), words: true, maxArgs: 4},
	"pytest":  {flags: set("-q", "-v", "-x", "-s", "--tb=short", "--tb=no", "-ra", "--lf", "--ff"), words: true, maxArgs: 5},
	"docker":  {subs: set("ps", "images", "version", "info", "--version"), flags: set("-a", "-q", "--all"), maxArgs: 2},
	"kubectl": {subs: set("version", "cluster-info", "api-resources"), flags: set("--client", "--short"), maxArgs: 2},
	"pwd":     {maxArgs: 0},
	"whoami":  {maxArgs: 0},
	"date":    {flags: set("-u", "-R", "-I", "--utc", "-Iseconds"), maxArgs: 1},
	"uname":   {flags: set("-a", "-r", "-s", "-m", "-n", "-o", "-v", "-p"), maxArgs: 2},
	"uptime":  {flags: set("-p", "-s"), maxArgs: 1},
	"id":      {flags: set("-u", "-g", "-G", "-n", "-un", "-gn"), maxArgs: 1},
	"nproc":   {maxArgs: 0},
	"arch":    {maxArgs: 0},
	"tty":     {maxArgs: 0},
	"true":    {maxArgs: 0},
	"false":   {maxArgs: 0},
	"clear":   {maxArgs: 0},
	"python":  versionOnly, "python3": versionOnly, "node": versionOnly, "rustc": versionOnly,
	"java": versionOnly, "ruby": versionOnly, "perl": versionOnly, "gcc": versionOnly,
	"terraform": versionOnly, "helm": versionOnly,
}

// fastPathAllowed reports whether cmd is a single metacharacter-free
// command on the safe list with only allowed arguments.
func fastPathAllowed(cmd string) bool {
	if len(cmd) == 0 || len(cmd) > 256 {
		return false
	}
	for i := 0; i < len(cmd); i++ {
		if !fastByte(cmd[i]) {
			return false
		}
	}
	fields := strings.Fields(cmd)
	spec, ok := fastPrograms[fields[0]]
	if !ok || runfile.MayRun(fields) {
		// A command that runs project files (make, npm test, pytest, git
		// commit) goes to the full analysis, which reads them.
		return false
	}
	args := fields[1:]
	if len(args) > spec.maxArgs {
		return false
	}
	if spec.subs != nil {
		if len(args) == 0 {
			return fields[0] != "make" // bare "git", "go": usage text
		}
		if !spec.subs[args[0]] {
			return false
		}
		args = args[1:]
	}
	words := spec.words
	if spec.subs != nil && spec.noWords[fields[1]] {
		words = false
	}
	for _, a := range args {
		if !fastArg(spec, words, a) {
			return false
		}
	}
	return true
}

// fastPathNames returns the words of a fast-path command that may name a
// file, for the guard: every operand that is not an option (git blame
// id_rsa, make .env), and the PATH of a "REV:PATH" or ":N:PATH" object
// name (git show HEAD:.env). Go package patterns ("./...") are the
// directories they start from. The gate refuses the fast path when the
// guard has anything to say about one of them, so a routine spelling
// never admits what the guard would refuse.
func fastPathNames(cmd string) []string {
	fields := strings.Fields(cmd)
	var out []string
	for _, a := range fields[min(1, len(fields)):] {
		if a == "" || a[0] == '-' {
			continue
		}
		a = strings.TrimSuffix(strings.TrimSuffix(a, "..."), "/")
		if a != "" && a != "." {
			out = append(out, a)
		}
		if i := strings.IndexByte(a, ':'); i >= 0 {
			rest := a[i+1:]
			if j := strings.IndexByte(rest, ':'); i == 0 && j >= 0 {
				rest = rest[j+1:] // ":N:PATH"
			}
			if rest != "" {
				out = append(out, rest)
			}
		}
	}
	return out
}

// fastByte admits letters, digits, space and -_.,:@=+%/ ; everything a
// shell treats specially (quotes, $, `, globs, redirects, ~, \, ;, &, |)
// sends the command to the full analysis.
func fastByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case ' ', '-', '_', '.', ',', ':', '@', '=', '+', '%', '/':
		return true
	}
	return false
}

func fastArg(spec fastSpec, words bool, a string) bool {
	if spec.flags[a] {
		return true
	}
	if spec.pkgs && (a == "./..." || (strings.HasPrefix(a, "./") && strings.HasSuffix(a, "/...") &&
		!strings.Contains(a, "..."+"/") && !strings.Contains(a[2:len(a)-4], ".."))) {
		return true
	}
	if !words || a[0] == '-' || a[0] == '+' || a[0] == ':' || a[0] == '.' {
		return false
	}
	return !strings.ContainsAny(a, "/=@%")
}
