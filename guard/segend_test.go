package guard

import (
	"path"
	"testing"
)

// FuzzSegEnd: when a segment's end set rules a name out, segMatch (the
// full matcher) must agree that it does not match.
func FuzzSegEnd(f *testing.F) {
	for _, s := range [][2]string{{"*.[ch]", "a.c"}, {"*.[^o]", "x.o"}, {"id_*", "id_rsa"}, {"*.p[lm]", "x.pem"},
		{"[-a]", "a"}, {"*.[", "x.["}, {"*.[c", "x.c"}, {"*", ""}, {".env*", ".env"}} {
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, q, name string, dot bool) {
		e := segEndOf(q)
		if e.excludes(name) && segMatch(q, name, dot) {
			t.Fatalf("segment %q: the end set excludes %q, but segMatch matches it", q, name)
		}
	})
}

func TestSegEnd(t *testing.T) {
	for _, tc := range []struct {
		q, name string
		excl    bool
	}{
		{"*.[ch]", "id_rsa", true},
		{"*.[ch]", "main.c", false},
		{"*.[", "x.[", false}, // malformed: segMatch matches everything
		{"*.[^o]", "x.o", true},
		{"*.[!o]", "x.o", false}, // "!" is a literal in path.Match syntax: {!, o}
		{"*.pem", "key.pem", false},
		{"*.pem", "key.pub", true},
		{"*", "anything", false},
		{anySeg, "x", false},
	} {
		e := segEndOf(tc.q)
		if got := e.excludes(tc.name); got != tc.excl {
			t.Errorf("segEndOf(%q).excludes(%q) = %v, want %v", tc.q, tc.name, got, tc.excl)
		}
	}
}

// TestBelowIsSound: the run of the table below a directory holds every
// entry strictly below it, for every directory the table knows.
func TestBelowIsSound(t *testing.T) {
	g := New("/home/dev/project", "/home/dev", WithFS(emptyFS{}))
	dirs := []string{"/", "/home", "/home/dev", "/home/de", "/home/dev/project", "/etc", "/etc/ssh", "/et", "/zzz", "/proc"}
	for _, ge := range g.globs {
		for p := ge.e.path; p != "/"; p = path.Dir(p) {
			dirs = append(dirs, p)
		}
	}
	for _, d := range dirs {
		in := map[*entry]bool{}
		for _, ge := range g.below(d) {
			in[ge.e] = true
		}
		for _, ge := range g.globs {
			if p := ge.e.path; p != d && within(p, d) && !in[ge.e] {
				t.Errorf("below(%s) leaves out %s", d, p)
			}
		}
	}
}
