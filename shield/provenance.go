package shield

import (
	"strings"
	"sync"

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
// It is safe for concurrent use.
type provenance struct {
	mu    sync.Mutex
	m     map[string][]string
	order []string // sessions, oldest first
}

func newProvenance() *provenance { return &provenance{m: make(map[string][]string)} }

// downloaded reports whether session downloaded p earlier.
func (p *provenance) downloaded(session, path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.m[session] {
		if d == path {
			return true
		}
	}
	return false
}

// record adds paths a session downloaded.
func (p *provenance) record(session string, paths []string) {
	if session == "" || len(paths) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ds, seen := p.m[session]
	if !seen {
		if len(p.order) >= maxSessions {
			delete(p.m, p.order[0])
			p.order = p.order[1:]
		}
		p.order = append(p.order, session)
	}
	for _, x := range paths {
		if !contains(ds, x) {
			ds = append(ds, x)
		}
	}
	if len(ds) > maxDownloadsSession {
		ds = ds[len(ds)-maxDownloadsSession:]
	}
	p.m[session] = ds
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
