package glob

import (
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSimpleMatchAgreesWithPathMatch(t *testing.T) {
	qs := []string{"", "*", "id_rsa", "*.pem", "id_*", "*secret*", "a*b", "*.*", ".env*", "**", "x*y*z",
		"*.[pP][eE][mM]", "[iI][dD]_*", "[iI][dD]_[rR][sS][aA]", "[ab]*", "*.[mM]ov", "[Aa]"}
	names := []string{"", "id_rsa", "id_rsa.pub", "key.pem", "pem", "my-secret-file", "ab", "axxb", ".env", ".env.local", "x", "xyz",
		"KEY.PEM", "Id_Rsa", "ID_X", "b", "A", "a.MOV", "a.mov", "a.Mov"}
	for _, q := range qs {
		for _, n := range names {
			ok, done := SimpleMatch(q, n)

			if !done {
				continue
			}
			want, _ := path.Match(q, n)
			if ok != want {
				t.Errorf("SimpleMatch(%q, %q): got %v, want %v", q, n, ok, want)
			}
		}
	}
}

func TestSimpleMatchFoldedPatterns(t *testing.T) {
	tests := []struct {
		q, name  string
		ok, done bool
	}{
		{"*.[pP][eE][mM]", "KEY.PEM", true, true},
		{"*.[pP][eE][mM]", "key.pem", true, true},
		{"[iI][dD]_*", "Id_rsa", true, true},
		{"*.[mM]ov", "a.mov", false, false}, // bare letters: left to path.Match
		{"[ab]*", "a", false, false},
	}
	for _, tc := range tests {
		ok, done := SimpleMatch(tc.q, tc.name)
		if ok != tc.ok || done != tc.done {
			t.Errorf("SimpleMatch(%q, %q): got %v,%v, want %v,%v", tc.q, tc.name, ok, done, tc.ok, tc.done)
		}
	}
}

func TestSegIntersectSimpleAgreesWithTable(t *testing.T) {
	segs := []string{"id_rsa", ".ssh", ".env", "*", "*.pem", "id_*", "?d_rsa", ".*", "*.env*", "config", "c?nfig",
		"*secret*", "a*b*c", "home", "Documents", "tax*", ".env.local", "x"}
	for _, g := range segs {
		for _, r := range segs {
			for _, dots := range []bool{false, true} {
				ok, done := SegIntersectSimple(g, strings.ContainsAny(g, "*?[\\"), strings.ContainsAny(g, "[\\"),
					r, strings.ContainsAny(r, "*?[\\"), strings.ContainsAny(r, "[\\"), dots)
				if !done {
					continue
				}
				if want := SegIntersectTable(g, r, dots); ok != want {
					t.Errorf("SegIntersectSimple(%q, %q, %v): got %v, the table says %v", g, r, dots, ok, want)
				}
			}
		}
	}
}

// FuzzSegIntersectAgreesWithOld: the automaton answers as the dynamic
// programme it replaced, but where that one was wrong: a set opening with
// "]" ("[]a]" is one character, the table read "[]" and a literal "a]"),
// problems beyond its work bound (it answered true), and, without dots,
// a leading dot the rule makes without a literal one ("?é" and "*.[ch]":
// bash's "?" cannot be the "." of ".é"; the table applied the dot rule to
// a literal first "." only). There the automaton may say no where the
// table said yes, never the reverse.
func FuzzSegIntersectAgreesWithOld(f *testing.F) {
	for _, g := range corpus {
		for _, r := range corpus {
			f.Add(g, r, false)
		}
	}
	f.Fuzz(func(t *testing.T, g, r string, dots bool) {
		// The table read every invalid byte as U+FFFD, all alike.
		if strings.ContainsAny(g+r, "/") || !utf8.ValidString(g) || !utf8.ValidString(r) || strings.Contains(g+r, "[]") || strings.Contains(g+r, "[!]") ||
			strings.Contains(g+r, "[^]") || len(g) > 48 || len(r) > 48 {
			return
		}
		got, want := SegIntersectTable(g, r, dots), oldSegIntersect(g, r, dots)
		if got != want && (dots || got) {
			t.Fatalf("SegIntersectTable(%q, %q, %v) = %v, the old table says %v", g, r, dots, got, want)
		}
	})
}

// TestSegIntersectAgreesWithOldOnCorpus runs the differential check
// over every pair of the corpus in both dot modes; the cases where the
// automaton is the more precise are listed in TestEngine.
func TestSegIntersectAgreesWithOldOnCorpus(t *testing.T) {
	for _, g := range corpus {
		for _, r := range corpus {
			for _, dots := range []bool{false, true} {
				got, want := SegIntersectTable(g, r, dots), oldSegIntersect(g, r, dots)
				if got != want && (dots || got) {
					t.Errorf("SegIntersectTable(%q, %q, %v) = %v, the old table says %v", g, r, dots, got, want)
				}
			}
		}
	}
}

// stok is one character of a segment pattern for oldSegIntersect.
type stok struct {
	kind byte // 'c' literal, '?' any one character, '*' any run
	c    rune
}

// oldMaxWork bounds SegIntersect's table; larger problems answer "may
// intersect" (fail closed).
const oldMaxWork = 4096

// oldSegToks splits a segment pattern into characters (runes, as path.Match
// and the shell count them). A set counts as any one character (an
// over-approximation); a backslash escapes the next character.
func oldSegToks(p string) []stok {
	rs := []rune(p)
	out := make([]stok, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			if n := len(out); n == 0 || out[n-1].kind != '*' {
				out = append(out, stok{kind: '*'})
			}
		case '?':
			out = append(out, stok{kind: '?'})
		case '[':
			j := i + 1
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j < len(rs) {
				out = append(out, stok{kind: '?'})
				i = j
				continue
			}
			out = append(out, stok{kind: 'c', c: c})
		case '\\':
			if i+1 < len(rs) {
				i++
			}
			out = append(out, stok{kind: 'c', c: rs[i]})
		default:
			out = append(out, stok{kind: 'c', c: c})
		}
	}
	return out
}

// oldSegIntersect is the dynamic programme ifc decided SegIntersectTable
// with before the engine took it over: the reference the automaton is
// compared with.
func oldSegIntersect(g, r string, dots bool) bool {
	a, b := oldSegToks(g), oldSegToks(r)
	if !dots && len(a) > 0 && a[0].kind != 'c' && len(b) > 0 && b[0].kind == 'c' && b[0].c == '.' {
		return false
	}
	if (len(a)+1)*(len(b)+1) > oldMaxWork {
		return true
	}
	memo := make([]int8, (len(a)+1)*(len(b)+1))
	var f func(i, j int) bool
	f = func(i, j int) bool {
		k := i*(len(b)+1) + j
		if memo[k] != 0 {
			return memo[k] > 0
		}
		ok := false
		switch {
		case i == len(a) && j == len(b):
			ok = true
		case i < len(a) && a[i].kind == '*':
			ok = f(i+1, j) || j < len(b) && f(i, j+1)
		case j < len(b) && b[j].kind == '*':
			ok = f(i, j+1) || i < len(a) && f(i+1, j)
		case i < len(a) && j < len(b):
			ok = (a[i].kind == '?' || b[j].kind == '?' || a[i].c == b[j].c) && f(i+1, j+1)
		}
		memo[k] = -1
		if ok {
			memo[k] = 1
		}
		return ok
	}
	return f(0, 0)
}
