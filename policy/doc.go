// Package policy is tier 0 of Shield: a YAML policy language, three
// embedded presets (default, permissive, strict), and the tools around
// them (lint, explain, case tests). It decides without an LLM whether an
// action is denied, needs at least a given tier, or is allowed.
//
// # Language
//
//	deny:   [{name, action_types, paths, ...}]         # sections: deny, verify, allow
//	verify: [{name, action_types, ..., tier: 1|2|3}]   # minimum tier for what matches
//	allow:  [{name, action_types, ...}]
//	rules:  [{kind, effect, pattern, priority, reason, tier?, action_types?, name?}]
//
// Section entries take: name (required, unique in the file; letters,
// digits, _ . -), description, reason, action_types (catalog names or
// globs such as "git_*" and "*"; omitted means every type), paths and
// paths_outside (doublestar globs; ~, $HOME, $WORKSPACE expanded at load
// time, values glob-escaped), access (read, write, delete), commands
// (regexes over the raw command of execute_command and of a scheduled
// command), programs and subcommands (program base names from the shell
// analysis), domains ("example.com", "*.example.com" for subdomains, "*",
// or a glob), capabilities (shell tag names such as force_push, and sink
// names such as http_request), methods (HTTP methods of http_request),
// recursive (delete_file and list_directory), tier (verify only, 1..3)
// and fallback. All conditions given must hold; the values of one
// condition are alternatives. A rule must name at least one condition
// (write action_types: ["*"] to match everything).
//
// rules: entries are Cortex style: kind (tool: the action type; shell:
// the command string; domain: each host; path: each path; capability:
// each tag and the sink), effect (deny, verify, allow), pattern (an RE2
// regex, unanchored), priority (lower first; ties keep file order), tier
// (verify only, default 2) and an optional name (default "rules[i]").
//
// # Evaluation
//
// The first matching deny rule denies. Otherwise the highest tier over
// every matching verify rule is required (the first rule with that tier
// is reported). Otherwise the first matching allow rule allows. Otherwise
// fallback rules (fallback: true) decide in the same order: deny, verify,
// allow. Otherwise the result is None and the next tier decides. The
// rules: list is a first-match chain: its first matching entry (by
// priority) then counts as if written in its effect's section — so a
// chain entry can shadow later chain entries (Cortex semantics) but
// never lifts a section deny. An action whose type is not in the catalog,
// a nil action or a nil policy, is denied.
//
// With layers user policies (~/.parallax/policy.yaml, then
// $WORKSPACE/.parallax/policy.yaml) over a preset: all deny rules first
// (base, then layers), then all verify, then all allow, then fallbacks;
// the chains merge by priority. Restrictions win: a user allow cannot
// lower a tier or lift a deny from the preset. To relax, choose another
// base (--policy permissive or a policy FILE). Names are unique within a
// file; across layers a Result's Source tells same-named rules apart.
//
// The gate must fill Input.Paths and Input.Hosts with everything the
// action touches (NewInput does): a path or host left out cannot be
// denied, and an unknown host must be passed as "" rather than dropped,
// so that allow rules with domains do not clear it.
//
// # Defenses and decisions
//
//   - Strict load: unknown keys, wrong YAML types (strings must be YAML
//     strings; tiers and priorities integers), duplicate keys or names,
//     empty lists, bad regexes and globs, unknown action types or globs
//     that match none, unknown capabilities, unset variables, relative
//     patterns, tiers outside 1..3, YAML aliases and extra documents all
//     fail the load with file, line and rule. Nothing is skipped.
//   - Sound matching under uncertainty. Deny and verify rules match "may"
//     semantics: some path, host, program or capability matches. Allow
//     rules match "must" semantics: every path, host, program and
//     capability matches, and there is at least one. The access list
//     selects which path uses a rule looks at (all when omitted); uses
//     outside it are ignored, also by allow rules — so an allow rule
//     with access: [write] says nothing about what the action reads, and
//     deny rules (evaluated first) must cover sensitive reads. A shell glob path
//     may match a pattern when their literal prefixes and suffixes are
//     compatible and each literal directory of the pattern is matched by
//     the glob's segment at that depth (over-approximation: a shell glob
//     never crosses "/"), and must match only a "D/**"
//     pattern whose directory contains the glob's literal prefix
//     (under-approximation). Relative paths, ".." inside globs, unknown
//     hosts ("") and dynamic program names may match anything and must
//     match nothing. Unknown access (0) counts as read+write+delete.
//   - "Not under" is paths_outside: the path lies outside every listed
//     glob. With paths, both must hold for the same path.
//   - For programs with subcommands, "may" accepts any argument equal to
//     a listed subcommand (so `git -C dir push` is caught); "must" takes
//     the first argument that does not start with "-".
//   - path kind regexes see a shell glob's text and its literal prefix;
//     regexes cannot be compared with globs soundly, so prefer paths:
//     globs in sections for security rules.
//   - Paths are case-sensitive; the guard handles case-folding systems.
//   - Reasons name the rule, the action type and the offending path,
//     program, host or capability; never command text, bodies or URLs.
//   - Evaluate allocates only the reason string: globs are classified at
//     load time (exact, "D/**" prefix test, literal prefix/suffix filter
//     before doublestar) and rules are indexed by action type.
package policy
