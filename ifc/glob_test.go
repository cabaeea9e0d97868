package ifc

import "testing"

func TestSegIntersectSimpleAgreesWithTable(t *testing.T) {
	segs := []string{"id_rsa", ".ssh", ".env", "*", "*.pem", "id_*", "?d_rsa", ".*", "*.env*", "config", "c?nfig",
		"*secret*", "a*b*c", "home", "Documents", "tax*", ".env.local", "x"}
	for _, g := range segs {
		for _, r := range segs {
			for _, dots := range []bool{false, true} {
				ok, done := segIntersectSimple(g, r, dots)
				if !done {
					continue
				}
				if want := segIntersectTable(g, r, dots); ok != want {
					t.Errorf("segIntersectSimple(%q, %q, %v): got %v, the table says %v", g, r, dots, ok, want)
				}
			}
		}
	}
}
