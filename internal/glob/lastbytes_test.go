package glob

import (
	"path"
	"strings"
	"testing"
)

func TestLastBytesBash(t *testing.T) {
	for _, tc := range []struct {
		pat  string
		in   string // bytes that must be in the set
		out  string // bytes that must not
		know bool
	}{
		{"*.[ch]", "ch", "ampz.", true},
		{"*.p[lm]", "lm", "a", true},
		{"*.[h|c|cpp|php|cc]", "hc|p", "ax", true},
		{"*.[a-f]", "abcdef", "gz", true},
		{"*.[!o]", "az./", "o", true}, // "/" never ends a name; the set may hold it
		{"*.[^o]", "a", "o", true},
		{"id_rsa", "a", "b", true},
		{`*\*`, "", "", false},
		{"*.c*", "", "", false},
		{"*.c?", "", "", false},
		{"*.[[:alpha:]]", "", "", false},
		{`*.[\]]`, "", "", false},
		{"*]", "]", "a", true},
		{"[a]]", "", "", false},
		{"", "", "", false},
	} {
		set, ok := LastBytes(tc.pat, true)
		if ok != tc.know {
			t.Errorf("%q: known %v, want %v", tc.pat, ok, tc.know)
			continue
		}
		for i := 0; i < len(tc.in); i++ {
			if !set.Has(tc.in[i]) {
				t.Errorf("%q: %q missing from the set", tc.pat, tc.in[i])
			}
		}
		for i := 0; i < len(tc.out); i++ {
			if set.Has(tc.out[i]) {
				t.Errorf("%q: %q wrongly in the set", tc.pat, tc.out[i])
			}
		}
	}
}

// FuzzLastBytesBash: whatever a pattern matches ends in a byte of its
// set (path.Match is the oracle; it reads "[^" where bash reads "[!").
func FuzzLastBytesBash(f *testing.F) {
	for _, s := range [][2]string{{"*.[ch]", "a.c"}, {"*.[a-z]", "x.q"}, {"*.[^o]", "a.b"}, {"x[0-9]", "x5"}, {"*", "y"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if name == "" || strings.Contains(pat, "[!") || strings.ContainsRune(name, '/') {
			return
		}
		set, ok := LastBytes(pat, true)
		if m, err := path.Match(pat, name); err != nil || !m || !ok {
			return
		}
		if !set.Has(name[len(name)-1]) {
			t.Fatalf("%q matches %q, but its last byte is not in the set", pat, name)
		}
	})
}

// FuzzLastBytesGo: with Go's path.Match syntax, whatever a well-formed
// pattern matches ends in a byte of its set.
func FuzzLastBytesGo(f *testing.F) {
	for _, s := range [][2]string{{"*.[ch]", "a.c"}, {"*.[!o]", "a.!"}, {"*.[^o]", "a.b"}, {"x[0-9]", "x5"}, {"[-a]", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if name == "" || strings.ContainsRune(name, '/') {
			return
		}
		set, ok := LastBytes(pat, false)
		if m, err := path.Match(pat, name); err != nil || !m || !ok {
			return
		}
		if !set.Has(name[len(name)-1]) {
			t.Fatalf("%q matches %q, but its last byte is not in the set", pat, name)
		}
	})
}
