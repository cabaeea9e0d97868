// Package shell statically analyses bash commands and reports their
// Effects: the paths they read, write and delete, the programs they run,
// the network destinations they talk to, the data flows into network
// programs, and named facts (Tags) such as a download being executed.
//
// Analyze never executes anything, never reads the file system or the
// environment of the process, never panics and never fails: what it
// cannot resolve is reported (TagOpaque, TagDynamicCommand, TagEval), a
// bound that was hit is reported (TagLimitExceeded), and a recovered
// internal error is reported as TagOpaque "internal error". Consumers must
// treat every such tag as "the effects may be larger than listed".
//
// # Defenses
//
// Effects are judged, not spelling. The analyser resolves words the way
// bash expands them:
//
//   - quotes, backslashes, $'...' ANSI-C escapes and letters split by
//     quotes (c\at, 'c'a"t"): resolved, and tagged as obfuscation when
//     they hide a command name;
//   - variables assigned in the command (a=ca; b=t; $a$b), ${HOME}, ${x:-d},
//     ${x#p}, ${x/a/b}, case changes, slices; $IFS used as a separator;
//   - command substitutions whose output is known ($(echo cat)), brace
//     expansion ({cat,/etc/shadow}, bounded), glob command names
//     (/bin/c?t matched against well-known programs);
//   - decoding layers in pipelines and substitutions: base64/base32,
//     xxd -r, rev, tr (rot13 and friends), printf and echo -e escapes,
//     gzip, openssl base64, nested to any depth within the bounds;
//     decoded data that is executed is TagDecodedExec;
//   - nested code: sh -c (with $0, $1, ... bound to its arguments), eval,
//     source, here-documents, here-strings and pipes into a shell,
//     wrappers (sudo, env, timeout, nohup, xargs, find -exec, ...), and
//     inline code of interpreters (below);
//   - inline code (python -c, perl -e, ruby -e, node -e/-p, php -r,
//     lua -e, Rscript -e, deno eval, bun -e, awk programs, and scripts
//     piped or given as here-documents) is analysed for what it can do,
//     by the language's APIs under any local name the code gives them
//     (import x as y, from x import y, {a: b} = require("x"), g = f):
//     file APIs are paths with their access, network APIs destinations,
//     process APIs commands (analysed one level deeper when literal),
//     eval, dynamic imports and reflective calls (getattr, send,
//     call_user_func, x[name], $f()) code; a reflective call with a literal
//     name (getattr(os, "system")(c), Kernel.send(:system, c),
//     call_user_func("system", c)) is also analysed as the call it names.
//     Arguments are evaluated:
//     concatenations, interpolations ("$ENV{HOME}", "#{x}", f"{x}",
//     `${x}`), path joins, the home directory and $HOME in any of their
//     spellings, character codes and escapes, the code's own arguments
//     and variables assigned once. What stays unknown is recorded as
//     unknown (an unresolved path of that access, an unresolved host,
//     dynamic code), never as nothing; a module that talks to the
//     network or runs programs, used in a way the tables do not describe,
//     is an unknown use of it. Code that can reach the network sends
//     what it reads (files, the environment, its input: flows); code
//     that prints what it reads of the environment prints it;
//   - data flows: file, environment and command-output sources followed
//     through pipes, substitutions, variables and redirections into
//     network programs; downloads that are executed (curl | sh, a
//     downloaded file run later, <(curl ...)); /dev/tcp sockets and shells
//     wired to them; fork bombs;
//   - path sets instead of opaque values: the files find selects (for
//     -exec {}, -delete, its output piped to xargs or read by a loop) are
//     a recursive set "ROOT/**" narrowed by a lone -name/-iname
//     (PathUse.Recursive); ls and grep -l output are sets too; a loop over
//     a glob binds its variable to the glob; outputs that are one token
//     ($(uname -r), $(date +%F), $(whoami), $(wc -l), $((...)), $$) are *
//     within one path segment.
//   - names split by the channel that carries them: xargs without -0/--null
//     (or -d other than NUL, -I), an unquoted $(...) or backticks, a loop
//     over them and read split a listing's names on blanks or newlines, so
//     a planted "z .. q.tmp" hands its consumer ".." and "."; a consumer
//     that recurses into a directory operand (rm -r, chmod -R, cp -r, mv,
//     tar, grep -r, du, find, ...) also gets those pieces, recorded with
//     PathUse.Split (split.go). Consumers that do not recurse (sed -i, cat,
//     wc, grep, rm without -r) do not.
//   - writes through git are writes: the subcommands that check content
//     out into the work tree (checkout, switch, restore, reset --hard/
//     --merge/--keep, stash, apply, am, merge, rebase, cherry-pick,
//     revert, pull, read-tree -u, checkout-index, bisect, sparse-checkout,
//     filter-branch, subtree, merge-file) record trees that may hold paths
//     that do not exist yet (PathUse.Creates, "ROOT/**"): each pathspec's
//     (resolved against the directory, -C and --work-tree; a wildcard, a
//     magic pathspec or an unknown word stands for more), or the whole
//     work tree. What moves only HEAD or the index (reset --soft/--mixed,
//     restore --staged, checkout -b NAME) writes nothing of the tree;
//     clean deletes what exists. An alias given with -c is analysed as
//     what it stands for; --git-dir, core.worktree and git's variables in
//     the command's environment (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG*) are
//     opaque;
//   - what the knowledge base does not describe is not harmless: the
//     operands of a subcommand it does not list (git frobnicate, docker
//     container frob), the word after an option it does not list and the
//     value of an unknown --option=VALUE are RoleOperand, read when they
//     look like paths (or dot-files) and destinations when they are URLs;
//     git object names REV:PATH and :N:PATH read PATH;
//   - signals are judged by where their target comes from (Effects.Signals,
//     killtarget.go): a kill reaches the command's own process only when
//     every unknown part of its operand is $! (carried through variables,
//     function arguments, loops and joins) or a job spec; a PID from a
//     process listing, a pid file, a substitution, a pipe into xargs or a
//     while-read loop, awk system(), or any variable not tied to $! is a
//     process the command did not start, in any function or loop and under
//     any variable name. kill -1, killall5, pkill -u and unfiltered
//     listings reach every process; the names a kill of listed PIDs
//     reaches are those its filters (pgrep, grep, awk, [ ], [[ ]], case)
//     compare with. Signal 0 and signal listings send nothing; timeout
//     signals its own child; docker kill is a container operation;
//   - Parallax's own CLI is known by its name from any directory
//     (./bin/parallax, $GOPATH/bin/parallax, $(which parallax),
//     $(command -v parallax), $(type -P parallax), a variable holding
//     one of those) and through go run of its main package (a package
//     path ending in cmd/parallax, a file of it, a "..." pattern).
//
// Bounds: input size (Options.MaxBytes), nesting depth (MaxDepth), work
// (MaxNodes), syntactic nesting before parsing (MaxSyntaxNesting: 128
// levels of subshells, substitutions, groups), brace expansion and
// decoded sizes.
//
// # Known limits
//
//   - Unset variables and positional parameters ($dir, $1, "$@") are
//     unknown unless the caller names the executor's environment
//     (Options.Env). Paths built from them are opaque. With Options.Env's
//     TMPDIR, mktemp and tempfile in that directory name a fresh file there
//     (tempname.go: the template as written, "$TMPDIR/tmp.XXXXXXXXXX"); a
//     TMPDIR the command assigns, unsets or passes (X=v, env, export)
//     leaves them unknown. Options.Glob expands the globs of a for loop's
//     word list (at most 8 words and 8 listings per analysis; bash's
//     default rules: no dot names, no [ ] classes) and Options.Source reads
//     a file a source builtin runs by a name with a "/" (at most 4 per
//     analysis), walked in the command's shell: both read the disk when
//     the command is analysed, so what changes before it runs is judged as
//     it was.
//   - Program names are trusted to be the system's programs (the knowledge
//     base describes /usr/bin/find, not ./find). A PATH assigned in the
//     command disables token shapes, but a program planted earlier in a
//     directory already on PATH, or a shadowing alias from an rc file, is
//     not seen. Token shapes also assume sane system values (a user name
//     or host name without "/").
//   - Path sets describe names, not what is on disk: symbolic links below
//     a find root, and file names holding blanks or newlines when find or
//     ls output is split into words (xargs without -0, for f in $(find)),
//     can make a command touch paths outside its set. find -print0 | xargs
//     -0 and find -exec are exact.
//   - Code in other languages is scanned, not parsed nor run: calls are
//     recognised by the tables in codetables.go, values by what the
//     evaluator follows (codeexpr.go); the rest is unknown (TagOpaque,
//     TagEval). A library the tables do not list that reaches the network
//     or runs programs with a literal destination or command is seen
//     through its literals (URLs, absolute paths) only. A variable is
//     known only when assigned once, plainly, at the start of a
//     statement; code larger than 32 KiB or 8192 tokens is unknown.
//   - Redirection targets and here-documents of functions are analysed
//     where the function is defined, not per call; loops are walked once
//     per known item (at most 8), else once with the variable unknown or
//     a token set.
//   - Arithmetic is not evaluated; array elements are unknown.
//   - git's work tree: without --work-tree, the top of a repository is
//     taken to be at most Options.Cwd when the command works inside it
//     (the workspace), else the command's directory: a workspace inside a
//     larger repository, or a repository above a directory the command
//     moved to outside the workspace, is written further out than
//     recorded. Aliases from git's configuration files (git co = checkout)
//     are not known: an unknown subcommand's operands are read, not
//     written. A single operand of git checkout that may name a commit
//     (src/main.go) is both a branch switch and a pathspec.
//   - An undescribed operand is a path only by its shape, or when it is
//     the default name of a private key (git frobnicate id_rsa is a read
//     of ./id_rsa); another bare name is a plain value, and an option the
//     table lists as taking a plain value is trusted to take one.
package shell
