package approval

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Pattern is the narrow shape of actions a pattern grant allows. Every
// field must hold for an action to match, and a field left empty means
// "the action has none of these", never "any":
//
//   - ActionType: the same action type (no wildcards).
//   - Program: the action runs exactly one program, this one (a base
//     name, or the path as written when the command used a slash).
//     Empty: the action runs no program.
//   - PathPrefix: the action touches at least one path and every path it
//     touches is PathPrefix or below it. Empty: it touches no path.
//   - Host: the action reaches at least one host and every host is this
//     one. Empty: it reaches none.
//
// And the action's scope must not be opaque. A pattern names at least one
// of Program, PathPrefix and Host, a PathPrefix is absolute, clean and at
// least two levels deep ("/home/dev", not "/home" or "/"), and only the
// action types in PatternTypes can be covered by one: for the others
// (mail, messages, MCP calls, sub-agents, schedules…) what matters is in
// free text a pattern cannot bound, so only exact grants exist.
type Pattern struct {
	ActionType string `json:"action"`
	Program    string `json:"program,omitempty"`
	PathPrefix string `json:"path_prefix,omitempty"`
	Host       string `json:"host,omitempty"`
}

// PatternTypes lists the action types a pattern may cover. It returns a
// copy: what a caller does with it changes nothing Check decides.
func PatternTypes() []string { return slices.Clone(patternTypes[:]) }

// patternTypes is the table behind PatternTypes, fixed at compile time.
var patternTypes = [...]string{
	"read_file", "write_file", "edit_file", "delete_file", "move_file", "copy_file",
	"create_directory", "list_directory", "search_files", "execute_command",
	"http_request", "browser_navigate", "git_clone",
}

// minPrefixDepth is the least number of path elements of a PathPrefix.
const minPrefixDepth = 2

func patternType(t string) bool { return slices.Contains(patternTypes[:], t) }

// String describes the pattern for a prompt, e.g.
// "execute_command running rm under /home/dev/build".
func (p Pattern) String() string {
	var b strings.Builder
	b.WriteString(p.ActionType)
	if p.Program != "" {
		b.WriteString(" running " + p.Program)
	}
	if p.PathPrefix != "" {
		b.WriteString(" under " + p.PathPrefix)
	}
	if p.Host != "" {
		b.WriteString(" to host " + p.Host)
	}
	return b.String()
}

// Check reports whether p is a well-formed, narrow pattern.
func (p Pattern) Check() error {
	if !patternType(p.ActionType) {
		return fmt.Errorf("pattern action %q: no pattern covers this action type", p.ActionType)
	}
	if p.Program == "" && p.PathPrefix == "" && p.Host == "" {
		return fmt.Errorf("pattern for %s: names no program, path prefix or host", p.ActionType)
	}
	if strings.ContainsAny(p.Program, "\x00\n") || (p.Program != "" && strings.Contains(p.Program, "/") && !path.IsAbs(p.Program)) {
		return fmt.Errorf("pattern program %q: want a base name or an absolute path", p.Program)
	}
	if p.PathPrefix != "" {
		if !path.IsAbs(p.PathPrefix) || path.Clean(p.PathPrefix) != p.PathPrefix {
			return fmt.Errorf("pattern path prefix %q: want an absolute, clean path", p.PathPrefix)
		}
		if depth(p.PathPrefix) < minPrefixDepth {
			return fmt.Errorf("pattern path prefix %q: too broad, want at least %d levels", p.PathPrefix, minPrefixDepth)
		}
	}
	if p.Host != "" && (p.Host != strings.ToLower(p.Host) || strings.ContainsAny(p.Host, "*?/ ")) {
		return fmt.Errorf("pattern host %q: want one lower-case host name", p.Host)
	}
	return nil
}

// Matches reports whether an action of type t with scope s is covered.
func (p Pattern) Matches(t string, s Scope) bool {
	if s.Opaque || t != p.ActionType || p.Check() != nil {
		return false
	}
	if p.Program != "" {
		if len(s.Programs) != 1 || s.Programs[0] != p.Program {
			return false
		}
	} else if len(s.Programs) > 0 {
		return false
	}
	if p.PathPrefix != "" {
		if len(s.Paths) == 0 {
			return false
		}
		for _, q := range s.Paths {
			if !under(q, p.PathPrefix) {
				return false
			}
		}
	} else if len(s.Paths) > 0 {
		return false
	}
	return hostsMatch(p.Host, s.Hosts)
}

func hostsMatch(h string, hosts []string) bool {
	if h == "" {
		return len(hosts) == 0
	}
	if len(hosts) == 0 {
		return false
	}
	for _, x := range hosts {
		if x != h {
			return false
		}
	}
	return true
}

// under reports whether p is prefix or below it (both clean, absolute).
func under(p, prefix string) bool {
	return prefix == "/" || p == prefix || strings.HasPrefix(p, prefix+"/")
}

// depth counts the elements of a clean absolute path ("/" is 0).
func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// offerPattern derives the pattern offered for an action: its type, its
// one program, the deepest directory holding every path it touches, its
// one host. It returns nil when no narrow pattern fits.
func offerPattern(t string, s Scope) *Pattern {
	if s.Opaque || !patternType(t) || len(s.Programs) > 1 || len(s.Hosts) > 1 {
		return nil
	}
	p := Pattern{ActionType: t}
	if len(s.Programs) == 1 {
		p.Program = s.Programs[0]
	}
	if len(s.Hosts) == 1 {
		p.Host = s.Hosts[0]
	}
	if len(s.Paths) > 0 {
		p.PathPrefix = commonDir(s.Paths)
	}
	if p.Check() != nil || !p.Matches(t, s) {
		return nil
	}
	return &p
}

// commonDir is the deepest directory that holds every path (the parent
// of each path, then their common ancestor).
func commonDir(paths []string) string {
	c := path.Dir(paths[0])
	for _, q := range paths[1:] {
		d := path.Dir(q)
		for !under(d, c) {
			c = path.Dir(c)
		}
	}
	return c
}

// choosePattern is the pattern a Response grants: the offered one, or the
// human's variant of it whose path prefix differs and still covers the
// action.
func choosePattern(ask *Ask, offered *Pattern, chosen *Pattern) (Pattern, error) {
	if offered == nil {
		return Pattern{}, fmt.Errorf("%w: this request offers no pattern grant", ErrBadResponse)
	}
	if chosen == nil {
		return *offered, nil
	}
	c := *chosen
	if c.ActionType != offered.ActionType || c.Program != offered.Program || c.Host != offered.Host ||
		(c.PathPrefix == "") != (offered.PathPrefix == "") {
		return Pattern{}, fmt.Errorf("%w: a chosen pattern may only change the offered path prefix", ErrBadResponse)
	}
	if err := c.Check(); err != nil {
		return Pattern{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if !c.Matches(ask.ActionType, ask.Scope) {
		return Pattern{}, fmt.Errorf("%w: the chosen pattern does not cover the requested action", ErrBadResponse)
	}
	return c, nil
}

// Grant is a remembered approval: for one session, for actions escalated
// by one rule, either one action hash or one pattern, until Expires (or
// the session ends).
type Grant struct {
	ID         string    `json:"id"`
	Session    string    `json:"session"`
	Rule       string    `json:"rule"`
	Kind       GrantKind `json:"kind"`
	ActionHash string    `json:"action_hash,omitempty"` // GrantExact
	Pattern    Pattern   `json:"pattern,omitzero"`      // GrantPattern
	By         string    `json:"by"`                    // the channel that answered
	AskID      string    `json:"ask"`                   // the request it answered
	Created    time.Time `json:"created"`
	Expires    time.Time `json:"expires"`
}

// Covers reports whether g allows ask at time now without asking. The
// session and the escalating rule must be the same: an action escalated
// for another reason (say, the session has since read a secret) is asked
// about again.
func (g *Grant) Covers(ask *Ask, now time.Time) bool {
	if !now.Before(g.Expires) || g.Session == "" || ask.Session != g.Session || ask.Rule != g.Rule {
		return false
	}
	switch g.Kind {
	case GrantExact:
		return g.ActionHash != "" && ask.ActionHash == g.ActionHash
	case GrantPattern:
		return g.Pattern.Matches(ask.ActionType, ask.Scope)
	}
	return false
}

// describe says what g covers, for reasons and audit messages.
func (g *Grant) describe() string {
	if g.Kind == GrantPattern {
		return "pattern grant " + g.ID + " (" + g.Pattern.String() + ")"
	}
	return "exact grant " + g.ID
}
