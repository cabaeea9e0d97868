package approval

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// Scope is what an action touches, as far as the gate could tell: the
// programs it runs, the paths it reads or changes and the hosts it
// reaches. Patterns are judged against it, so it must come from the gate's
// own analysis (ScopeOf), never from the agent.
type Scope struct {
	// Programs run, each a base name ("rm") or, when the command named it
	// with a slash, the path as written ("/tmp/x/rm").
	Programs []string
	// Paths touched: absolute and clean.
	Paths []string
	// Hosts reached, lower-cased.
	Hosts []string
	// Opaque is set when the analysis is incomplete or the action runs
	// code it cannot see (an interpreter, eval, a dynamic name, a glob, a
	// program it does not know): no pattern covers such an action.
	Opaque bool
}

// opaqueTags are the analyser's findings that make a command's scope
// incomplete: what it really runs or touches is not in Effects.
var opaqueTags = []shell.TagKind{
	shell.TagOpaque, shell.TagDynamicCommand, shell.TagEval, shell.TagLimitExceeded,
	shell.TagObfuscation, shell.TagCodeEscape, shell.TagDecodedExec, shell.TagDownloadExec,
	shell.TagRemoteExec, shell.TagUnknownProgram,
}

// ScopeOf computes the scope of a decoded, normalised action. eff is what
// the shell analyser found for an execute_command (shell.Analyze); it is
// ignored for other types. An execute_command without effects is opaque.
func ScopeOf(a *action.Action, eff *shell.Effects) Scope {
	var s Scope
	if a == nil || a.Payload == nil {
		return Scope{Opaque: true}
	}
	if a.Type == action.ExecuteCommand {
		if eff == nil {
			return Scope{Opaque: true}
		}
		s = commandScope(eff)
	} else {
		s = typedScope(a)
	}
	s.Programs, s.Paths, s.Hosts = sortedSet(s.Programs), sortedSet(s.Paths), sortedSet(s.Hosts)
	return s
}

// commandScope reads a shell command's effects.
func commandScope(eff *shell.Effects) Scope {
	var s Scope
	for _, t := range opaqueTags {
		s.Opaque = s.Opaque || eff.Has(t)
	}
	for _, e := range eff.Execs {
		switch {
		case e.Path != "":
			s.Programs = append(s.Programs, e.Path)
			s.addPath(e.Path)
		case e.Name == "":
			s.Opaque = true
		default:
			s.Programs = append(s.Programs, e.Name)
			if lang, known := shell.ProgramLang(e.Name); !known || lang != "" {
				s.Opaque = true // unknown, or an interpreter: runs code we do not see
			}
		}
	}
	for _, p := range eff.Paths {
		if p.Glob || p.Recursive {
			s.Opaque = true
		}
		s.addPath(p.Path)
	}
	for _, n := range eff.Network {
		s.addHost(n.Host)
	}
	for _, f := range eff.Flows {
		if f.Host != "" {
			s.addHost(f.Host)
		}
	}
	return s
}

// typedScope reads a typed action's path fields and URL.
func typedScope(a *action.Action) Scope {
	var s Scope
	for _, f := range a.Payload.PathFields() {
		if f.Path != nil && *f.Path != "" {
			s.addPath(*f.Path)
		}
	}
	if p, ok := action.FileURLPath(a); ok {
		s.addPath(p)
	} else if raw, ok := action.URLOf(a); ok {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			s.Opaque = true
		} else {
			s.addHost(u.Hostname())
		}
	}
	return s
}

// addPath adds an absolute, clean path; anything else makes s opaque.
func (s *Scope) addPath(p string) {
	if p == "" || !path.IsAbs(p) || path.Clean(p) != p {
		s.Opaque = true
		return
	}
	s.Paths = append(s.Paths, p)
}

// addHost adds a host; an unknown one makes s opaque.
func (s *Scope) addHost(h string) {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" || strings.ContainsAny(h, "*?/ ") {
		s.Opaque = true
		return
	}
	s.Hosts = append(s.Hosts, h)
}

// sortedSet sorts xs and drops duplicates.
func sortedSet(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return slices.Compact(xs)
}
