package guard

import (
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// TestPercentDecodedSpelling: a path is judged as written and as
// percent-decoded, worst wins, so an escape the action layer tolerates
// (%20) cannot spell a restricted path with a space in it.
func TestPercentDecodedSpelling(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.root, "etc claude", "team.json")
	mkdir(t, filepath.Dir(other))
	write(t, other)
	g := New(f.ws, f.home, WithProtected(other))
	for _, c := range []struct {
		name string
		path string
		want string
	}{
		{"space escaped", filepath.Join(f.root, "etc%20claude", "team.json"), RuleProtected},
		{"letter escaped", filepath.Join(f.root, "etc%20cl%61ude", "team.json"), RuleProtected},
		{"ssh escaped", filepath.Join(f.home, ".ss%68", "id_rsa"), RuleRestricted},
		{"NUL ends the name", other + "%00.bak", RuleProtected},
		{"control character", filepath.Join(f.ws, "a%10b"), ""},
		{"format string", filepath.Join(f.ws, "%10Dm %SN"), ""},
		{"plain workspace name", filepath.Join(f.ws, "report%20final.txt"), ""},
		{"lone percent", filepath.Join(f.ws, "100%.txt"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := g.Check(c.path, wr)
			if c.want == "" && ok || c.want != "" && (!ok || got.Rule != c.want || got.Decision != verdict.Block) {
				t.Errorf("got %+v %v, want %q", got, ok, c.want)
			}
		})
	}
}
