package shield

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/runfile"
	"github.com/parallax/parallax/verdict"
)

// Dependency manifests pointed at a non-default source: a write or edit
// of package.json, requirements*.txt, pyproject.toml, Pipfile, go.mod,
// Cargo.toml, .npmrc or pip.conf that adds a source other than the
// default registry (a URL, a git repository, a directory outside the
// workspace, another index or registry), or a package-manager command
// that writes one (go mod edit -replace, npm pkg set, npm config set
// registry, pip config set global.index-url, cargo add --git, poetry
// source add), needs review: the code that comes from it runs on the
// next install or build. A source the file already names is not asked
// about again; a version bump, a dependency from the default registry
// and a replace to a directory in the workspace are not asked about.

// RuleManifestSource is the reason code of a manifest pointed at a
// non-default source.
const RuleManifestSource = "manifest_source"

// manifestSources is the stage.
func (g *Gate) manifestSources(st *state) (verdict.Verdict, bool) {
	switch p := st.act.Payload.(type) {
	case *action.WriteFilePayload:
		if !runfile.IsManifest(p.Path) {
			return verdict.Verdict{}, false
		}
		old, _, _ := readBounded(p.Path)
		content := p.Content
		if p.Append {
			content = old + content
		}
		g.newSources(st, p.Path, old, content)
	case *action.EditFilePayload:
		if !runfile.IsManifest(p.Path) {
			return verdict.Verdict{}, false
		}
		old, ok, _ := readBounded(p.Path)
		if ok && p.Old != "" && strings.Contains(old, p.Old) {
			g.newSources(st, p.Path, old, strings.ReplaceAll(old, p.Old, p.New))
		} else {
			g.newSources(st, p.Path, p.Old, p.New) // the fragments alone
		}
	case *action.ExecuteCommandPayload:
		if st.effects == nil {
			return verdict.Verdict{}, false
		}
		// Text the command writes into a manifest (printf '…' >>
		// requirements.txt, cat > .npmrc <<EOF), as a write of it.
		for _, w := range st.effects.Written {
			if w.Insert || !runfile.IsManifest(w.Path) { // an edit's program is not the file
				continue
			}
			old, _, _ := readBounded(w.Path)
			after := w.Text
			if w.Append {
				after = old + w.Text
			}
			g.newSources(st, w.Path, old, after)
		}
		for i, e := range st.effects.Execs {
			if i >= maxRunExecs {
				break
			}
			if s := runfile.CommandSources(e.Name, e.Args, g.ws, g.ws); len(s) > 0 {
				st.escalate(verdict.StageHeuristic, 2, RuleManifestSource, "the command points the project's dependencies at "+
					"a source other than the default registry ("+s[0]+"): code from it runs on the next install or build")
				break
			}
		}
	}
	return verdict.Verdict{}, false
}

// newSources escalates when the content after a write names a source
// the content before did not.
func (g *Gate) newSources(st *state, file, before, after string) {
	if len(after) > runfile.MaxFileBytes {
		st.escalate(verdict.StageHeuristic, 2, RuleManifestSource, string(st.act.Type)+" "+g.rel(file)+
			": a manifest larger than "+itoa(runfile.MaxFileBytes>>10)+" KiB, whose dependency sources were not read")
		return
	}
	had := map[string]bool{}
	for _, s := range runfile.Sources(file, before, g.ws) {
		had[s.What] = true
	}
	for _, s := range runfile.Sources(file, after, g.ws) {
		if had[s.What] {
			continue
		}
		st.escalate(verdict.StageHeuristic, 2, RuleManifestSource, string(st.act.Type)+" "+g.rel(file)+
			" points the project's dependencies at a source other than the default registry ("+s.What+
			"): code from it runs on the next install or build")
		return
	}
}
