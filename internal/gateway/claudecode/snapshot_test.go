package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
)

func TestPlan(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	writeFile(t, filepath.Join(root, "logs", "a.log"), "a")
	writeFile(t, filepath.Join(root, "logs", "b.log"), "b")
	writeFile(t, filepath.Join(root, "logs", "c.txt"), "c")
	if err := os.Symlink(elsewhere, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "target.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(elsewhere, "target.txt"), "t")
	w := func(p string) Target { return Target{Path: filepath.Join(root, p), Access: action.AccessWrite} }
	g := func(p string, rec bool) Target {
		return Target{Path: filepath.Join(root, p), Access: action.AccessDelete, Glob: true, Recursive: rec}
	}
	for _, c := range []struct {
		name    string
		targets []Target
		paths   []string // relative to root
		skipped []string // "path code"
	}{
		{"literal file", []Target{w("logs/a.log")}, []string{"logs/a.log"}, nil},
		{"new file in new dirs", []Target{w("x/y/z.txt")}, []string{"x/y/z.txt"}, nil},
		{"glob expands to matches", []Target{g("logs/*.log", false)}, []string{"logs/a.log", "logs/b.log"}, nil},
		{"glob without matches stays literal", []Target{g("logs/*.tmp", false)}, []string{"logs/*.tmp"}, nil},
		{"recursive selection by its root", []Target{g("logs/**/*.log", true)}, []string{"logs"}, nil},
		{"duplicates once", []Target{w("logs/a.log"), g("logs/a.*", false)}, []string{"logs/a.log"}, nil},
		{"outside", []Target{{Path: filepath.Join(elsewhere, "f"), Access: action.AccessWrite}}, nil,
			[]string{filepath.Join(elsewhere, "f") + " " + CodeOutside}},
		{"through a symlinked directory", []Target{w("out/f")}, nil, []string{filepath.Join(root, "out/f") + " " + CodeOutside}},
		{"climbing out", []Target{w("../x")}, nil, []string{filepath.Join(filepath.Dir(root), "x") + " " + CodeOutside}},
		{"sealed", []Target{w(".parallax/policy.yaml")}, nil, []string{filepath.Join(root, ".parallax/policy.yaml") + " " + CodeSealed}},
		{"workspace itself", []Target{w(".")}, []string{"."}, nil},
		{"symlink to outside", []Target{w("link.txt")}, []string{"link.txt"},
			[]string{filepath.Join(elsewhere, "target.txt") + " " + CodeOutside}},
	} {
		t.Run(c.name, func(t *testing.T) {
			paths, skipped, err := plan(root, c.targets)
			if err != nil {
				t.Fatal(err)
			}
			var rel []string
			for _, p := range paths {
				r, _ := filepath.Rel(root, p)
				rel = append(rel, r)
			}
			var sk []string
			for _, s := range skipped {
				sk = append(sk, s.Path+" "+s.Code)
			}
			if !slices.Equal(rel, c.paths) || !slices.Equal(sk, c.skipped) {
				t.Errorf("got %v skipped %v, want %v skipped %v", rel, sk, c.paths, c.skipped)
			}
		})
	}
}

func TestBashTargets(t *testing.T) {
	m := Mapped{Command: "mkdir -p build && cp main.go build/ && rm -f old.txt && cat README.md > /tmp/out.txt", Cwd: "/w"}
	var got []string
	for _, tg := range m.Targets("/home/dev") {
		got = append(got, tg.Path)
	}
	for _, want := range []string{"/w/build", "/w/old.txt", "/tmp/out.txt"} {
		if !slices.Contains(got, want) {
			t.Errorf("targets %v miss %s", got, want)
		}
	}
	for _, p := range got {
		if strings.HasSuffix(p, "README.md") {
			t.Errorf("a read is not a target: %v", got)
		}
	}
}
