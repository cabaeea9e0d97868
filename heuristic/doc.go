// Package heuristic is tier 1 of the gate: deterministic rules over the
// analysed action — the shell analyser's effects for commands, and the
// typed payload (paths, URLs, outbound text, instructions) for the rest.
//
// The rules live in one static, ordered table (Rules). Each rule names the
// action types it reads, decides BLOCK or ESCALATE (never ALLOW), and
// carries positive and negative examples that its tests run through the
// real decode → normalise → analyse → evaluate path. Evaluate returns the
// first matching BLOCK rule in table order, else the first matching
// ESCALATE rule; when nothing fires the gate goes on (ALLOW unless a later
// stage or the policy says otherwise), so the ESCALATE rules are also the
// list of what tier 1 cannot clear.
//
// The table is built once and never changes: Rules hands out a deep copy
// and a Finding holds the rule's fields by value, so no caller can edit
// what Evaluate (and the index it walks) judges by.
//
// Guarantees and defenses:
//   - Effects, not spelling: shell rules read the analyser's paths,
//     programs, destinations, flows and tags, so quoting, escapes, globs
//     and substitutions do not change the answer. Raw-text checks exist
//     only as a second net (history markers, metadata addresses).
//   - Globs are judged by what they could match: a glob path is
//     intersected with the rule patterns (bash semantics: "*" does not
//     cross "/" or match a leading dot; "[...]" may match anything).
//   - Hosts are parsed the way clients parse them: inet_aton IPv4 forms
//     (decimal, hex, octal, short), IPv6 with embedded IPv4 (mapped,
//     compatible, NAT64), percent escapes, full-width digits, wildcard DNS
//     names (nip.io, sslip.io), so no spelling of a metadata address or an
//     internal host gets through.
//   - Secrets in outbound text are found by a small scanner (secrets.go);
//     details name the kind of secret and the field, never the value.
//   - Instructions to agents (create_agent, agent_message, scheduled tasks,
//     memory) are instructions too: prompt-injection markers, requests to
//     disable the gate or send credentials out, and embedded commands that
//     tier 1 would block are blocked. So is what is written to the files an
//     agent host loads as instructions (CLAUDE.md, CLAUDE.local.md, Claude
//     Code's skills, sub-agents, commands, rules and output styles).
//   - Hooks are hook configurations wherever they are declared: a skill,
//     sub-agent or command written with a top-level "hooks" key in its
//     front matter (or edited to get one), a plugin's hooks.json or a
//     plugin manifest naming hooks is blocked (host_hook_config), as the
//     guard blocks Claude Code's settings files. Content written by a shell
//     command is not read: such a write needs tier 2 by the guard.
//   - Performance: Evaluate allocates nothing when no rule fires; rules
//     are indexed by action type once, at package initialisation.
//
// Decisions a reader should know about (DESIGN §4):
//   - Programs and scripts inside the workspace (./build.sh, ./bin/app,
//     node_modules/.bin/x) are the project's tool chain: no rule fires for
//     them being unknown. Programs run from /tmp, /dev/shm or ~/Downloads
//     escalate.
//   - Deleting a named file or directory in /tmp or /var/tmp is routine;
//     deleting a scratch directory itself or everything in it escalates.
//     Deleting anything else outside the workspace escalates; deleting /,
//     a system directory or one of its children, the home, the workspace
//     root (or an ancestor of them) blocks.
//   - Credential use in place is not credential access: "ssh -i key",
//     "kubectl --kubeconfig", "terraform show x.tfstate" read a credential
//     with the program it belongs to. Copies, archives, encodings and
//     uploads of the same file block.
//   - A secret variable sent to the service it is named after
//     ($GITHUB_TOKEN to api.github.com) is routine; to any other host it
//     escalates, and through a raw socket, a DNS query or a paste/exfil
//     service it blocks.
//   - Docker daemon, kubelet and etcd ports on internal addresses block
//     (unauthenticated root); the Kubernetes API, Consul, Vault and Nomad
//     escalate; typed http_request to any internal address escalates,
//     while shell commands reaching local dev servers are routine.
//   - Every forced push escalates (the gate cannot tell shared branches
//     from private ones).
package heuristic
