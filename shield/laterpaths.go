package shield

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/parallax/parallax/inject"
)

// Bounds on the paths read from one text for later: at most
// maxLaterWords words that read as paths are looked at, for at most
// maxLaterPaths paths, each looked for a verb at most writeLookback bytes
// back, in its own clause.
const (
	maxLaterWords = 256
	maxLaterPaths = 32
	writeLookback = 120
)

// writeVerb is a verb (or a shell redirect) that makes the path after it
// a place to write.
var writeVerb = regexp.MustCompile(`\b(?:write|writes|writing|overwrite|overwrites|rewrite|rewrites|edit|edits|modify|modifies|` +
	`change|changes|update|updates|append|appends|prepend|add|adds|insert|inserts|put|replace|replaces|delete|deletes|remove|` +
	`removes|rm|truncate|create|creates|save|store|move|mv|copy|cp|chmod|chown|touch|tee|patch|install|drop|place|empty|wipe|` +
	`clear|echo|sed|plant|inject)\b|>`)

// clauseEnds end the clause a verb must share with its path.
var clauseEnds = []string{". ", "; ", "\n", "! ", "? "}

// writtenPaths returns the absolute, clean paths that text names as
// places to write: a word that reads as a path (absolute, under ~ or
// $HOME, or relative to the workspace, a bare file name included) with
// a write verb or a redirect before it in its clause.
func writtenPaths(text, ws, home string) []string {
	return namedPaths(text, ws, home, writeVerb)
}

// readVerb is a verb that makes the path after it something to read or
// hand on.
var readVerb = regexp.MustCompile(`\b(?:read|reads|open|opens|cat|paste|pastes|print|prints|show|shows|dump|dumps|` +
	`send|sends|upload|uploads|attach|attaches|include|includes|share|shares|post|posts|copy|copies|cp|grab|fetch|get|` +
	`load|loads|source|type|export|forward|email|mail)\b`)

// readPaths returns the paths text names as things to read or hand on,
// as writtenPaths does for writes.
func readPaths(text, ws, home string) []string {
	return namedPaths(text, ws, home, readVerb)
}

// namedPaths returns the paths text names with one of verbs before them
// in their clause, not negated.
func namedPaths(text, ws, home string, verbs *regexp.Regexp) []string {
	var out []string
	low := strings.ToLower(text)
	words := 0
	for start := 0; start < len(text) && len(out) < maxLaterPaths && words < maxLaterWords; {
		for start < len(text) && isSpace(text[start]) {
			start++
		}
		end := start
		for end < len(text) && !isSpace(text[end]) {
			end++
		}
		word, off := trimWord(text[start:end])
		at := start + off
		start = end
		p, ok := pathOf(word, ws, home)
		if !ok {
			continue
		}
		words++
		if slices.Contains(out, p) || !verbBefore(low, at, verbs) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimWord strips quotes, brackets, redirects and trailing punctuation
// from a word, and returns how many bytes it dropped in front.
func trimWord(w string) (string, int) {
	n := len(w)
	w = strings.TrimLeft(w, "\"'`([{<>*")
	off := n - len(w)
	w = strings.TrimRight(w, "\"'`)]}>,;:!?*.")
	return w, off
}

// pathOf resolves a word that reads as a path, or reports false.
func pathOf(w, ws, home string) (string, bool) {
	if len(w) < 2 || strings.Contains(w, "://") || strings.ContainsAny(w, "@$=|&") && !strings.HasPrefix(w, "$") {
		return "", false
	}
	switch {
	case strings.HasPrefix(w, "~/"):
		w = home + w[1:]
	case strings.HasPrefix(w, "$HOME/"):
		w = home + w[5:]
	case strings.HasPrefix(w, "${HOME}/"):
		w = home + w[7:]
	case strings.HasPrefix(w, "$"):
		return "", false
	case strings.HasPrefix(w, "/"):
	case strings.ContainsAny(w, "/.") && !strings.HasPrefix(w, "-"):
		w = ws + "/" + w
	default:
		return "", false
	}
	return path.Clean(w), true
}

// verbBefore reports whether one of verbs (not negated: "don't
// touch", "never edit") comes before offset at in low, within
// writeLookback bytes and the same clause.
func verbBefore(low string, at int, verbs *regexp.Regexp) bool {
	from := max(0, at-writeLookback)
	win := low[from:at]
	for _, e := range clauseEnds {
		if i := strings.LastIndex(win, e); i >= 0 {
			win = win[i+len(e):]
		}
	}
	for _, m := range verbs.FindAllStringIndex(win, -1) {
		if !inject.Negated(win[:m[0]]) {
			return true
		}
	}
	return false
}
