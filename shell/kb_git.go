package shell

import "strings"

// git: subcommands, force pushes, and the configuration keys that run
// commands (core.sshCommand, core.pager, alias.x=!cmd, ...). Global
// options (-c, -C, --exec-path) are parsed with git's flags before the
// subcommand; the core runs only the subcommand's Check, so each one
// looks at them through gitSub.

// gitSub completes a subcommand entry: a Check that also inspects the
// -c options given before the subcommand.
func gitSub(p *Program) *Program {
	specific := p.Check
	p.Check = func(c *Call) {
		gitConfigOpts(c)
		if specific != nil {
			specific(c)
		}
	}
	return p
}

// gitNet is gitSub for subcommands that talk to a remote.
func gitNet(p *Program) *Program { p.Network = true; return gitSub(p) }

// kbGitTable builds the kbGit table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbGitTable() map[string]*Program {
	var kGitGlobal = flags(
		"-p --paginate -P --no-pager --bare --no-replace-objects --literal-pathspecs --no-optional-locks", fBool,
		"-c", fVal,
		"-C --work-tree", fDir,
		"--git-dir", fRead,
		"--namespace --config-env --super-prefix", fVal,
		"--exec-path", tagged(fVal, TagCodeEscape),
	)

	kGitLog := gitSub(&Program{Flags: flags("--oneline --graph --all --decorate --stat -p --patch --follow --name-only --reverse --no-merges --first-parent", fBool,
		"-n --max-count --since --until --author --grep --format --pretty --date -S -G --skip --after --before -L", fVal, "--output", fWrite),
		Check: checkGitLog})
	kGitBlame := gitSub(&Program{Flags: flags(shorts("bcflnpstwe")+" --root --show-stats --porcelain --line-porcelain --incremental --show-name --show-number --show-email", fBool,
		"-L -C -M --ignore-rev --abbrev --date", fVal, "-S --contents --ignore-revs-file", fRead), Check: checkGitRevPaths})

	var kbGit = map[string]*Program{
		"git": {Flags: kGitGlobal, Check: gitConfigOpts, SubDefault: gitSub(&Program{Check: checkGitAlias}), Sub: map[string]*Program{
			"clone": gitNet(&Program{Flags: flags(
				shorts("lsqvn")+" --bare --mirror --single-branch --no-single-branch --recursive"+
					" --recurse-submodules --no-checkout --no-tags --shallow-submodules --quiet --progress --sparse", fBool,
				"-b --branch -o --origin --depth --shallow-since --shallow-exclude -j --jobs --filter"+
					" --config -c --server-option --bundle-uri", fVal,
				"--template --reference --reference-if-able", fRead,
				"--separate-git-dir", fWrite,
				"-u --upload-pack", tagged(fShell, TagCodeEscape),
			), Args: []Role{RoleURL, RoleWrite}, Check: checkGitClone}),
			"push": gitNet(&Program{Flags: flags(
				shorts("nquv")+" --all --tags --follow-tags --dry-run --set-upstream --quiet --verbose"+
					" --no-verify --verify --atomic --prune --porcelain --progress --no-force-with-lease", fBool,
				"-f --force --force-with-lease --force-if-includes --mirror -d --delete", tagged(fBool, TagForcePush),
				"-o --push-option --repo --signed --recurse-submodules", fVal,
				"--receive-pack --exec", tagged(fShell, TagCodeEscape),
			), Upload: true, Check: checkGitPush}),
			"fetch": gitNet(&Program{Flags: flags(
				shorts("afnpPqtuvk")+" --all --prune --prune-tags --tags --no-tags --force --dry-run --unshallow"+
					" --quiet --verbose --multiple --append", fBool,
				"--depth --deepen --shallow-since --refmap --recurse-submodules -j --jobs --filter -o", fVal,
				"--upload-pack", tagged(fShell, TagCodeEscape),
			), Check: checkGitLocalRemote}),
			"pull": gitNet(&Program{Flags: flags(
				shorts("fnqrv")+" --rebase --no-rebase --ff-only --no-ff --ff --all --prune --tags --quiet"+
					" --verbose --autostash --squash --no-edit --allow-unrelated-histories --commit --no-commit", fBool,
				"-s --strategy -X --strategy-option --depth -j --jobs", fVal,
				"--upload-pack", tagged(fShell, TagCodeEscape),
			), Check: checkGitPull}),
			"ls-remote": gitNet(&Program{Flags: flags("--heads --tags --refs -q --quiet --symref", fBool,
				"--upload-pack", tagged(fShell, TagCodeEscape)), Check: checkGitLocalRemote}),
			"archive": gitSub(&Program{Flags: flags("-l --list -v --worktree-attributes", fBool, "--format --prefix --mtime", fVal,
				"-o --output", fWrite, "--add-file", fRead, "--remote", fURL, "--exec", tagged(fShell, TagCodeEscape)),
				Check: checkGitRevPaths}),
			"commit": gitSub(&Program{Flags: flags(
				shorts("anqsuvz")+" --all --amend --no-edit --no-verify --allow-empty --signoff --quiet --patch", fBool,
				"-m --message -C --reuse-message --author --date --fixup --squash --cleanup -S --gpg-sign", fVal,
				"-F --file -t --template", fRead,
			), Rest: RoleRead}),
			"add": gitSub(&Program{Flags: flags(shorts("AfinNpuv")+" --all --force --update --patch --intent-to-add --dry-run", fBool,
				"--chmod --pathspec-from-file", fVal), Rest: RoleRead}),
			"rm": gitSub(&Program{Flags: flags(shorts("fnqr")+" --cached --force --dry-run --quiet --ignore-unmatch", fBool),
				Check: checkGitRm}),
			"mv": gitSub(&Program{Flags: flags(shorts("fkvn")+" --force --dry-run", fBool), Check: copyLike(accRD, accW)}),
			"checkout": gitSub(&Program{Flags: flags(shorts("fqmpt")+" --force --quiet --merge --patch --detach --ours --theirs --track --no-track"+
				" --guess --no-guess --overlay --no-overlay --recurse-submodules --no-recurse-submodules --progress --ignore-other-worktrees"+
				" --ignore-skip-worktree-bits --pathspec-file-nul", fBool,
				"-b -B --orphan --conflict", fVal, "--pathspec-from-file", fRead), Check: checkGitCheckout}),
			"switch": gitSub(&Program{Flags: flags(shorts("fqmdt")+" --force --discard-changes --detach --merge --track --no-track --guess --no-guess"+
				" --recurse-submodules --no-recurse-submodules --progress --ignore-other-worktrees", fBool,
				"-c -C --create --force-create --orphan --conflict", fVal), Check: checkGitSwitch}),
			"restore": gitSub(&Program{Flags: flags(shorts("SWpqm")+" --staged --worktree --patch --ours --theirs --merge --overlay --no-overlay"+
				" --ignore-unmerged --recurse-submodules --progress --quiet --pathspec-file-nul", fBool,
				"-s --source --conflict", fVal, "--pathspec-from-file", fRead), Check: checkGitRestore}),
			"reset": gitSub(&Program{Flags: flags("--hard --soft --mixed --merge --keep -q --quiet -p --patch -N --intent-to-add --no-refresh"+
				" --recurse-submodules --pathspec-file-nul", fBool, "--pathspec-from-file", fRead), Check: checkGitReset}),
			"clean": gitSub(&Program{Flags: flags(shorts("dfinqxX")+" --force --dry-run --quiet --interactive", fBool, "-e --exclude", fVal),
				Check: checkGitClean}),
			"config": gitSub(&Program{Flags: flags("--global --system --local --worktree --list -l --get --get-all --get-regexp --unset --unset-all --add --replace-all --bool --int --path --show-origin --name-only -e --edit --null -z", fBool,
				"-f --file", fRW, "--type --default", fVal), Check: checkGitConfig}),
			"init": gitSub(&Program{Flags: flags("-q --quiet --bare", fBool, "-b --initial-branch --shared --object-format", fVal,
				"--template", fRead, "--separate-git-dir", fWrite), Args: []Role{RoleWrite}}),
			"rebase": gitSub(&Program{Flags: flags("-i --interactive --continue --abort --skip --quit --edit-todo --show-current-patch"+
				" --autosquash --autostash --root -q -v", fBool,
				"--onto -s --strategy -X", fVal, "-x --exec", tagged(fShell, TagCodeEscape)), Check: gitTreeUnless("--quit", "--edit-todo", "--show-current-patch")}),
			"merge": gitSub(&Program{Flags: flags("--no-ff --ff-only --squash --abort --continue --quit --no-edit --no-commit -q -v", fBool,
				"-m -s --strategy -X", fVal), Check: gitTreeUnless("--continue", "--quit")}),
			"cherry-pick": gitSub(&Program{Flags: flags("-n -x -e --continue --abort --skip --quit", fBool, "-m", fVal), Check: gitTreeUnless("--quit")}),
			"revert":      gitSub(&Program{Flags: flags("-n -e --no-edit --continue --abort --skip --quit", fBool, "-m", fVal), Check: gitTreeUnless("--quit")}),
			"stash": gitSub(&Program{Flags: flags("-u -a -k -p -q -S --include-untracked --all --keep-index --no-keep-index --staged --index --quiet"+
				" --patch --pathspec-file-nul", fBool, "-m --message", fVal, "--pathspec-from-file", fRead), Check: checkGitStash}),
			"apply": gitSub(&Program{Flags: flags("--check --stat --numstat --summary --apply --cached --index -R --reverse -3 --3way --reject -v"+
				" --unsafe-paths --unidiff-zero --allow-empty --recount --inaccurate-eof -z", fBool,
				"-p -C --directory --exclude --include --whitespace", fVal), Rest: RoleRead, Check: checkGitApply}),
			"am": gitSub(&Program{Flags: flags("-3 -s -k -q -c --abort --continue --skip --quit --show-current-patch --signoff --keep --keep-cr"+
				" --no-keep-cr --scissors --quiet --committer-date-is-author-date --ignore-date --allow-empty", fBool,
				"-p -C --directory --exclude --include --whitespace --patch-format --resolvemsg", fVal), Rest: RoleRead, Check: checkGitAm}),
			"read-tree": gitSub(&Program{Flags: flags("-m -u -i -n -v --reset --dry-run --trivial --aggressive --empty -q --quiet"+
				" --no-sparse-checkout --recurse-submodules", fBool, "--prefix --exclude-per-directory", fVal, "--index-output", fWrite),
				Check: checkGitReadTree}),
			"checkout-index": gitSub(&Program{Flags: flags("-u -q -f -a -n -z --temp --stdin --all --force --quiet --index --no-create"+
				" --ignore-skip-worktree-bits", fBool, "--prefix --stage", fVal), Check: checkGitCheckoutIndex}),
			"sparse-checkout": gitSub(&Program{Check: checkGitSparse}),
			"merge-file": gitSub(&Program{Flags: flags("-p --stdout -q --quiet --ours --theirs --union --diff3 --zdiff3 --object-id", fBool,
				"-L --marker-size --diff-algorithm", fVal), Check: checkGitMergeFile}),
			"subtree": gitNet(&Program{Flags: flags("--squash -q --quiet -d --debug --rejoin --ignore-joins --onto", fBool,
				"-P --prefix -m --message -b --branch", fVal), Check: checkGitSubtree}),
			"format-patch": gitSub(&Program{Flags: flags("--stdout --cover-letter -n -k", fBool, "--subject-prefix -v --to --cc", fVal, "-o --output-directory", fWrite)}),
			"send-email": gitNet(&Program{Flags: flags("--annotate --compose --dry-run --quiet", fBool,
				"--to --cc --bcc --from --subject --smtp-server --smtp-user --smtp-pass --smtp-server-port", fVal), Upload: true, Rest: RoleRead}),
			"diff": gitSub(&Program{Flags: flags("--cached --staged --stat --name-only --name-status --no-index --ext-diff --no-ext-diff -w -b -R --color --quiet --exit-code --numstat --patch -p", fBool,
				"-U --unified --diff-filter -M -C --word-diff --relative --src-prefix --dst-prefix", fVal, "--output", fWrite),
				Check: checkGitRevPaths}),
			"log":         kGitLog,
			"whatchanged": kGitLog,
			"shortlog":    kGitLog,
			"rev-list":    kGitLog,
			"show": gitSub(&Program{Flags: flags("--stat --name-only -s --oneline --no-patch", fBool, "--format --pretty", fVal, "--output", fWrite),
				Check: checkGitRevPaths}),
			"grep": gitSub(&Program{Flags: flags(shorts("EFGPiIlLnovwhHc")+" --cached --untracked --no-index", fBool,
				"-e --regexp -A -B -C -m --max-depth", fVal, "-f", fRead, "-O --open-files-in-pager", tagged(fShell, TagCodeEscape)),
				Check: checkGitGrep}),
			"blame": kGitBlame, "annotate": kGitBlame,
			"cat-file": gitSub(&Program{Flags: flags(shorts("ptse")+" --batch --batch-check --batch-all-objects --textconv --filters --follow-symlinks", fBool,
				"--path", fRead), Check: checkGitRevPaths}),
			"ls-tree":     gitSub(&Program{Flags: flags(shorts("drtlz")+" --name-only --name-status --full-name --full-tree", fBool, "--format --abbrev", fVal), Check: checkGitRevPaths}),
			"ls-files":    gitSub(&Program{Flags: flags(shorts("cdmoisukvtz")+" --cached --deleted --modified --others --ignored --stage --unmerged --killed --exclude-standard --full-name", fBool, "-x --exclude", fVal, "-X --exclude-from", fRead), Rest: RoleRead}),
			"hash-object": gitSub(&Program{Flags: flags("-w --stdin --stdin-paths --no-filters --literally", fBool, "-t --path", fVal), Rest: RoleRead}),
			"update-index": gitSub(&Program{Flags: flags("--add --remove --force-remove --refresh --really-refresh -q --assume-unchanged --no-assume-unchanged --skip-worktree --no-skip-worktree --stdin -z", fBool,
				"--chmod --cacheinfo --index-info", fVal), Rest: RoleRead}),
			"notes":  gitSub(&Program{Flags: flags("-f --force", fBool, "-m --message -c -C --reuse-message --reedit-message --ref", fVal, "-F --file", fRead)}),
			"tag":    gitSub(&Program{Flags: flags(shorts("adfslnv")+" --annotate --delete --force --list --sign --verify", fBool, "-m --message -u --local-user --sort --contains --points-at", fVal, "-F --file", fRead)}),
			"bundle": gitSub(&Program{Flags: flags("-q --quiet --all --progress", fBool), Check: checkGitBundle}),
			"instaweb": gitNet(&Program{Flags: flags("-l --local --start --stop --restart", fBool, "-p --port -b --browser", fVal,
				"-d --httpd", tagged(fShell, TagCodeEscape))}),
			"submodule": gitNet(&Program{Flags: flags("--init --recursive --remote -q --quiet --force", fBool, "--depth --reference -b", fVal), Check: checkGitSubmodule}),
			"bisect":    gitSub(&Program{Check: checkGitBisect}),
			"filter-branch": gitSub(&Program{Flags: flags("-f --force --prune-empty", fBool, "--subdirectory-filter", fVal,
				"--tree-filter --index-filter --env-filter --msg-filter --commit-filter --parent-filter --tag-name-filter", tagged(fShell, TagCodeEscape)),
				Check: gitTreeUnless()}), // it checks the rewritten history out
			"difftool": gitSub(&Program{Flags: flags("-y --no-prompt -d --dir-diff -g --gui --no-index --cached --staged", fBool, "-t --tool", fVal, "-x --extcmd", tagged(fShell, TagCodeEscape)),
				Check: checkGitRevPaths}),
			"worktree":         gitSub(&Program{Check: checkGitWorktree}),
			"credential":       gitSub(&Program{Tags: []TagKind{TagCredentialSearch}}),
			"credential-store": gitSub(&Program{Tags: []TagKind{TagCredentialSearch}}),
			"daemon":           gitNet(&Program{Flags: flags("--export-all --verbose", fBool, "--base-path --port --listen --enable", fVal), Check: checkGitDaemon}),
			"hook":             gitSub(&Program{Tags: []TagKind{TagCodeEscape}}),
		}},
	}
	return kbGit
}

// gitCodeKeys are configuration keys whose value is a command git runs.
var gitCodeKeys = map[string]bool{
	"core.sshcommand": true, "core.pager": true, "core.editor": true, "core.fsmonitor": true,
	"core.askpass": true, "core.gitproxy": true, "sequence.editor": true, "diff.external": true,
	"gpg.program": true, "gpg.ssh.program": true, "gpg.x509.program": true, "credential.helper": true,
	"uploadpack.packobjectshook": true, "pager.log": true, "pager.diff": true, "pager.show": true,
	"web.browser": true, "sendemail.smtpserver": true, "protocol.ext.allow": true, "core.hookspath": true,
}

// gitCodeKey reports whether setting key runs a command; it covers the
// families alias.*=!cmd, *.textconv, filter.*.clean/smudge/process,
// diff.*.command, merge.*.driver, mergetool.*.cmd, difftool.*.cmd.
func gitCodeKey(k, val string) bool {
	if gitCodeKeys[k] {
		return true
	}
	if strings.HasPrefix(k, "alias.") {
		return strings.HasPrefix(val, "!")
	}
	for _, suf := range []string{".textconv", ".clean", ".smudge", ".process", ".command", ".driver", ".cmd", ".helper"} {
		if strings.HasSuffix(k, suf) {
			return true
		}
	}
	return false
}

// gitConfigKV judges one configuration assignment (from -c or git config).
func gitConfigKV(c *Call, key string, val Word) {
	k := strings.ToLower(key)
	if !gitCodeKey(k, val.Value) {
		return
	}
	switch k {
	case "core.hookspath":
		c.Tag(TagPersistence, "git core.hooksPath")
		return
	case "protocol.ext.allow":
		c.Tag(TagCodeEscape, "git protocol.ext.allow")
		return
	}
	c.Tag(TagCodeEscape, "git "+key)
	code := val
	code.Value = strings.TrimPrefix(val.Value, "!")
	if code.Value != "" || !code.Known {
		c.RunShell(code)
	}
}

// gitConfigOpts inspects every "-c key=value" given before the subcommand.
func gitConfigOpts(c *Call) {
	for i := 0; i+1 < len(c.Args); i++ {
		switch v := c.Args[i].Value; {
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" ||
			v == "--exec-path" || v == "--config-env":
			i++
			continue
		case v != "-c" || !c.Args[i].Known:
			if !strings.HasPrefix(v, "-") {
				return // the subcommand: later -c belong to it
			}
			continue
		}
		kv := c.Args[i+1]
		key, val, _ := strings.Cut(kv.Value, "=")
		gitConfigKV(c, key, Word{Value: val, Known: kv.Known})
		i++
	}
}

// checkGitConfig judges "git config [--global] KEY VALUE" writes.
func checkGitConfig(c *Call) {
	p := c.Positional
	if len(p) < 2 {
		if _, ok := c.Flag("-e", "--edit"); ok {
			c.Tag(TagCodeEscape, "git config --edit")
		}
		return
	}
	if _, ro := c.Flag("--get", "--get-all", "--get-regexp", "-l", "--list", "--unset", "--unset-all"); ro {
		return
	}
	gitConfigKV(c, p[0].Value, p[1])
	switch {
	case hasArg(c, "--global"):
		c.Use(lit("~/.gitconfig"), accW)
	case hasArg(c, "--system"):
		c.UsePath("/etc/gitconfig", accW)
	}
	if k := strings.ToLower(p[0].Value); strings.HasPrefix(k, "url.") && strings.HasSuffix(k, "insteadof") {
		c.Tag(TagPackageSource, "git url.insteadOf")
	}
}

// checkGitClone: ext:: URLs run commands; --config sets keys; without a
// directory the clone lands in the working directory.
func checkGitClone(c *Call) {
	checkGitLocalRemote(c)
	if w, ok := pos(c, 0); ok && strings.HasPrefix(w.Value, "ext::") {
		c.Tag(TagCodeEscape, "git clone ext::")
		c.RunShell(Word{Value: w.Value[5:], Known: w.Known})
	}
	if len(c.Positional) < 2 {
		c.Use(lit("."), accW)
	}
	if w, ok := c.Flag("--config", "-c"); ok {
		key, val, _ := strings.Cut(w.Value, "=")
		gitConfigKV(c, key, Word{Value: val, Known: w.Known})
	}
}

// checkGitPush tags force refspecs ("+main", ":branch").
func checkGitPush(c *Call) {
	if w, ok := gitLocalRepo(c, 0); ok {
		c.Use(w, accW) // pushing to a repository on this machine writes it
	}
	for i, w := range c.Positional {
		if i == 0 {
			if strings.Contains(w.Value, "://") {
				c.URL(w, true)
			}
			continue
		}
		if strings.HasPrefix(w.Value, "+") || strings.HasPrefix(w.Value, ":") && len(w.Value) > 1 {
			c.Tag(TagForcePush, "git push "+w.Value)
		}
	}
}

// writesWorktree records a write of the working directory (git submodule
// writes the submodules' trees below it).
func writesWorktree(c *Call) { c.Use(lit("."), accW) }

// checkGitRm deletes its operands unless --cached.
func checkGitRm(c *Call) {
	acc := accD
	if _, ok := c.Flag("--cached"); ok {
		acc = accR
	}
	for _, w := range c.Positional {
		c.Use(w, acc)
	}
}

// checkGitSubmodule: "foreach CMD" runs shell code in every submodule.
func checkGitSubmodule(c *Call) {
	if posIs(c, 0, "add") {
		if w, ok := gitLocalRepo(c, 1); ok {
			c.Use(w, accR)
		}
	}
	if posIs(c, 0, "foreach") && len(c.Positional) > 1 {
		c.RunShell(joinWords(c.Positional[1:]))
		return
	}
	writesWorktree(c)
}

// checkGitWorktree: "add PATH" writes PATH; "remove PATH" deletes it.
func checkGitWorktree(c *Call) {
	if w, ok := pos(c, 1); ok {
		switch {
		case posIs(c, 0, "add"):
			c.Use(w, accW)
		case posIs(c, 0, "remove", "prune"):
			c.Use(w, accD)
		}
	}
}

// checkGitDaemon: git daemon listens on 9418.
func checkGitDaemon(c *Call) { c.Host(lit(""), "9418", true, true) }

// checkGitRevPaths judges the operands of subcommands that take revisions
// and paths (show, diff, blame, cat-file, archive, ls-tree): each may be
// a path (git diff --no-index A B, git blame FILE, anything after "--").
func checkGitRevPaths(c *Call) { gitRevPaths(c, 0) }

func gitRevPaths(c *Call, from int) {
	for i := from; i < len(c.Positional); i++ {
		gitRevPath(c, c.Positional[i])
	}
}

// gitRevPath judges one revision-or-path operand. "REV:PATH" (and the
// index's ":PATH", ":N:PATH") names PATH in the repository: judged as
// reading it at the working directory, so that HEAD:.env and
// main:.ssh/id_rsa meet the guard as .env and .ssh/id_rsa do. A plain
// word is read as a path: git takes it as one when no revision matches.
func gitRevPath(c *Call, w Word) {
	v := w.Value
	if !w.Known {
		v = w.pattern()
	}
	if strings.Contains(v, "://") {
		c.an.operand(c, w)
		return
	}
	j := strings.IndexByte(v, ':')
	if j < 0 {
		if w.Known {
			c.Use(w, accR)
		} else {
			c.an.operand(c, w)
		}
		return
	}
	rest := v[j+1:]
	if k := strings.IndexByte(rest, ':'); j == 0 && k == 1 {
		rest = rest[k+1:] // ":N:PATH", a stage of the index
	}
	switch {
	case rest == "":
		return // "REV:", the root tree
	case w.Known:
		c.Use(lit(rest), accR)
	default:
		c.an.operand(c, Word{Value: rest, pat: rest})
	}
}

// checkGitLog: log-like subcommands take revisions and paths; -L
// "START,END:FILE" or ":FUNC:FILE" reads FILE.
func checkGitLog(c *Call) {
	checkGitRevPaths(c)
	if w, ok := c.Flag("-L"); ok {
		if i := strings.LastIndexByte(w.Value, ':'); i >= 0 && i+1 < len(w.Value) {
			c.Use(Word{Value: w.Value[i+1:], Known: w.Known}, accR)
		}
	}
}

// checkGitGrep: the first operand is the pattern unless -e/-f gave it;
// the others are revisions and paths (--no-index searches any file).
func checkGitGrep(c *Call) {
	from := 1
	if _, ok := c.Flag("-e", "--regexp", "-f"); ok {
		from = 0
	}
	gitRevPaths(c, from)
}

// checkGitBundle: "create FILE" writes FILE; verify, list-heads and
// unbundle read it.
func checkGitBundle(c *Call) {
	w, ok := pos(c, 1)
	switch {
	case !ok:
	case posIs(c, 0, "create"):
		c.Use(w, accW)
	default:
		c.Use(w, accR)
	}
}

// gitLocalRepo returns the i-th operand when it names a repository on
// this machine ("/srv/r", "~/r", "./r", "file:///srv/r"), as a path.
func gitLocalRepo(c *Call, i int) (Word, bool) {
	w, ok := pos(c, i)
	if !ok {
		return Word{}, false
	}
	v := w.Value
	if !w.Known {
		v = w.pattern()
	}
	if rest, ok := strings.CutPrefix(v, "file://"); ok {
		return Word{Value: rest, Known: w.Known, pat: rest}, true
	}
	if v == "." || v == ".." || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") ||
		strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return w, true
	}
	return Word{}, false
}

// checkGitLocalRemote: a remote that is a local repository is read
// (git clone ~/.ssh x, git fetch /srv/r).
func checkGitLocalRemote(c *Call) {
	if w, ok := gitLocalRepo(c, 0); ok {
		c.Use(w, accR)
	}
}
