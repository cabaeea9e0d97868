package shell

import (
	"path"
	"strings"

	"github.com/parallax/parallax/action"
)

// git's working-tree writers: the subcommands that check content out of
// a commit, the index, a stash or a patch into the work tree (checkout,
// switch, restore, reset --hard/--merge/--keep, stash, apply, am, merge,
// rebase, cherry-pick, revert, pull, read-tree -u, checkout-index,
// bisect, sparse-checkout, filter-branch, subtree, merge-file). Which
// tracked paths they touch depends on content the analysis cannot see,
// so each is recorded as a tree (PathUse.Creates, "ROOT/**"): a pathspec
// names ROOT; without one ROOT is the top of the work tree. What only
// moves refs or the index (reset --soft/--mixed, restore --staged, stash
// list/show/drop, read-tree without -u, checkout -b NAME) writes nothing
// of the tree. clean deletes untracked files, what exists: its operands
// are deletes, as rm's are.

// gitPlace is where one git command works.
type gitPlace struct {
	sub  int    // index in Call.Args of the subcommand word; -1 when none
	top  string // the top of the work tree, as far as it is bounded; "" unknown
	base string // where relative pathspecs resolve; "" unknown
	why  string // non-empty: the work tree is set where the analysis cannot follow
}

// gitGlobalsWithValue are git's options before the subcommand that take
// the next word (kbGitTable's kGitGlobal).
var gitGlobalsWithValue = map[string]bool{"-c": true, "-C": true, "--work-tree": true, "--git-dir": true,
	"--namespace": true, "--config-env": true, "--super-prefix": true, "--exec-path": true}

// gitWhere parses git's options before the subcommand from the call's
// own directory: -C DIR (in order, each relative to the last),
// --work-tree, and what moves the work tree out of sight (--git-dir,
// core.worktree, GIT_DIR and GIT_WORK_TREE in the command's environment).
//
// Without --work-tree the top is bounded by where the analysis started
// (Options.Cwd, the workspace): a directory within it has its repository
// top at or below it, and no further out (documented limit: a workspace
// inside a larger repository); another directory is its own top.
func gitWhere(c *Call) gitPlace {
	pl := gitPlace{}
	dir := c.an.cwd
	var wt Word
	hasWT := false
	pl.sub = gitGlobals(c, func(name string, v Word) {
		switch name {
		case "-C":
			dir = gitChdir(c, dir, v)
		case "--work-tree":
			wt, hasWT = v, true
		case "--git-dir":
			pl.why = "git --git-dir: the repository's configuration names the work tree"
		case "-c", "--config-env":
			key, _, _ := strings.Cut(v.Value, "=")
			if k := strings.ToLower(key); k == "core.worktree" || !v.Known {
				pl.why = "git " + name + " may set core.worktree"
			}
		}
	})
	if c.an.gitEnv {
		pl.why = "git's work tree or configuration is set in the command's environment"
	}
	pl.top, pl.base = gitTop(c, dir, wt, hasWT)
	return pl
}

// gitGlobals calls f with each of git's options before the subcommand
// and its value ("-C DIR", "--work-tree=DIR"), and returns the index in
// Call.Args of the subcommand word (-1 when there is none).
func gitGlobals(c *Call, f func(name string, v Word)) int {
	for i := 0; i < len(c.Args); i++ {
		w := c.Args[i]
		if !isFlagWord(w) {
			return i
		}
		name, val, eq := strings.Cut(w.Value, "=")
		v := Word{Value: val, Known: w.Known}
		if !eq && gitGlobalsWithValue[name] && i+1 < len(c.Args) {
			i++
			v = c.Args[i]
		}
		f(name, v)
	}
	return -1
}

// gitChdir applies "-C v" to dir: "" (unknown) when v is not known.
func gitChdir(c *Call, dir string, v Word) string {
	switch {
	case dir == "" || !v.Known:
		return ""
	case v.Value == "":
		return dir // git -C "" stays where it is
	}
	p, ok := c.an.absPath(dir, v.Value)
	if !ok {
		return ""
	}
	return p
}

// gitTop returns the top of the work tree and the directory relative
// pathspecs resolve against. With --work-tree, a directory inside the
// tree keeps its place; one outside works from the top.
func gitTop(c *Call, dir string, wt Word, hasWT bool) (top, base string) {
	if dir == "" {
		return "", ""
	}
	if hasWT {
		top = gitChdir(c, dir, wt)
		if top != "" && !pathWithin(dir, top) {
			return top, top
		}
		return top, dir
	}
	if start := c.an.opt.Cwd; start != "" && pathWithin(dir, path.Clean(start)) {
		return path.Clean(start), dir
	}
	return dir, dir
}

// pathWithin reports whether p is root or below it.
func pathWithin(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/'
}

// gitTree records that the call may create, replace or remove any path
// below root.
func gitTree(c *Call, root string, acc action.Access) {
	pat := strings.TrimSuffix(root, "/") + "/**"
	c.an.addPath(c, PathUse{Path: pat, Access: acc, Glob: true, Recursive: true, Creates: true, Program: progName(c)})
}

// gitWhole records a change of the whole work tree.
func gitWhole(c *Call, pl gitPlace, acc action.Access) {
	if pl.why != "" {
		c.Tag(TagOpaque, pl.why)
	}
	if pl.top == "" {
		c.Tag(TagOpaque, "git work tree in an unknown directory")
		return
	}
	gitTree(c, pl.top, acc)
}

// gitSpecs records the trees the pathspecs name. A pathspec names a path
// and everything below it; its wildcards match across "/" (git's
// fnmatch without FNM_PATHNAME), so a pathspec with one names the tree
// of its literal leading directories. Magic pathspecs (":/", ":(top)",
// ":!x"), unknown words and --pathspec-from-file stand for the whole
// tree.
func gitSpecs(c *Call, pl gitPlace, specs []Word, acc action.Access) {
	if pl.why != "" {
		c.Tag(TagOpaque, pl.why)
	}
	if _, ok := c.Flag("--pathspec-from-file"); ok {
		gitWhole(c, pl, acc)
	}
	for _, w := range specs {
		root, ok := gitSpecRoot(c, pl, w)
		if !ok {
			gitWhole(c, pl, acc)
			continue
		}
		gitTree(c, root, acc)
	}
}

// gitSpecRoot returns the directory a pathspec's paths lie below.
func gitSpecRoot(c *Call, pl gitPlace, w Word) (string, bool) {
	v := w.Value
	if !w.Known || v == "" || v[0] == ':' || pl.base == "" {
		return "", false
	}
	if i := strings.IndexAny(v, "*?[\\"); i >= 0 {
		v = v[:strings.LastIndexByte(v[:i], '/')+1] // the literal directories before it
	}
	return c.an.absPath(pl.base, orDefault(v, "."))
}

// gitOpsAt returns the operands (c.Positional) before a "--" after the
// subcommand, and whether there is one. The options are read with the
// subcommand's table, as the core reads them.
func gitOpsAt(c *Call, pl gitPlace) (n int, dd bool) {
	if pl.sub < 0 {
		return len(c.Positional), false
	}
	for i := pl.sub + 1; i < len(c.Args); i++ {
		w := c.Args[i]
		switch {
		case w.Known && w.Value == "--":
			return n, true
		case isFlagWord(w):
			if takesNext(c.prog, w) {
				i++
			}
		default:
			n++
		}
	}
	return n, false
}

// takesNext reports whether option w of p takes the next word as its
// value ("-b NAME", "--orphan NAME"; not "-bNAME" or "--orphan=NAME").
func takesNext(p *Program, w Word) bool {
	if p == nil || p.Flags == nil || strings.Contains(w.Value, "=") {
		return false
	}
	v := w.Value
	if f, ok := p.Flags[v]; ok || strings.HasPrefix(v, "--") {
		return ok && f.Value
	}
	for j := 1; j < len(v); j++ {
		f, ok := p.Flags[shortName(v[j])]
		if !ok {
			return false
		}
		if f.Value {
			return j+1 == len(v)
		}
	}
	return false
}

// hasFlagOf reports whether any of the spellings was given.
func hasFlagOf(c *Call, names ...string) bool {
	_, ok := c.Flag(names...)
	return ok
}

// checkGitCheckout: "git checkout [TREE-ISH] [--] PATHSPEC..." writes the
// pathspecs; "git checkout BRANCH" switches the whole tree, as -b/-B/
// --orphan/--detach with a start point do; "-b NAME" alone makes a branch
// at HEAD and writes nothing. Without "--", one operand is a branch or a
// path (both are recorded); with more, the first may be a tree-ish and
// every operand is taken as a pathspec. An operand that cannot name a ref
// (gitRefName) is a pathspec only.
func checkGitCheckout(c *Call) {
	pl := gitWhere(c)
	pos := c.Positional
	n, dd := gitOpsAt(c, pl)
	switch {
	case hasFlagOf(c, "--pathspec-from-file"):
		gitWhole(c, pl, accW)
	case dd && len(pos) > n:
		gitSpecs(c, pl, pos[n:], accW)
	case dd && n > 0, len(pos) == 0 && hasFlagOf(c, "-f", "--force", "-p", "--patch", "-m", "--merge"):
		gitWhole(c, pl, accW)
	case len(pos) == 1:
		if v := pos[0]; !v.Known || gitRefName(v.Value) {
			gitWhole(c, pl, accW) // a branch to switch to
		}
		if pos[0].Value != "-" {
			gitSpecs(c, pl, pos, accW)
		}
	case len(pos) > 1:
		gitSpecs(c, pl, pos, accW)
	}
}

// gitRefName reports whether v may name a commit to check out: a branch
// or a tag (git check-ref-format), "-", "@{-N}", or a revision built on
// one (HEAD~2, main^). ".", "./x", "a/.b", "x..y", "*.go" and
// ".claude/settings.json" cannot, so they are pathspecs only; ":/text"
// is both, and a pathspec of the whole tree.
func gitRefName(v string) bool {
	if v == "" || v == "@" || v == "-" || strings.HasPrefix(v, "@{") {
		return v != ""
	}
	if v[0] == '.' || v[0] == '/' || strings.HasSuffix(v, "/") || strings.HasSuffix(v, ".lock") ||
		strings.Contains(v, "..") || strings.Contains(v, "/.") || strings.Contains(v, "//") ||
		strings.ContainsAny(v, " :?*[\\\t") {
		return false
	}
	return true
}

// checkGitSwitch: switching to a branch or a start point rewrites the
// tree; --orphan empties it; -c NAME alone makes a branch at HEAD.
func checkGitSwitch(c *Call) {
	pl := gitWhere(c)
	if len(c.Positional) > 0 || hasFlagOf(c, "--orphan") {
		gitWhole(c, pl, accW)
	}
}

// checkGitRestore writes the pathspecs in the work tree unless only the
// index is restored (--staged without --worktree).
func checkGitRestore(c *Call) {
	pl := gitWhere(c)
	if hasFlagOf(c, "-S", "--staged") && !hasFlagOf(c, "-W", "--worktree") {
		return
	}
	if len(c.Positional) == 0 {
		gitWhole(c, pl, accW) // restore -p: every path
		return
	}
	gitSpecs(c, pl, c.Positional, accW)
}

// checkGitReset: --hard, --merge and --keep rewrite the work tree;
// --soft, --mixed (the default), a pathspec and -p change HEAD and the
// index only.
func checkGitReset(c *Call) {
	if hasFlagOf(c, "--hard", "--merge", "--keep") {
		gitWhole(c, gitWhere(c), accW)
	}
}

// gitStashReadOnly are the stash subcommands that leave the tree alone.
var gitStashReadOnly = map[string]bool{"list": true, "show": true, "drop": true, "clear": true,
	"create": true, "store": true}

// checkGitStash: push (also "git stash" and "git stash -- PATHSPEC")
// reverts the stashed paths, and with -u/-a deletes untracked (and
// ignored) files; save reverts everything; pop, apply and branch write
// whatever the stash holds; list, show, drop, clear, create and store
// write nothing of the tree.
func checkGitStash(c *Call) {
	pl := gitWhere(c)
	pos := c.Positional
	n, dd := gitOpsAt(c, pl)
	acc := accW
	if hasFlagOf(c, "-u", "--include-untracked", "-a", "--all") {
		acc |= accD
	}
	sub := "push"
	if len(pos) > 0 && !(dd && n == 0) {
		if !pos[0].Known {
			gitWhole(c, pl, acc)
			return
		}
		sub, pos = pos[0].Value, pos[1:]
	}
	switch {
	case gitStashReadOnly[sub]:
	case sub == "push" && len(pos) > 0:
		gitSpecs(c, pl, pos, acc)
	default:
		gitWhole(c, pl, acc)
	}
}

// checkGitApply: git apply writes the paths its patch names, anywhere in
// the tree, unless it only reports (--check, --stat, --numstat,
// --summary) or applies to the index alone (--cached); --unsafe-paths
// lets it write outside the tree.
func checkGitApply(c *Call) {
	checkPatchFetched(c)
	if hasFlagOf(c, "--cached") || hasFlagOf(c, "--check", "--stat", "--numstat", "--summary") && !hasFlagOf(c, "--apply") {
		return
	}
	if hasFlagOf(c, "--unsafe-paths") {
		c.Tag(TagOpaque, "git apply --unsafe-paths writes outside the work tree")
	}
	gitWhole(c, gitWhere(c), accW)
}

// checkGitAm: git am applies patches and commits them (--abort restores
// the tree too); --show-current-patch and --quit write nothing.
func checkGitAm(c *Call) {
	checkPatchFetched(c)
	if !hasFlagOf(c, "--show-current-patch", "--quit") {
		gitWhole(c, gitWhere(c), accW)
	}
}

// gitTreeUnless returns a Check that writes the whole tree unless one of
// the options is given (merge --continue commits; --quit leaves the tree
// as it is; rebase --edit-todo edits the todo list).
func gitTreeUnless(names ...string) func(*Call) {
	return func(c *Call) {
		if !hasFlagOf(c, names...) {
			gitWhole(c, gitWhere(c), accW)
		}
	}
}

// checkGitPull reads a local remote and merges or rebases into the tree.
func checkGitPull(c *Call) {
	checkGitLocalRemote(c)
	gitWhole(c, gitWhere(c), accW)
}

// checkGitReadTree: -u updates the work tree from the index it reads.
func checkGitReadTree(c *Call) {
	if hasFlagOf(c, "-u") && !hasFlagOf(c, "-n", "--dry-run") {
		gitWhole(c, gitWhere(c), accW)
	}
}

// checkGitCheckoutIndex writes the index's files into the tree: all of
// them (-a, --stdin) or the operands; --prefix puts them below another
// directory ("--prefix=dir/" or a name prefix "--prefix=old-").
func checkGitCheckoutIndex(c *Call) {
	pl := gitWhere(c)
	if w, ok := c.Flag("--prefix"); ok {
		if !w.Known || pl.base == "" {
			c.Tag(TagOpaque, "git checkout-index --prefix in an unknown directory")
			return
		}
		if p, ok := c.an.absPath(pl.base, w.Value+"x"); ok {
			gitTree(c, path.Dir(p), accW)
		}
		return
	}
	if hasFlagOf(c, "-a", "--all", "--stdin") || len(c.Positional) == 0 {
		gitWhole(c, pl, accW)
		return
	}
	gitSpecs(c, pl, c.Positional, accW)
}

// checkGitBisect: every step checks a commit out ("run CMD" runs a
// command at each); log, visualize, view, terms and help write nothing.
func checkGitBisect(c *Call) {
	if posIs(c, 0, "log", "visualize", "view", "terms", "help") {
		return
	}
	if posIs(c, 0, "run") {
		runFrom(c, 1)
	}
	gitWhole(c, gitWhere(c), accW)
}

// checkGitSparse: set, add, reapply, init and disable change which files
// the tree holds; list and check-rules write nothing.
func checkGitSparse(c *Call) {
	if !posIs(c, 0, "list", "check-rules") {
		gitWhole(c, gitWhere(c), accW)
	}
}

// checkGitSubtree: add, merge and pull bring a history into the tree;
// split and push write nothing of it.
func checkGitSubtree(c *Call) {
	if !posIs(c, 0, "split", "push") {
		gitWhole(c, gitWhere(c), accW)
	}
}

// checkGitMergeFile: "git merge-file CURRENT BASE OTHER" writes the
// merge into CURRENT unless -p/--stdout prints it.
func checkGitMergeFile(c *Call) {
	for i, w := range c.Positional {
		acc := accR
		if i == 0 && !hasFlagOf(c, "-p", "--stdout") {
			acc = accRW
		}
		c.Use(w, acc)
	}
}

// checkGitClean deletes untracked files, what exists: the operands (as
// pathspecs: a wildcard reaches any file of the tree of its leading
// directories), or everything below the current directory.
func checkGitClean(c *Call) {
	if hasFlagOf(c, "-n", "--dry-run") {
		return
	}
	pl := gitWhere(c)
	if pl.why != "" {
		c.Tag(TagOpaque, pl.why)
	}
	if len(c.Positional) == 0 {
		if pl.base == "" {
			c.Tag(TagOpaque, "git clean in an unknown directory")
			return
		}
		c.UsePath(pl.base, accD)
		return
	}
	for _, w := range c.Positional {
		root, ok := gitSpecRoot(c, pl, w)
		switch {
		case !ok && pl.top == "":
			c.Tag(TagOpaque, "git clean of an unknown pathspec")
		case !ok:
			c.UsePath(pl.top, accD)
		case strings.ContainsAny(w.Value, "*?[\\"):
			c.an.usePathSet(c, strings.TrimSuffix(root, "/")+"/**", accD, true, true)
		default:
			c.UsePath(root, accD)
		}
	}
}

// checkGitAlias: "git -c alias.NAME=VALUE NAME ARGS" runs "git VALUE
// ARGS" (a value starting with "!" runs a shell command: gitConfigKV).
// An alias from the environment (GIT_CONFIG_*) cannot be resolved.
func checkGitAlias(c *Call) {
	sub := gitGlobals(c, func(string, Word) {})
	if sub < 0 {
		return
	}
	name := c.Args[sub]
	var val Word
	found := false
	gitGlobals(c, func(opt string, kv Word) {
		key, v, _ := strings.Cut(kv.Value, "=")
		if (opt == "-c" || opt == "--config-env") && strings.EqualFold(key, "alias."+name.Value) && !strings.HasPrefix(v, "!") {
			val, found = Word{Value: v, Known: kv.Known && opt == "-c"}, true // the last one wins
		}
	})
	switch {
	case found && !val.Known:
		c.Tag(TagOpaque, "git alias "+name.Value+" set to an unknown command")
	case found:
		argv := append([]Word{{Value: "git", Known: true}}, c.Args[:sub]...)
		for _, f := range strings.Fields(val.Value) {
			argv = append(argv, Word{Value: f, Known: true})
		}
		c.Run(append(argv, c.Args[sub+1:]...))
	case c.an.gitEnv:
		c.Tag(TagOpaque, "git "+name.Value+" may be an alias set in the command's environment")
	}
}

// gitEnvVar reports whether an environment variable moves git's work tree
// or repository, or sets its configuration (aliases, core.worktree).
func gitEnvVar(name string) bool {
	return name == "GIT_DIR" || name == "GIT_WORK_TREE" || name == "GIT_COMMON_DIR" ||
		strings.HasPrefix(name, "GIT_CONFIG")
}
