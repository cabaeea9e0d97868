package glob

import (
	"path"
	"strings"
	"testing"
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
