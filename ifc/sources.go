package ifc

import (
	"context"
	"path"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// originKind says what carried a level.
type originKind uint8

const (
	originNone     originKind = iota
	originPath                // a path's own classification
	originContains            // a sensitive tree below a directory that is read
	originActivity            // the activity table's label of a path
	originContent             // classified text
	originCommand             // the output of an environment-dumping command
	originTaint               // the session taint
	originLabel               // a label the executor attached to a result
)

// origin is a level with what carried it; described only when needed.
type origin struct {
	level  Level
	kind   originKind
	what   string   // path, program, text field or taint source
	rule   string   // path rule id, or the activity entry's source
	labels []string // content labels
	// maybe marks a level a pattern could reach rather than one the
	// action certainly carries (a glob that may match a secret name): at
	// most a review, never a block on its own.
	maybe bool
}

// describe names the source: a path and its rule, labels, never data.
func (o origin) describe() string {
	switch o.kind {
	case originPath:
		return o.what + " (" + o.rule + ")"
	case originContains:
		return o.what + " (holds " + o.rule + ")"
	case originActivity:
		return o.what + " (written with data from " + o.rule + ")"
	case originContent:
		return o.what + " labelled " + strings.Join(o.labels, ", ")
	case originCommand:
		return "output of " + o.what
	case originTaint:
		if o.what == "" {
			return "session taint"
		}
		return "session taint from " + o.what
	case originLabel:
		s := "result of " + o.what
		if len(o.labels) > 0 {
			s += " labelled " + strings.Join(o.labels, ", ")
		}
		return s
	case originNone:
	}
	return ""
}

// raise keeps the higher of two origins (the first on a tie).
func (o *origin) raise(n origin) {
	if n.level > o.level || n.level == o.level && (o.kind == originNone && n.kind != originNone || o.maybe && !n.maybe) {
		*o = n
	}
}

// noDataTypes reach their type's sink without carrying data to it.
var noDataTypes = map[action.Type]bool{
	action.DeleteSchedule: true, "memory_delete": true, "stop_agent": true, "delete_event": true,
}

// typeSinks maps the catalog's sink categories to ifc sinks.
var typeSinks = map[action.Sink]Sink{
	action.SinkShell: SinkExecute, action.SinkHTTP: SinkHTTP, action.SinkEmail: SinkEmail,
	action.SinkMessage: SinkMessage, action.SinkBrowser: SinkBrowser, action.SinkGitRemote: SinkGitRemote,
	action.SinkMemory: SinkMemory, action.SinkAgent: SinkAgent, action.SinkSchedule: SinkSchedule,
	action.SinkMCP: SinkMCP,
}

// harmlessWrites are device paths a write to which carries data nowhere.
var harmlessWrites = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/fd/1": true, "/dev/fd/2": true, "/proc/self/fd/1": true, "/proc/self/fd/2": true,
}

// sinksOf lists the sinks an action reaches: its type's sink, the
// places it writes, and what its shell code does.
func (t *Tracker) sinksOf(a *action.Action, resolved []action.PathField, eff *shell.Effects) sinkSet {
	var set sinkSet
	if s, ok := typeSinks[action.SinkOf(a.Type)]; ok && !noDataTypes[a.Type] {
		set.add(s)
	}
	for _, pf := range fieldsOf(a, resolved) {
		if pf.Access&action.AccessWrite != 0 && !harmlessWrites[*pf.Path] {
			set.add(t.writeSink(*pf.Path, false))
		}
	}
	if eff == nil {
		return set
	}
	if a.Type == action.ExecuteCommand {
		set.add(SinkExecute)
	}
	for _, u := range eff.Paths {
		if u.Access&action.AccessWrite != 0 && !harmlessWrites[u.Path] {
			set.add(t.writeSink(u.Path, u.Glob))
		}
	}
	if networkEffects(eff) {
		set.add(SinkNetwork)
	}
	if opaqueEffects(eff) {
		set.add(SinkOpaqueCommand)
	}
	return set
}

// writeSink says whether a write lands in the workspace.
func (t *Tracker) writeSink(p string, glob bool) Sink {
	if glob {
		p = literalDir(p)
	}
	if path.IsAbs(p) && under(path.Clean(p), t.ws) {
		return SinkWriteWorkspace
	}
	return SinkWriteOutside
}

// networkEffects reports whether shell code may send data off the
// machine: destinations, flows into network programs, remote execution,
// or a program (or subcommand) the knowledge base marks as networked.
func networkEffects(eff *shell.Effects) bool {
	if len(eff.Network) > 0 || len(eff.Flows) > 0 || eff.Has(shell.TagRemoteExec) {
		return true
	}
	for _, x := range eff.Execs {
		if shell.Networked(x.Name, x.Args) {
			return true
		}
	}
	return false
}

// opaqueEffects reports whether the analysis may have missed effects.
func opaqueEffects(eff *shell.Effects) bool {
	for _, k := range []shell.TagKind{shell.TagOpaque, shell.TagDynamicCommand, shell.TagEval,
		shell.TagLimitExceeded, shell.TagUnknownProgram} {
		if eff.Has(k) {
			return true
		}
	}
	return false
}

// envDumpers print the whole environment (or typed history): their
// output holds every secret the process was given.
var envDumpers = map[string]bool{"env": true, "printenv": true, "set": true, "export": true,
	"declare": true, "typeset": true, "history": true, "fc": true, "compgen": true}

// readMode says what a read's level is for.
type readMode uint8

const (
	// forFlow: what an action carries to its sinks. Directories count
	// with what lies below them, globs with every name they may match.
	forFlow readMode = iota
	// forTaint: what the agent saw. A directory counts as itself; a
	// wildcard-only name counts as its directory (the content shown is
	// classified on its own).
	forTaint
)

// flowOrigin returns the highest level the action carries: its read
// paths, file URLs, env-dumping commands piped to the network, and its
// outbound text when a classifier is set.
func (t *Tracker) flowOrigin(ctx context.Context, a *action.Action, resolved []action.PathField, eff *shell.Effects) (origin, error) {
	var best origin
	for _, pf := range fieldsOf(a, resolved) {
		if pf.Access&action.AccessRead == 0 {
			continue
		}
		o, err := t.readOrigin(ctx, *pf.Path, false, false, forFlow)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
	}
	if p, ok := action.FileURLPath(a); ok {
		o, err := t.readOrigin(ctx, p, false, false, forFlow)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
	}
	if eff != nil {
		o, err := t.effectsOrigin(ctx, eff, forFlow)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
		for _, f := range eff.Flows {
			if f.Kind == shell.SourceCommand && envDumpers[f.Source] {
				best.raise(origin{level: Critical, kind: originCommand, what: f.Source})
			}
		}
	}
	best.raise(t.textOrigin(a))
	return best, nil
}

// effectsOrigin is the highest level of the paths shell code reads.
func (t *Tracker) effectsOrigin(ctx context.Context, eff *shell.Effects, mode readMode) (origin, error) {
	var best origin
	for _, u := range eff.Paths {
		if u.Access&action.AccessRead == 0 {
			continue
		}
		o, err := t.readOrigin(ctx, u.Path, u.Glob, u.Recursive, mode)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
	}
	return best, nil
}

// textOrigin classifies the action's outbound text. Header values are
// credentials in use (judged by the heuristics against their issuer),
// not data: only what decoding shows in them counts (EncodedClassifier),
// and the credential headers themselves are left to the heuristics.
func (t *Tracker) textOrigin(a *action.Action) origin {
	var best origin
	if t.classify == nil {
		return best
	}
	enc, _ := t.classify.(EncodedClassifier)
	for _, tf := range a.Payload.Texts() {
		if tf.Value == "" {
			continue
		}
		classify := t.classify.Classify
		if name, ok := strings.CutPrefix(tf.Name, "headers."); ok {
			if enc == nil || credentialHeaders[strings.ToLower(name)] {
				continue
			}
			classify = enc.ClassifyEncoded
		}
		lvl, labels := classify(tf.Value)
		if lvl.clamp() > Public {
			best.raise(origin{level: lvl.clamp(), kind: originContent, what: "payload field " + tf.Name, labels: labels})
		}
	}
	return best
}

// credentialHeaders carry credentials by design: their values are judged
// by the heuristics against the issuer, not classified as data.
var credentialHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "cookie": true,
}

// readOrigin is the level of one read path: its rules, the sensitive
// trees below it (flows), and the activity table.
func (t *Tracker) readOrigin(ctx context.Context, p string, glob, recursive bool, mode readMode) (origin, error) {
	var o origin
	if glob {
		l := t.paths.ClassifyGlob(p, recursive, mode == forFlow)
		o = origin{level: l.Level, kind: originPath, what: p, rule: l.Rule, maybe: true}
	} else {
		l := t.paths.Classify(p)
		o = origin{level: l.Level, kind: originPath, what: p, rule: l.Rule}
		if mode == forFlow {
			if c := t.paths.Contains(p); c.Level > o.level {
				o = origin{level: c.Level, kind: originContains, what: p, rule: c.Rule}
			}
		}
	}
	if !path.IsAbs(p) {
		return o, nil
	}
	if o.level >= Critical {
		return o, nil // nothing in the activity table can raise it
	}
	if !glob {
		// A directory read for a flow carries what was written below it.
		e, ok, err := t.store.TopActivity(ctx, p, mode == forFlow, o.level+1)
		if err != nil || !ok {
			return o, err
		}
		return origin{level: e.Level.clamp(), kind: originActivity, what: e.Path, rule: e.Source, labels: e.Labels}, nil
	}
	// A glob inherits the highest label among the files it may match.
	g := newGlobSegs(p, recursive)
	e, ok, err := t.store.TopActivityMatching(ctx, literalDir(p), o.level+1, g.match)
	if err != nil || !ok {
		return o, err
	}
	return origin{level: e.Level.clamp(), kind: originActivity, what: e.Path, rule: e.Source, labels: e.Labels}, nil
}

// globSegs is a glob ready to be matched against many files (the
// activity table): split once, with a cheap test that rules out most
// files first. The file's last segment must match the glob's last one,
// so it must start with that segment's literal start and end with its
// literal end.
type globSegs struct {
	segs           []string
	recursive      bool
	filter         bool // prefix and suffix apply
	prefix, suffix string
}

func newGlobSegs(p string, recursive bool) *globSegs {
	g := &globSegs{segs: appendSegs(nil, p), recursive: recursive}
	last := g.segs[len(g.segs)-1]
	if recursive && last == "**" {
		return g // any file below
	}
	for _, s := range g.segs {
		if _, err := path.Match(s, ""); err != nil {
			return g // a malformed segment matches anything (matchSegList)
		}
	}
	i := strings.IndexAny(last, "*?[\\")
	if i < 0 {
		g.prefix, g.filter = last, true
		return g
	}
	g.prefix, g.filter = last[:i], true
	if !strings.ContainsAny(last, "[\\") {
		g.suffix = last[strings.LastIndexAny(last, "*?")+1:]
	}
	return g
}

// match reports whether the absolute path file matches the glob; in a
// recursive glob "**" matches any run of segments.
func (g *globSegs) match(file string) bool {
	if g.filter {
		base := file[strings.LastIndexByte(file, '/')+1:]
		if len(base) < len(g.prefix)+len(g.suffix) || !strings.HasPrefix(base, g.prefix) || !strings.HasSuffix(base, g.suffix) {
			return false
		}
	}
	var fb [24]string // most paths fit: no allocation
	return matchSegList(g.segs, appendSegs(fb[:0], file), g.recursive)
}

// appendSegs appends the "/"-separated parts of s to dst, as strings.Split.
func appendSegs(dst []string, s string) []string {
	for {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}

func matchSegList(pat, segs []string, recursive bool) bool {
	for i, ps := range pat {
		if recursive && ps == "**" {
			for j := i; j <= len(segs); j++ {
				if matchSegList(pat[i+1:], segs[j:], recursive) {
					return true
				}
			}
			return false
		}
		if i >= len(segs) {
			return false
		}
		if ok, err := path.Match(ps, segs[i]); err != nil || !ok {
			return err != nil // a malformed pattern may match anything
		}
	}
	return len(pat) == len(segs)
}
