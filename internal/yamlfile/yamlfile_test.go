package yamlfile

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadErrorLocatesEachProblem(t *testing.T) {
	e := &LoadError{Problems: []Problem{{File: "p.yaml", Line: 3, Rule: "r1", Msg: "bad"}, {File: "p.yaml", Msg: "empty"}}}
	if got, want := e.Error(), "p.yaml:3: rule \"r1\": bad\np.yaml: empty"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPresets(t *testing.T) {
	p := Presets{FS: fstest.MapFS{"presets/b.yaml": {Data: []byte("b")}, "presets/a.yaml": {Data: []byte("a")},
		"presets/README": {Data: []byte("x")}}, Dir: "presets", Kind: "test"}
	if got := strings.Join(p.Names(), ","); got != "a,b" {
		t.Errorf("names: got %s, want a,b", got)
	}
	if b, err := p.Source("b"); err != nil || string(b) != "b" {
		t.Errorf("source b: got %q %v", b, err)
	}
	if _, err := p.Source("c"); err == nil || !strings.Contains(err.Error(), `unknown test preset "c" (want a, b)`) {
		t.Errorf("unknown preset: got %v", err)
	}
}
