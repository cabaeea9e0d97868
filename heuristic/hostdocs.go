package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// Claude Code's skills, sub-agents and slash commands are Markdown files
// whose YAML front matter may declare hooks: commands the host runs on
// its events while the skill, agent or command is active. A write that
// declares them is a hook configuration, as a hooks entry of
// .claude/settings.json is (guard: protected), not an instruction a
// reviewer reads: tier 1 blocks it. A plugin's hook file
// (hooks/hooks.json) and a plugin manifest naming hooks are the same.

// hostDocDirs are the directories below a ".claude" directory whose
// Markdown files Claude Code loads as the agent's instructions.
var hostDocDirs = [...]string{"skills", "agents", "commands", "rules", "output-styles", "plugins"}

// hostDocDir returns the directory of hostDocDirs p lies in below a
// ".claude" directory (workspace, nested project, ~/.claude), or "".
func hostDocDir(p string) string {
	for rest := p; ; {
		i := strings.Index(rest, "/.claude/")
		if i < 0 {
			return ""
		}
		rest = rest[i+len("/.claude/"):]
		for _, d := range hostDocDirs {
			if strings.HasPrefix(rest, d+"/") {
				return d
			}
		}
	}
}

// hostDocFile reports whether p is a Markdown file Claude Code loads as
// instructions from a .claude directory (a skill, a sub-agent, a command,
// a rule, an output style, any of them in a plugin).
func hostDocFile(p string) bool {
	return hostDocDir(p) != "" && strings.HasSuffix(strings.ToLower(p), ".md")
}

// matchHostHookConfig fires on a write that adds hooks to a skill,
// sub-agent or command (a "hooks:" key in the front matter, or a new
// top-level "hooks:" line in an edit of one), or that writes a plugin's
// hook configuration.
func matchHostHookConfig(in *Input) (string, bool) {
	p, text, old := "", "", ""
	switch w := in.Action.Payload.(type) {
	case *action.WriteFilePayload:
		p, text = w.Path, w.Content
	case *action.EditFilePayload:
		p, text, old = w.Path, w.New, w.Old
	default:
		return "", false
	}
	dir := hostDocDir(p)
	base := strings.ToLower(p[strings.LastIndexByte(p, '/')+1:])
	switch {
	case dir == "":
		return "", false
	case dir == "plugins" && base == "hooks.json":
		return "plugin hook configuration " + tilde(p, in.Home), true
	case dir == "plugins" && base == "plugin.json" && strings.Contains(text, `"hooks"`):
		return "plugin manifest with hooks " + tilde(p, in.Home), true
	case !strings.HasSuffix(base, ".md"):
		return "", false
	}
	if _, ok := in.Action.Payload.(*action.WriteFilePayload); ok {
		if frontMatterKey(text, "hooks") {
			return "hooks in the front matter of " + tilde(p, in.Home), true
		}
		return "", false
	}
	if topLevelKey(text, "hooks") && !topLevelKey(old, "hooks") {
		return "hooks added to " + tilde(p, in.Home), true
	}
	return "", false
}

// frontMatterKey reports whether a Markdown document opens with YAML
// front matter ("---" lines) that has the top-level key.
func frontMatterKey(doc, key string) bool {
	doc = strings.TrimPrefix(doc, "\ufeff")
	doc = strings.ReplaceAll(doc, "\r\n", "\n")
	rest, ok := strings.CutPrefix(doc, "---\n")
	if !ok {
		return false
	}
	if end := strings.Index(rest, "\n---"); end >= 0 {
		rest = rest[:end+1]
	}
	// An unclosed front matter is all front matter: the host may read it so.
	return topLevelKey(rest, key)
}

// topLevelKey reports whether a line of text is a top-level YAML mapping
// key ("hooks:", "'hooks' :", "HOOKS:"), not indented.
func topLevelKey(text, key string) bool {
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		k, _, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}
