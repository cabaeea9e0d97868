// Package guard is the hard-coded path protection that runs before any
// tier (DESIGN §1 step 3). It needs no configuration and no LLM, and it
// cannot be switched off or narrowed by policy.
//
//	g := guard.New(workspace, home)
//	f, ok := g.Check(path, action.AccessRead|action.AccessWrite)
//	f, ok = g.CheckGlob("/home/u/.ss?/*", action.AccessRead)
//	f, ok = g.CheckMkdir("/home/u/proj/.vscode") // an empty directory
//	f, ok = g.CheckTreeWrite("/home/u/proj/**", action.AccessWrite) // any path below, existing or not
//
// ok is false when nothing applies. Otherwise the Finding carries a
// stable Rule code (guard_restricted, guard_protected, guard_sealed,
// guard_readonly, guard_tier, guard_bad_path), the Level, the offending
// path as resolved, and a Decision: Block, or Allow with MinTier for the
// tier-gated workspace files. Reasons name the path (home shown as "~")
// and the category, never file contents.
//
// Levels (what is blocked):
//
//	Sealed      everything          .parallax/ in the workspace, ~/.parallax, any ".parallax" component
//	Restricted  read, write, delete secrets: ~/.ssh, ~/.aws, ~/.gnupg, /etc/shadow, *.pem, .env, …
//	Protected   write, delete       persistence and system config: ~/.bashrc, cron, systemd, /etc/hosts, …;
//	                                agent hook and MCP client configs: .claude/settings{,.local}.json
//	                                (workspace, anywhere below it, ~), ~/.claude.json, .mcp.json,
//	                                .cursor/mcp.json, .vscode/mcp.json, Claude Desktop, Windsurf,
//	                                and the paths given with WithProtected
//	ReadOnly    write, delete       SOUL.md, IDENTITY.md, skills/
//	Tier2       nothing; writes need tier 2   AGENTS.md, HEARTBEAT.md; what an agent host loads as
//	                                instructions or extensions: CLAUDE.md and CLAUDE.local.md (in the
//	                                workspace, below it, in the home and above the workspace),
//	                                .claude/{CLAUDE.md,rules,skills,agents,commands,hooks,output-styles,
//	                                plugins} (workspace, anywhere below it, ~)
//	Tier1       nothing; writes need tier 1   USER.md, MEMORY.md, memory/
//
// Defenses:
//   - Fail closed: NUL and control characters, relative paths, paths over
//     PATH_MAX, a symlink loop (over 40 hops), an empty link target, a
//     component that cannot be inspected (e.g. EACCES), a malformed glob,
//     a guard built without an absolute workspace or home, and an empty
//     access set (treated as read+write+delete) all end in Block.
//   - Lexical and resolved: "." and ".." are cleaned, then symlinks are
//     resolved over the longest existing prefix, so a new file under a
//     linked directory is judged where it would land. The raw path is
//     resolved too when it holds "..", because the kernel applies ".."
//     after the link before it. The worst finding of all views wins.
//   - Hard links by identity: an existing regular file with more than one
//     link is compared (device, inode) with the files of the restricted
//     and sealed areas in the home and the workspace (~/.ssh, ~/.aws,
//     .parallax, …; a bounded index rebuilt when those directories
//     change) and judged as the file it is; an index over its bounds
//     escalates every multi-link file (guard_identity). See identity.go.
//   - /proc: /proc/<pid>/root, /proc/self/root, /proc/thread-self/root (and
//     task/<tid>/root) alias "/"; another process's cwd, fd/<n> (n > 2)
//     and map_files cannot be resolved and are restricted; environ, mem,
//     pagemap and /proc/kcore are restricted; /dev/mem, /dev/kmem,
//     /dev/port and bash's /dev/tcp, /dev/udp are restricted. /proc, /sys
//     and /dev are write-protected, except the harmless devices
//     (/dev/null, /dev/stdout, …, /dev/shm) and fd 0–2.
//   - Anywhere on disk: secret file names (id_rsa & co., *.pem, *.key,
//     *.p12, *.pfx, *.keystore, *.jks, *.asc, *.ppk, *.kdbx, .env and
//     .env.* except .env.example/.sample/.template, .envrc, credentials,
//     secrets.{yaml,yml,json}, token.json, service-account.json, .pgpass,
//     .my.cnf, .netrc, .git-credentials, .vault-token, .htpasswd) compare
//     case-insensitively on every OS; ".ssh" and ".gnupg" components are
//     restricted, ".git/hooks" and ".git/config" protected (they run
//     commands on the user's next git call), and so are Claude Code's
//     ".claude/settings.json" and ".claude/settings.local.json" (hooks
//     run commands; permissions widen the agent's; the Parallax hook is
//     registered there), with ~/.claude.json (the MCP servers Claude Code
//     starts). Writing the first part of such a rule (".git",
//     ".claude": a directory moved or copied there, a gitdir file) is
//     judged as writing what it would hold.
//   - A change of any path below a root, existing or not (CheckTreeWrite:
//     git checking out a commit, a stash or a patch into a tree), needs
//     review when the tables hold an entry below the root; the root itself
//     is checked as written (git checkout -- .claude is a write of .claude).
//   - Deleting (or moving away) a directory that holds a protected path is
//     judged as touching that path: deleting the workspace root, the home,
//     /etc or "/" is blocked. So is writing (moving, copying, linking) a
//     directory that does not exist yet where it would hold one: ~/.vim
//     would hold ~/.vim/plugin (the workspace, the home and their
//     ancestors are taken to exist).
//   - Agent configuration directories (.claude, .vscode, ~/.cursor, …
//     up to the home or workspace) cannot be written as a whole (mv dir
//     .claude, cp -r, ln -s, rsync or tar -x into it, a rename onto it):
//     that would put a configuration in place that no file check saw.
//     Files inside them are judged one by one. Creating one empty
//     (CheckMkdir: mkdir, create_directory) is free where nothing exists
//     at the path or a directory does; a link or a file there, or a ".."
//     spelling, keeps the rule.
//   - Globs: a pattern stands for every path it could match. It is matched
//     segment by segment (path.Match per segment, "**" for any number of
//     directories, bash "[!…]", POSIX classes and extglob handled
//     conservatively) against every protected path, the component rules,
//     the name rules and /proc; a link in its literal leading directory
//     is resolved; then it is expanded against the filesystem (at most
//     4096 entries, else Block) and every match goes through Check, which
//     catches links and secret files behind wildcards.
//   - Case: Linux compares names case-sensitively; macOS (lists_darwin.go)
//     folds case and stores /etc, /var and /tmp entries under /private
//     too. The home and workspace are also matched under their resolved
//     spelling.
//   - Speed: tables are maps keyed by absolute path, walked from the
//     longest prefix; no regexp; about 250 ns per check plus one Lstat per
//     existing path component. Nothing is cached across calls.
//
// Choices:
//   - The tiers review content: creating an empty directory (CheckMkdir)
//     where only a tier applies (.claude/skills, memory/) is free; what is
//     later written inside is judged file by file.
//   - Shell rc files (.bashrc, .zshrc, .profile, …) are protected only
//     directly under the home (and ~/.config/fish etc.): a .bashrc inside a
//     project, such as a dotfiles repository, is an ordinary file.
//   - Public keys (*.pub) may be read inside ~/.ssh and /etc/ssh; writing
//     or deleting anything there stays blocked (authorized_keys). Every
//     other file there, known_hosts and config included, is restricted:
//     they map the hosts the user reaches.
//   - When the home is /root (running as root), /root is the user's home
//     and is protected part by part instead of as a whole.
//   - Bash's leading-dot rule applies to CheckGlob: "*" does not match
//     ".ssh". CheckGlobDot is for dotglob and for glob libraries without
//     that rule. Component rules in patterns always keep the dot rule (or
//     every wildcard could be a ".ssh" somewhere); expansion still checks
//     what exists. A final segment of bare stars ("dir/*") is judged as
//     listing the directory plus what expansion finds, not by name rules.
//   - The workspace's .parallax under a recursive operation
//     (CheckInternals, internals.go): unless the guard is built
//     WithInternalsHidden (the own agent, whose per-command sandbox hides
//     it), what the operation reaches there is listed (bounded: 4096
//     entries, depth 8, over that: writes BLOCK, reads ESCALATE) and put
//     through its selection (a Selector: find's expression, grep's
//     filters, the consumer's search). A change reaching any entry
//     BLOCKs; a read aimed at a token, the audit chain or the database
//     BLOCKs; an unfiltered search is tested against the tokens' content
//     (a match BLOCKs) and the records' (a match ESCALATEs); a reader
//     that shows whole files ESCALATEs.
//   - The guard does not look inside other directories: a recursive read of a
//     directory holding a .env is judged as a read of the directory.
//     Contents are for DLP and IFC. The typed walks (list_directory,
//     search_files) ask Check about each entry they meet and skip what
//     it blocks (internal/tools/files, Config.Judge).
//   - A path with percent escapes is judged as written and as decoded
//     once (action.PercentDecoded), worst wins.
//   - Unicode normalisation (macOS NFD) is not modelled; payload path
//     fields with look-alike characters are refused before the guard
//     (action.CheckPathEncoding), shell words are not.
//
// The tables are compiled in (lists.go for every OS, lists_<os>.go for
// system paths) and are not user-extensible. The package imports only
// action and verdict of ours.
package guard
