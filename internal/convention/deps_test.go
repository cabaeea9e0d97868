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
// listed, not entered), with every module package that imports each.
func closure(t *testing.T, root string, pkgs ...string) map[string][]string {
	t.Helper()
	seen := map[string][]string{}
	entered := map[string]bool{}
	queue := slices.Clone(pkgs)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if entered[p] {
			continue
		}
		entered[p] = true
		dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
		bp, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, imp := range bp.Imports {
			seen[imp] = append(seen[imp], p)
			if strings.HasPrefix(imp, module+"/") {
				queue = append(queue, imp)
			}
		}
	}
	return seen
}

// matches reports whether import path imp is f or inside it: a prefix
// ending in "/" matches everything under it, any other f matches itself
// and its subpackages.
func matches(imp, f string) bool {
	return imp == f || strings.HasPrefix(imp, f) && (strings.HasSuffix(f, "/") || strings.HasPrefix(imp, f+"/"))
}

// waiver lets one module package make one forbidden import, for the
// reason given. The same import from any other package still fails.
type waiver struct {
	importer, imp, reason string
}

// The layers keep to their side: the gate's packages reach no LLM
// provider (a judge is handed to the gate, never imported by it), and
// the agent, which only proposes, imports no executor, the engine, the
// egress proxy, the shell runner, os/exec, net/http, a provider SDK or
// the provider layer llm: it speaks to models through llm/chat, the
// provider-neutral vocabulary, and the engine makes the calls. Nor does
// the tool table both of them read (internal/toolgroup), which links no
// LLM provider either.
//
// Only the module's own packages are entered: what an outside module
// imports is not checked here (gRPC, which the agent's link speaks,
// imports net/http for its HTTP/2 transport).
func TestLayersImportNothingAcrossTheirBoundary(t *testing.T) {
	root := filepath.Join("..", "..")
	cases := []struct {
		name      string
		pkgs      []string
		forbidden []string // import path prefixes
		allowed   []string // exact paths under a forbidden prefix that stay allowed
		waivers   []waiver
	}{
		{name: "the gate imports no LLM provider",
			pkgs: []string{module + "/shield", module + "/guard", module + "/policy", module + "/heuristic", module + "/ifc",
				module + "/dlp", module + "/shell", module + "/action"},
			forbidden: []string{module + "/llm", module + "/judge", "github.com/anthropics/", "github.com/openai/",
				"google.golang.org/genai", "net/http"}},
		{name: "the agent imports no executor",
			pkgs: []string{module + "/internal/agent", module + "/internal/agent/proc", module + "/internal/agentlink"},
			forbidden: []string{module + "/internal/tools", module + "/internal/engine", module + "/internal/egress",
				module + "/internal/gateway", module + "/chronicle", module + "/internal/store",
				"os/exec", "net/http", "github.com/anthropics/", "github.com/openai/", "google.golang.org/genai",
				module + "/llm"},
			allowed: []string{module + "/llm/chat"},
			waivers: []waiver{{module + "/sandbox", "os/exec",
				"the agent confines itself with sandbox.ConfineAgent, and the same package builds the " +
					"commands' exec.Cmd (CommandSpec.Command) for the engine; until the agent's half is its " +
					"own package the agent links os/exec that its seccomp filter forbids it to use"}}},
		{name: "the tool table imports no executor or provider",
			pkgs: []string{module + "/internal/toolgroup"},
			forbidden: []string{module + "/internal/tools", module + "/internal/engine", module + "/internal/egress",
				module + "/internal/gateway", module + "/internal/agent", module + "/shell", module + "/llm",
				module + "/judge", "github.com/anthropics/", "github.com/openai/", "google.golang.org/genai", "os/exec", "net/http"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			deps := closure(t, root, c.pkgs...)
			for _, w := range c.waivers {
				if !slices.Contains(deps[w.imp], w.importer) {
					t.Errorf("waiver for %s importing %s is no longer needed: remove it", w.importer, w.imp)
				}
			}
			for imp, importers := range deps {
				if slices.Contains(c.allowed, imp) {
					continue
				}
				for _, f := range c.forbidden {
					if !matches(imp, f) {
						continue
					}
					for _, by := range importers {
						if !slices.ContainsFunc(c.waivers, func(w waiver) bool { return w.importer == by && w.imp == imp }) {
							t.Errorf("%s imports %s", by, imp)
						}
					}
				}
			}
		})
	}
}
