package glob

import (
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

// mode is the question a TestEngine case asks of the engine.
type mode int

const (
	ruleMatch     mode = iota // Match(pat, name): a rule against a concrete path
	shellSeg                  // MatchSeg(ToGo(pat), name, false): bash, no dotglob
	shellSegDot               // MatchSeg(ToGo(pat), name, true): bash with dotglob
	shellRule                 // Intersect(pat, name): a shell glob meets a rule
	segShellGo                // SegIntersect(pat, name, false): shell segment meets a path.Match segment
	segShellGoDot             // SegIntersect(pat, name, true)
	ruleRule                  // RuleIntersect(pat, name)
)

func (m mode) String() string {
	return [...]string{"rule", "shell", "shell+dot", "shell∩rule", "seg∩", "seg∩+dot", "rule∩rule"}[m]
}

func (m mode) ask(pat, name string) bool {
	switch m {
	case ruleMatch:
		return Match(pat, name)
	case shellSeg, shellSegDot:
		q, ext, ok := ToGo(pat)
		return !ok || ext || MatchSeg(q, name, m == shellSegDot)
	case shellRule:
		return Intersect(pat, name)
	case segShellGo, segShellGoDot:
		return SegIntersect(pat, name, m == segShellGoDot)
	case ruleRule:
		return RuleIntersect(pat, name)
	}
	panic("unknown mode")
}

// TestEngine is every syntax and question of the engine in one table;
// for the intersections, name is the second pattern.
func TestEngine(t *testing.T) {
	tests := []struct {
		m         mode
		pat, name string
		want      bool
	}{
		// Rule syntax: "**" crosses "/", "*" and "?" do not.
		{ruleMatch, ".ssh/id_*", ".ssh/id_rsa", true},
		{ruleMatch, ".ssh/id_*", ".ssh/id_rsa/x", false},
		{ruleMatch, "proc/*/environ", "proc/1/environ", true},
		{ruleMatch, "proc/*/environ", "proc/1/task/2/environ", false},
		{ruleMatch, "aws/sso/cache/**", "aws/sso/cache/a/b.json", true},
		{ruleMatch, "a?c", "abc", true},
		{ruleMatch, "a?c", "a/c", false},
		{ruleMatch, "*.tfstate", "prod.tfstate", true},
		{ruleMatch, "*.tfstate", "prod.tfstate.backup", false},
		{ruleMatch, "[ab]", "a", false}, // no sets in rule syntax: "[" is literal
		{ruleMatch, "[ab]", "[ab]", true},
		{ruleMatch, "*", ".env", true},  // no leading-dot rule in rules
		{ruleMatch, "a?c", "aéc", true}, // "?" is a character (was: one byte)
		{ruleMatch, "a??c", "aéc", false},
		{ruleMatch, "*?", "é", true},
		{ruleMatch, "*??", "é", false},
		{ruleMatch, "**/?", "a/é", true},
		// Shell syntax, one segment: bash sets, "[!", the leading dot.
		{shellSeg, "[!a]hadow", "shadow", true},
		{shellSeg, "[!s]hadow", "shadow", false},
		{shellSeg, "[^s]hadow", "shadow", false},
		{shellSeg, "*", ".env", false},
		{shellSegDot, "*", ".env", true},
		{shellSeg, ".*", ".env", true},
		{shellSeg, `\.e*`, ".env", true},
		{shellSeg, "[.]env", ".env", false}, // bash: a set never matches the leading dot
		{shellSeg, "**", "x", true},
		{shellSeg, "e[[:alpha:]]c", "etc", true},
		{shellSeg, "a[b", "a[b", true}, // an unclosed "[" is literal
		{shellSeg, "@(a|b)", "zzz", true},
		{shellSeg, "*.[pP][eE][mM]", "KEY.PEM", true},
		{shellSeg, "*.[pP][eE][mM]", "key.pub", false},
		// A shell glob meets a rule.
		{shellRule, "/home/dev/.ssh/*", "/home/dev/.ssh/id_*", true},
		{shellRule, "/home/dev/.ss?/id*", "/home/dev/.ssh/id_*", true},
		{shellRule, "/home/dev/.*/credentials", "/home/dev/.aws/credentials", true},
		{shellRule, "/home/dev/*/credentials", "/home/dev/.aws/credentials", false},
		{shellRule, "/home/dev/[.]aws/credentials", "/home/dev/.aws/credentials", true},
		{shellRule, "/home/dev/project/*.go", "/home/dev/.ssh/id_*", false},
		{shellRule, "/proc/*/environ", "/proc/*/environ", true},
		{shellRule, "/*", "/etc", true},
		{shellRule, "/e*", "/etc", true},
		{shellRule, "/tmp/*", "/etc", false},
		{shellRule, "/home/*/.ssh/*", "/**/.ssh/id_*", true},
		{shellRule, "/var/log/*.log", "/var/log/**", true},
		{shellRule, "/home/*/x", "/home/**", true},
		{shellRule, "/home/*", "/home/*/x", false},
		{shellRule, "/srv/?", "/srv/é", true}, // "?" is a character (was: one byte)
		{shellRule, "/srv/[é]", "/srv/é", true},
		{shellRule, "/srv/*/?", "/srv/**/é", true},
		{shellRule, "/srv/??", "/srv/é", false},
		{shellRule, "/srv/\\é", "/srv/?", true},
		{shellRule, "/srv/?", "/srv/ab", false},
		{shellRule, "/srv/\xc3*", "/srv/é", true}, // not UTF-8: byte-wise, "*" takes half of "é"
		{segShellGo, "\xc3*", "é", true},
		// A shell segment meets a path.Match segment.
		{segShellGo, "*", ".env", false},
		{segShellGoDot, "*", ".env", true},
		{segShellGo, ".*", ".env", true},
		{segShellGo, ".e*", ".env", true},
		{segShellGo, "*.pub", "*.pem", false},
		{segShellGo, "*", "?*.pem", true},
		{segShellGo, "id_*", "id_rsa", true},
		{segShellGo, "[ab]*", "cookies", true}, // sets count as any character
		{segShellGo, "a*b*c", "*x*", true},
		{segShellGo, "abc", "abd", false},
		{segShellGo, "", "", true},
		{segShellGo, "a\\*", "a*", true},
		{segShellGo, "x", "*", true},
		{segShellGo, "?", "é", true},
		{segShellGo, "?é", "*.[ch]", false}, // "?" cannot be the leading "." (was: true)
		{segShellGoDot, "?é", "*.[ch]", true},
		{segShellGo, "[]a]x", "ax", true},     // "]" first in a set is literal (was: false)
		{segShellGo, "[.]env", ".env", false}, // bash: a set never matches the leading dot
		{segShellGo, "*", `\.env`, false},
		{shellRule, "/d/[.]env", "/d/.env", true}, // the heuristics let a set name it (over-approximation)
		// Two rules.
		{ruleRule, "/etc/**", "/**/shadow", true},
		{ruleRule, "/etc/*", "/etc/a/b", false},
		{ruleRule, "/home/*/.ssh/**", "/**/.ssh/id_*", true},
	}
	for _, tt := range tests {
		if got := tt.m.ask(tt.pat, tt.name); got != tt.want {
			t.Errorf("%v: %q, %q: got %v, want %v", tt.m, tt.pat, tt.name, got, tt.want)
		}
	}
}

// corpus is a spread of the patterns the callers hold: heuristic rules,
// guard and ifc table shapes, and shell globs seen in commands.
var corpus = []string{"*", "**", "?", ".*", "*.pem", "id_*", "id_rsa", "*.[ch]", "*.[!o]", "[.]env", ".env*",
	"*secret*", "a*b*c", "x?", "[a-c]?x*", `a\*`, "*.tfstate", ".ssh", "config", "credentials", "[iI][dD]_*",
	"*.[pP][eE][mM]", "é", "?é", "[!a]hadow", "shadow", "e[[:alpha:]]c", "a[b", "", "known_hosts", "*.pub"}

// FuzzMatchSegAgreesWithPathMatch: where bash and Go agree (no "[!", no
// POSIX class, no extglob, no leading dot in the name),
// the engine's segment match is path.Match.
func FuzzMatchSegAgreesWithPathMatch(f *testing.F) {
	for _, p := range corpus {
		for _, n := range []string{"id_rsa", "key.pem", "x.c", "shadow", "é", "aéc", "a*"} {
			f.Add(p, n)
		}
	}
	f.Fuzz(func(t *testing.T, p, name string) {
		if strings.ContainsAny(p+name, "/\x00") || strings.HasPrefix(name, ".") || strings.Contains(p, "[!") ||
			!utf8.ValidString(p) || !utf8.ValidString(name) || // EqualFold reads every invalid byte as U+FFFD
			strings.Contains(p, "[[") || strings.Contains(p, "[:") || strings.Contains(p, "[.") || strings.Contains(p, "[=") || strings.Contains(p, "(") || len(p) > 64 || len(name) > 64 {
			return
		}
		want, err := path.Match(p, name)
		if err != nil {
			return
		}
		q, ext, ok := ToGo(p)
		if !ok || ext {
			t.Fatalf("ToGo(%q) refused a pattern path.Match accepts", p)
		}
		if got := MatchSeg(q, name, false); got != want {
			t.Fatalf("MatchSeg(%q, %q) = %v, path.Match says %v", p, name, got, want)
		}
	})
}

// FuzzIntersectIsSound: whenever one path matches a shell glob (read by
// ToGo and MatchSeg segment by segment) and a rule (Match), Intersect
// says they meet; and Match agrees with path.Match on rules without "**"
// or sets.
func FuzzIntersectIsSound(f *testing.F) {
	for _, a := range corpus {
		for _, b := range []string{"*", "id_*", ".env", "*.pem", "é", "?"} {
			f.Add("/d/"+a, "/d/"+b, "/d/"+strings.NewReplacer("*", "x", "?", "é", "[", "", "]", "").Replace(a))
		}
	}
	f.Fuzz(func(t *testing.T, g, r, p string) {
		// Match backtracks: a rule's stars are few (the tables are ours).
		if len(g)+len(r)+len(p) > 96 || strings.ContainsAny(g+r+p, "\x00") || strings.Contains(g, "(") ||
			strings.Count(r, "*") > 4 {
			return
		}
		// path.Match's "*" steps through bytes (it matches half a
		// character, no shell does): compared on ASCII paths only.
		if !strings.Contains(r, "**") && !strings.ContainsAny(r, `[\`) && ascii(p) {
			if want, err := path.Match(r, p); err == nil && Match(r, p) != want {
				t.Fatalf("Match(%q, %q) = %v, path.Match says %v", r, p, !want, want)
			}
		}
		// path.Match's "*" steps through bytes, bash's through
		// characters: a witness is taken on ASCII paths only.
		if !ascii(p) || !Match(r, p) || !shellMatch(g, p) {
			return
		}
		if !Intersect(g, r) {
			t.Fatalf("%q matches both %q and %q, Intersect says no", p, g, r)
		}
	})
}

// shellMatch matches a path against a shell glob as bash does (no
// dotglob), segment by segment; a segment path.Match refuses matches
// nothing here (MatchSeg lets it match everything, which is no witness).
func shellMatch(g, p string) bool {
	gs, ps := strings.Split(g, "/"), strings.Split(p, "/")
	if len(gs) != len(ps) {
		return false
	}
	for i := range gs {
		q, ext, ok := ToGo(gs[i])
		if _, err := path.Match(q, ""); !ok || ext || err != nil || !MatchSeg(q, ps[i], false) {
			return false
		}
	}
	return true
}

// TestMatchDoesNotAllocate: the hot path allocates nothing.
func TestMatchDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		Match("/home/*/.ssh/**", "/home/dev/.ssh/keys/id_rsa")
		MatchSeg("*.pem", "key.pem", false)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func BenchmarkMatch(b *testing.B) {
	for b.Loop() {
		Match("/home/*/.ssh/**", "/home/dev/.ssh/keys/id_rsa")
		Match("/**/*.tfstate", "/home/dev/project/infra/prod.tfstate.backup")
	}
}

func BenchmarkSegIntersect(b *testing.B) {
	for b.Loop() {
		SegIntersect("*.[ch]", "id_*", false)
		SegIntersect("a*b*c", "*x*", false)
	}
}

func BenchmarkIntersect(b *testing.B) {
	for b.Loop() {
		Intersect("/home/*/.ssh/*", "/**/.ssh/id_*")
	}
}

func BenchmarkMatchSeg(b *testing.B) {
	for b.Loop() {
		MatchSeg("*.[pP][eE][mM]", "key.pem", false)
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
