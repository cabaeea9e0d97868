package shield

import (
	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/verdict"
)

// sensitiveTypes reach data classes that need the supervisor whatever
// they name: the agent's memory, the screen, the clipboard.
var sensitiveTypes = map[action.Type]bool{
	action.MemorySearch: true, action.BrowserScreenshot: true, "screenshot": true, "clipboard_read": true,
}

// sensitiveAccess reports whether an action the earlier tiers allowed
// reads a sensitive data class, and the highest level it reads.
func (g *Gate) sensitiveAccess(st *state) (ifc.Level, bool) {
	lvl := ifc.Public
	for _, p := range st.paths {
		if p.Access&action.AccessRead == 0 || p.Glob {
			continue
		}
		if l := g.ifc.Paths().Classify(p.Path).Level; l > lvl {
			lvl = l
		}
	}
	return lvl, sensitiveTypes[st.act.Type] || lvl >= ifc.Restricted
}

// supervise sends an allowed access to sensitive data to the supervisor
// (the judge machinery with the supervisor profile): its ALLOW stands, a
// BLOCK blocks, low confidence or secret data goes to a human.
func (g *Gate) supervise(st *state, v verdict.Verdict) verdict.Verdict {
	if g.supervisor == nil || v.Decision != verdict.Allow || st.act == nil {
		return v
	}
	lvl, ok := g.sensitiveAccess(st)
	if !ok {
		return v
	}
	return g.supervisor.Evaluate(st.ctx, verdict.JudgeInput{Session: st.req.Session, Type: st.req.Type,
		Payload: st.req.Payload, Hash: st.hash, Findings: []string{"sensitive data access: " + lvl.String()},
		Taint: lvl.String(), Secret: lvl >= ifc.Critical, Scope: st.req.Type + ":" + st.hash})
}
