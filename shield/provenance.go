package shield

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// Provenance: what a session downloaded, so that running it in a later
// action is caught even when no single action shows both halves
// ("curl -o tool URL", then "chmod +x tool", then "./tool").

// RuleSessionDownloadExec is the reason code of a block for running (or
// making executable) a file an earlier action of the session downloaded.
const RuleSessionDownloadExec = "session_download_exec"

// Bounds of the in-memory provenance: old sessions are forgotten first,
// and a session remembers its most recent downloads.
const (
	maxSessions         = 4096
	maxDownloadsSession = 512
)

// provenance remembers, per session, the paths written with network data.
type provenance struct{ l *sessionLists[string] }

func newProvenance() *provenance {
	return &provenance{newSessionLists(maxSessions, maxDownloadsSession, func(a, b string) bool { return a == b })}
}

// downloaded reports whether session downloaded p earlier.
func (p *provenance) downloaded(session, path string) bool {
	_, ok := p.l.find(session, func(d string) bool { return d == path })
	return ok
}

// record adds paths a session downloaded.
func (p *provenance) record(session string, paths []string) {
	if session == "" || len(paths) == 0 {
		return
	}
	p.l.add(session, paths...)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// downloads lists what an action about to run will write with network
// data.
func downloads(a *action.Action, eff *shell.Effects) []string {
	var out []string
	if eff != nil {
		out = append(out, eff.Downloads...)
	}
	if a.Type == "download_file" {
		for _, pf := range a.Payload.PathFields() {
			if pf.Access&action.AccessWrite != 0 {
				out = append(out, *pf.Path)
			}
		}
	}
	return out
}

// sessionDownloadExec blocks a command that runs, or marks executable, a
// file the same session downloaded in an earlier action.
func (g *Gate) sessionDownloadExec(st *state) (verdict.Verdict, bool) {
	if st.req.Session == "" || st.effects == nil {
		return verdict.Verdict{}, false
	}
	for _, e := range st.effects.Execs {
		if e.Path != "" && g.prov.downloaded(st.req.Session, e.Path) {
			return block(verdict.StageIFC, 1, RuleSessionDownloadExec,
				"runs "+e.Path+", which an earlier action of this session downloaded")
		}
	}
	for _, u := range st.effects.Paths {
		if u.Program == "chmod" && !u.Glob && g.prov.downloaded(st.req.Session, u.Path) && addsExec(st.effects) {
			return block(verdict.StageIFC, 1, RuleSessionDownloadExec,
				"makes "+u.Path+" executable, which an earlier action of this session downloaded")
		}
	}
	return verdict.Verdict{}, false
}

// addsExec reports whether a chmod in the effects grants execute
// permission (+x, a+rx, u=rwx, 755 ...).
func addsExec(eff *shell.Effects) bool {
	for _, e := range eff.Execs {
		if e.Name != "chmod" {
			continue
		}
		for _, m := range e.Args {
			if modeAddsExec(m) {
				return true
			}
		}
	}
	return false
}

// modeAddsExec reports whether a chmod mode argument grants an execute bit.
func modeAddsExec(m string) bool {
	if m == "" {
		return true // unresolved mode: assume the worst
	}
	if isOctal(m) {
		for _, c := range m[max(0, len(m)-3):] {
			if (c-'0')&1 == 1 {
				return true
			}
		}
		return false
	}
	if strings.HasPrefix(m, "-") && !strings.ContainsAny(m, "=+") {
		return false // an option, or a removal such as -x
	}
	for _, clause := range strings.Split(m, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.ContainsAny(clause[i:], "xX") {
			return true
		}
	}
	return false
}

func isOctal(s string) bool {
	for _, c := range s {
		if c < '0' || c > '7' {
			return false
		}
	}
	return s != ""
}
