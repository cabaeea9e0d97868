package engine

import (
	"os"
	"slices"
	"strings"
)

// gitConfigSafe lists what a repository's configuration a command
// created may hold and stay: section (lowercase, without its subsection)
// and the keys allowed in it. Everything else counts as code git would
// run (a monitor, a pager, an editor, hooks, filter, diff and merge
// drivers, upload-pack and receive-pack programs, tool commands, aliases,
// includes, protocol and URL rewrites…), so a key git adds later is
// refused until it is listed here, never let through for being unknown.
var gitConfigSafe = map[string][]string{
	"core": {"repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase", "precomposeunicode",
		"symlinks", "autocrlf", "eol", "safecrlf", "quotepath"},
	"extensions": {"objectformat"},
	"user":       {"name", "email"},
	"init":       {"defaultbranch"},
	"remote":     {"url", "pushurl", "fetch", "push", "tagopt", "prune", "mirror"},
	"branch":     {"remote", "merge", "rebase", "pushremote"},
	"pull":       {"rebase", "ff"},
	"push":       {"default", "autosetupremote"},
	"fetch":      {"prune"},
}

// gitConfigRunsCode reports whether the git configuration at p may make
// git run a program: whether it holds anything gitConfigSafe does not
// list, a URL naming a transport that runs a command (ext::, fd::) or an
// option (a leading -), or a line it cannot read. A file it cannot read,
// or a large one, counts as yes.
func gitConfigRunsCode(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 1<<20 {
		return true
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			var ok bool
			if section, ok = gitSection(line); !ok {
				return true
			}
			continue
		}
		name, value, _ := strings.Cut(line, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		if !gitName(name) || !gitKeyAllowed(section, name) || strings.HasSuffix(value, `\`) {
			return true
		}
		if (name == "url" || name == "pushurl") && (strings.HasPrefix(value, "-") || strings.Contains(strings.ToLower(value), "ext::") ||
			strings.Contains(strings.ToLower(value), "fd::")) {
			return true
		}
	}
	return false
}

// gitSection is the lowercase section of a header line, [core] or
// [remote "origin"] (or the older [remote.origin]); ok is false for
// anything else on the line.
func gitSection(line string) (string, bool) {
	end := strings.LastIndexByte(line, ']')
	if end < 0 {
		return "", false
	}
	if rest := strings.TrimSpace(line[end+1:]); rest != "" && rest[0] != '#' && rest[0] != ';' {
		return "", false
	}
	inner := strings.TrimSpace(line[1:end])
	name, _, _ := strings.Cut(inner, " ")
	name, _, _ = strings.Cut(name, ".")
	name = strings.ToLower(name)
	return name, gitName(name)
}

// gitName reports whether s is a plain variable or section name.
func gitName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func gitKeyAllowed(section, key string) bool { return slices.Contains(gitConfigSafe[section], key) }
