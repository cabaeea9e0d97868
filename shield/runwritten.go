package shield

import (
	"context"
	"slices"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/runfile"
	"github.com/parallax/parallax/verdict"
)

// Bounds of the runnable files a gate remembers: sessions (oldest
// forgotten first), files per session (most recent kept), and bytes of
// content kept per file (a larger file is remembered as written, without
// content).
const (
	maxWrittenSessions = 256
	maxWrittenFiles    = 32
)

// writtenFile is a runnable file a session wrote.
type writtenFile struct {
	path    string
	content string
	known   bool // content is what the write put there
}

// writtenFiles remembers, per session, the runnable files it wrote and
// what it wrote there.
type writtenFiles struct{ l *sessionLists[writtenFile] }

func newWrittenFiles() *writtenFiles {
	return &writtenFiles{newSessionLists(maxWrittenSessions, maxWrittenFiles,
		func(a, b writtenFile) bool { return a.path == b.path })}
}

// content returns what session wrote to p; ok is false when it wrote
// nothing there or its content is not known.
func (w *writtenFiles) content(session, p string) (string, bool) {
	f, ok := w.l.find(session, func(f writtenFile) bool { return f.path == p })
	return f.content, ok && f.known
}

// wrote reports whether session wrote p.
func (w *writtenFiles) wrote(session, p string) bool {
	_, ok := w.l.find(session, func(f writtenFile) bool { return f.path == p })
	return ok
}

func (w *writtenFiles) record(session string, f writtenFile) { w.l.add(session, f) }

// agentWrote reports whether an agent wrote the runnable file p: this
// session (the gate's memory), or any session (the activity table, which
// a hook's gate of a later call reads). A store that cannot answer counts
// as yes.
func (g *Gate) agentWrote(st *state, p string) bool {
	if g.written.wrote(st.req.Session, p) {
		return true
	}
	ctx := st.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	a, ok, err := g.ifc.Store().TopActivity(ctx, p, false, ifc.Public)
	if err != nil {
		return true
	}
	return ok && slices.Contains(a.Labels, LabelAgentWritten)
}

// noteRunfiles records the runnable files an action that may run writes:
// in the session's memory (with the content when the action says it) and
// in the activity table. A record that cannot be written blocks the
// action: a later run would not know who wrote the file.
func (g *Gate) noteRunfiles(st *state, v verdict.Verdict) verdict.Verdict {
	if v.Decision == verdict.Block || st.act == nil || st.nest > 0 {
		return v
	}
	var paths []string
	for _, pf := range st.act.Payload.PathFields() {
		if pf.Access&action.AccessWrite != 0 && runfile.KindOf(*pf.Path) != runfile.KindNone {
			paths = append(paths, *pf.Path)
		}
	}
	if st.effects != nil {
		for _, u := range st.effects.Paths {
			if u.Access&action.AccessWrite != 0 && !u.Glob && runfile.KindOf(u.Path) != runfile.KindNone {
				paths = append(paths, u.Path)
			}
		}
	}
	ctx := st.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	for i, p := range paths {
		if i >= maxWrittenFiles {
			break
		}
		f := writtenFile{path: p}
		if i == 0 && st.runContentOK && len(st.runContent) <= runfile.MaxFileBytes {
			f.content, f.known = st.runContent, true
		}
		if c, ok := st.runTexts[p]; ok && len(c) <= runfile.MaxFileBytes {
			f.content, f.known = c, true
		}
		g.written.record(st.req.Session, f)
		err := g.ifc.Store().UpsertActivity(ctx, ifc.Activity{Path: p, Level: ifc.Public,
			Labels: []string{LabelAgentWritten}, Source: "agent_write", Session: st.req.Session, Updated: g.now()})
		if err != nil {
			return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageIFC, Tier: 1, Rule: RuleIFCObserve,
				Reason: "cannot record that the agent writes " + g.rel(p) + " (" + err.Error() + "); blocked to fail closed",
				Hash:   v.Hash}
		}
	}
	return v
}
