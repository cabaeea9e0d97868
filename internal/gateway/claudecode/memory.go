package claudecode

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Claude Code's memory: the files it loads into the model's context by
// itself, with no tool call (read from the 2.1.332 binary): for the
// directory it starts in and each directory above it (not /), CLAUDE.md,
// .claude/CLAUDE.md, the .md files below .claude/rules and
// CLAUDE.local.md; the user's ~/.claude/CLAUDE.md and ~/.claude/rules;
// the managed /etc/claude-code/CLAUDE.md and /etc/claude-code/.claude/rules;
// the project's auto memory (~/.claude/projects/<slug>/memory/MEMORY.md);
// and, recursively, what they @import. Rules scoped to paths (their
// paths: front matter) and subdirectories' CLAUDE.md load later, when
// Claude touches a matching file; they are read here at the start too,
// as if loaded: over-counting what the model saw only raises the taint.

// defaultManagedDir is where Claude Code reads managed memory on Linux.
const defaultManagedDir = "/etc/claude-code"

// maxRulesDepth bounds the directory levels walked below a rules directory.
const maxRulesDepth = 8

// memoryEnv is what the memory discovery needs to know.
type memoryEnv struct {
	home    string // what ~ means
	managed string // the managed settings directory
}

// memoryFiles lists the memory files Claude Code loads for a session in
// the directories dirs (the session's cwd and project directory), user
// and managed files first, each path once. Rules directories are walked
// within the bounds; a directory that cannot be listed is skipped, as
// Claude Code skips it.
func memoryFiles(env memoryEnv, dirs ...string) []memorySource {
	var out []memorySource
	seen := map[string]bool{}
	add := func(path, what string) {
		if path = filepath.Clean(path); !seen[path] {
			seen[path] = true
			out = append(out, memorySource{path: path, what: what})
		}
	}
	if env.managed != "" {
		add(filepath.Join(env.managed, "CLAUDE.md"), "managed memory file")
		for _, r := range rulesFiles(filepath.Join(env.managed, ".claude", "rules")) {
			add(r, "managed rule")
		}
	}
	claude := filepath.Join(env.home, ".claude")
	add(filepath.Join(claude, "CLAUDE.md"), "user memory file")
	for _, r := range rulesFiles(filepath.Join(claude, "rules")) {
		add(r, "user rule")
	}
	for _, d := range projectDirs(dirs) {
		add(filepath.Join(d, "CLAUDE.md"), "project memory file")
		add(filepath.Join(d, ".claude", "CLAUDE.md"), "project memory file")
		for _, r := range rulesFiles(filepath.Join(d, ".claude", "rules")) {
			add(r, "project rule")
		}
		add(filepath.Join(d, "CLAUDE.local.md"), "local memory file")
	}
	for _, d := range dirs {
		if slug := projectSlug(d); slug != "" {
			add(filepath.Join(claude, "projects", slug, "memory", "MEMORY.md"), "auto memory file")
		}
	}
	return out
}

// memoryDirFiles lists the memory files of one added working directory
// (DirectoryAdded): its CLAUDE.md, .claude/CLAUDE.md, rules and
// CLAUDE.local.md, not those above it.
func memoryDirFiles(dir string) []memorySource {
	out := []memorySource{
		{filepath.Join(dir, "CLAUDE.md"), "memory file of an added directory"},
		{filepath.Join(dir, ".claude", "CLAUDE.md"), "memory file of an added directory"},
	}
	for _, r := range rulesFiles(filepath.Join(dir, ".claude", "rules")) {
		out = append(out, memorySource{r, "rule of an added directory"})
	}
	return append(out, memorySource{filepath.Join(dir, "CLAUDE.local.md"), "memory file of an added directory"})
}

// memorySource is one memory file and how Claude Code loads it.
type memorySource struct{ path, what string }

// projectDirs lists each directory in dirs and every directory above it,
// but not /, from the top down, each once.
func projectDirs(dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		var chain []string
		for d = filepath.Clean(d); d != filepath.Dir(d); d = filepath.Dir(d) {
			chain = append(chain, d)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			if !seen[chain[i]] {
				seen[chain[i]] = true
				out = append(out, chain[i])
			}
		}
	}
	return out
}

// projectSlug is the name of a project's directory under
// ~/.claude/projects: its path with every character but letters and
// digits turned into "-". Longer names Claude Code shortens with a hash
// this hook does not compute: "" (InstructionsLoaded does not report auto
// memory either; a limit).
func projectSlug(dir string) string {
	b := []byte(dir)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	if len(b) > 200 {
		return ""
	}
	return string(b)
}

// rulesFiles lists the .md files below a rules directory, sorted,
// following symbolic links to directories once each, at most
// MaxChannelFiles of them (the scanner records what is past its bound).
func rulesFiles(dir string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || seen[real] || depth > maxRulesDepth || len(out) > MaxChannelFiles {
			return
		}
		seen[real] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			st, err := os.Stat(p) // through a link: what Claude Code reads
			switch {
			case err != nil:
			case st.IsDir():
				walk(p, depth+1)
			case strings.EqualFold(filepath.Ext(e.Name()), ".md"):
				out = append(out, p)
			}
		}
	}
	walk(dir, 0)
	sort.Strings(out)
	return out
}

// importWord is what Claude Code 2.1.332 takes as an import: "@" at the
// start of a markdown text token or after white space, then a run of
// characters that are not white space (a backslash escapes a space).
// Text tokens start after emphasis, links and inline HTML too: here any
// character but a letter or a digit may stand before the "@".
var importWord = regexp.MustCompile(`(?:^|[^A-Za-z0-9])@((?:[^\s\\]|\\ )+)`)

// memoryImports lists the files a memory file imports, as absolute
// paths: "@path" outside code blocks, code spans and HTML comments;
// "~/" is the home, a relative path is relative to the importing file's
// directory, "#..." is cut off. Where the parse here and Claude Code's
// markdown lexer may differ, this one takes more words as imports, not
// fewer: a word that ends in markdown punctuation ("@a.md**", from
// "**@a.md**") is tried as written and cut at the punctuation.
func memoryImports(content []byte, file, home string) []string {
	text := stripHTMLComments(stripCode(string(content)))
	var out []string
	seen := map[string]bool{}
	for _, m := range importWord.FindAllStringSubmatch(text, -1) {
		for _, w := range importCandidates(m[1]) {
			p, ok := importPath(w, filepath.Dir(file), home)
			if ok && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// importCandidates is the word as written and cut at the first markdown
// punctuation that may close the token it stands in.
func importCandidates(w string) []string {
	out := []string{w}
	if i := strings.IndexAny(w, "*_`~)]>|\"'"); i > 0 {
		out = append(out, w[:i])
	}
	return out
}

// importPath resolves one import word as Claude Code does, or reports
// that it is no import.
func importPath(w, dir, home string) (string, bool) {
	if i := strings.IndexByte(w, '#'); i >= 0 {
		w = w[:i]
	}
	w = strings.ReplaceAll(w, `\ `, " ")
	switch {
	case w == "" || w == "/":
		return "", false
	case strings.HasPrefix(w, "~/"):
		return filepath.Join(home, w[2:]), true
	case strings.HasPrefix(w, "/"):
		return filepath.Clean(w), true
	case strings.HasPrefix(w, "./"):
	case strings.HasPrefix(w, "@") || strings.Trim(w[:1], "#%^&*()") == "":
		return "", false
	case !isImportStart(w[0]):
		return "", false
	}
	return filepath.Join(dir, w), true
}

// isImportStart reports whether a relative import may start with c.
func isImportStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}
