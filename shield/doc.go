// Package shield is the gate: every proposed action passes through a named
// table of stages (decode, verify, guard, fast path, policy, text for
// later, heuristics, information flow, judge) and comes out as one verdict.
//
// Defenses:
//   - Fail closed: every stage returns a decision; an error, a panic inside
//     a stage, an unknown action or an unparsable payload ends as BLOCK with
//     a reason. There is no code path that allows on error.
//   - The fast path is an optimisation, never a bypass: it only allows
//     single, metacharacter-free commands of known programs whose arguments
//     name no paths, and the policy's deny rules still apply to it. Every
//     word that may still name a file (git blame id_rsa, the PATH of git
//     show HEAD:.env) goes to the guard first: any finding sends the
//     command to the full analysis. Tests check it against the full
//     analysis on the real corpus and against a hand-written table.
//   - Shell commands are judged by their analysed effects (shell package):
//     every path the command touches goes through the guard, the policy and
//     the heuristics, however it is spelled.
//   - Text handed on for later (a sub-agent's task, a message to an agent
//     or a channel, a memory, a scheduled task, an invitation) is judged
//     as a tool result is: as instructions (package inject, ScopeLater),
//     by content (a secret: BLOCK; personal data into memory: review) and
//     against the guard (a path it names for writing), before the
//     heuristics (later.go).
//   - Code in project files is judged when written and when run (runfiles.go,
//     package runfile): a write of a Makefile, package.json, setup.py,
//     conftest.py, shell script or hook is blocked when any part of it would
//     be blocked as a command; make, npm/yarn/pnpm, pip install ., pytest,
//     git commit/push, bash x.sh and ./x.sh read what they will run from
//     disk (bounded) and judge it through the same stages in the same
//     session (runfile_code). For files an agent wrote (recorded per session
//     and in the activity table as agent_written), what would need review
//     and code that cannot be read escalate (runfile_review,
//     runfile_unknown); such commands leave the fast path. A justfile's
//     recipes and a tox.ini's commands are read the same way (just, tox);
//     build.rs, Gradle, CMake, Maven and in-tree Python backend files are
//     code the analyser cannot read: a write is judged by the commands its
//     text spells out, and cargo, gradle, cmake, mvn or pip install . of
//     one the agent wrote escalates (runfile_unknown).
//   - A dependency manifest or package-manager setting pointed at a
//     source other than the default registry (a git or tarball URL,
//     another index or registry, a go.mod replace to a module or a
//     directory outside the workspace), by a write, an edit, go mod edit
//     -replace or npm pkg set, needs review (manifests.go,
//     manifest_source).
//   - Without a judge, what needs tier 2 comes back ESCALATE; callers that
//     cannot escalate must treat ESCALATE as BLOCK.
//   - No taint is lost to a fault: Observe writes the session's taint
//     first, raises it to critical when anything after fails, and keeps a
//     taint the store cannot write in a process-wide set per workspace;
//     while that set is not empty every Evaluate retries it and the whole
//     workspace is refused (taint_unrecorded).
//   - A request may carry the environment its command runs with
//     (Request.Env, env.go; only EnvNames, and only when its HOME and PWD
//     are the gate's): $TMPDIR, $PATH and mktemp's names resolve, a loop's
//     globs are expanded against the workspace's entries (a directory
//     below a dot directory or of more than 1024 entries is not listed)
//     and a sourced workspace file (. .venv/bin/activate) is walked in the
//     command's shell (at most 64 KiB, never in .parallax, links followed
//     and checked). The own agent's engine sets it and refuses to start a
//     command whose environment differs; without it nothing changes.
//   - Reasons name the rule and the offending part and are bounded in
//     length; they never contain payload secrets.
package shield
