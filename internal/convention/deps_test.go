package convention

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/parallax/parallax"

// closure lists every package the given module packages import,
// transitively through the module's own packages (outside ones are
// listed, not entered), with the module package that imports each.
func closure(t *testing.T, root string, pkgs ...string) map[string]string {
	t.Helper()
	seen := map[string]string{}
	queue := slices.Clone(pkgs)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
		bp, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, imp := range bp.Imports {
			if _, ok := seen[imp]; ok {
				continue
			}
			seen[imp] = p
			if strings.HasPrefix(imp, module+"/") {
				queue = append(queue, imp)
			}
		}
	}
	return seen
}

// The layers keep to their side: the gate's packages reach no LLM
// provider (a judge is handed to the gate, never imported by it), and
// the agent, which only proposes, imports no executor, the engine, the
// egress proxy or the shell runner; nor does the tool table both of
// them read (internal/toolgroup), which links no LLM provider either.
func TestLayersImportNothingAcrossTheirBoundary(t *testing.T) {
	root := filepath.Join("..", "..")
	cases := []struct {
		name      string
		pkgs      []string
		forbidden []string // import path prefixes
	}{
		{"the gate imports no LLM provider",
			[]string{module + "/shield", module + "/guard", module + "/policy", module + "/heuristic", module + "/ifc",
				module + "/dlp", module + "/shell", module + "/action"},
			[]string{module + "/llm", module + "/judge", "github.com/anthropics/", "github.com/openai/", "net/http"}},
		{"the agent imports no executor",
			[]string{module + "/internal/agent", module + "/internal/agent/proc"},
			[]string{module + "/internal/tools", module + "/internal/engine", module + "/internal/egress",
				module + "/internal/gateway", module + "/chronicle", module + "/internal/store"}},
		{"the tool table imports no executor or provider",
			[]string{module + "/internal/toolgroup"},
			[]string{module + "/internal/tools", module + "/internal/engine", module + "/internal/egress",
				module + "/internal/gateway", module + "/internal/agent", module + "/shell", module + "/llm",
				module + "/judge", "github.com/anthropics/", "github.com/openai/", "os/exec", "net/http"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for imp, by := range closure(t, root, c.pkgs...) {
				for _, f := range c.forbidden {
					if imp == f || strings.HasPrefix(imp, f) && (strings.HasSuffix(f, "/") || strings.HasPrefix(imp, f+"/")) {
						t.Errorf("%s imports %s", by, imp)
					}
				}
			}
		})
	}
}
