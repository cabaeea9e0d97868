package ifc

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// Output is what an executed action returned.
type Output struct {
	Text string // the tool's result (classified when a classifier is set)
	// Level and Labels are what the executor itself attached to the
	// result (content tags): a mail reader that knows a message is
	// restricted says so here. Public and nil when it attached nothing.
	Level  Level
	Labels []string
}

// Observe learns from an action that ran: it raises the session taint
// (and its ancestors') to what the agent saw — the paths read, the
// result's content and the labels the executor attached — and records in
// the activity table the label of each file the action wrote with
// classified data, so that later reads of that file, in any session,
// inherit it. A write at a taint sink (write_outside in the default
// preset) also carries the session taint: the agent may have put what it
// saw into it.
func (t *Tracker) Observe(ctx context.Context, in Input, out Output) error {
	if in.Action == nil || in.Action.Payload == nil {
		return errors.New("ifc observe: no action")
	}
	eff := t.effects(in)
	var seen origin
	if in.Session != "" {
		// Without a session nothing is tainted: what the agent saw
		// matters only for the labels of what the action wrote.
		var err error
		if seen, err = t.seenOrigin(ctx, in.Action, in.Resolved, eff, out); err != nil {
			return fmt.Errorf("ifc observe: %w", err)
		}
	}
	if seen.level > Public && in.Session != "" {
		if err := t.store.RaiseTaint(ctx, in.Session, seen.level, seen.describe()); err != nil {
			return fmt.Errorf("ifc observe: raise taint: %w", err)
		}
	}
	if err := t.labelWrites(ctx, in, eff); err != nil {
		return fmt.Errorf("ifc observe: %w", err)
	}
	return nil
}

// seenOrigin is the highest level of what the action showed the agent.
func (t *Tracker) seenOrigin(ctx context.Context, a *action.Action, resolved []action.PathField, eff *shell.Effects, out Output) (origin, error) {
	var best origin
	for _, pf := range fieldsOf(a, resolved) {
		if pf.Access&action.AccessRead == 0 {
			continue
		}
		o, err := t.readOrigin(ctx, *pf.Path, false, false, forTaint)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
	}
	if p, ok := action.FileURLPath(a); ok {
		o, err := t.readOrigin(ctx, p, false, false, forTaint)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
	}
	if eff != nil {
		o, err := t.effectsOrigin(ctx, eff, forTaint)
		if err != nil {
			return origin{}, err
		}
		best.raise(o)
	}
	if l := out.Level.clamp(); l > Public || len(out.Labels) > 0 {
		best.raise(origin{level: l, kind: originLabel, what: string(a.Type), labels: out.Labels})
	}
	if t.classify != nil && out.Text != "" {
		if l, labels := t.classify.Classify(out.Text); l.clamp() > Public {
			best.raise(origin{level: l.clamp(), kind: originContent, what: "the " + string(a.Type) + " result", labels: labels})
		}
	}
	return best, nil
}

// labelWrites records the label of every file the action wrote with data
// above Internal: the highest level the action carried (its reads, the
// directories below them, written text) and, at taint sinks, the session
// taint. A file whose own path already classifies that high is skipped.
func (t *Tracker) labelWrites(ctx context.Context, in Input, eff *shell.Effects) error {
	writes := t.writtenPaths(in.Action, in.Resolved, eff)
	if len(writes) == 0 {
		return nil
	}
	flow, err := t.memoFlow(ctx, in, eff)
	if err != nil {
		return err
	}
	taint := origin{kind: originTaint}
	if in.Session != "" {
		lvl, source, err := t.store.MaxTaint(ctx, in.Session)
		if err != nil {
			return fmt.Errorf("read session taint: %w", err)
		}
		taint.level, taint.what = lvl.clamp(), source
	}
	var errs []error
	for _, p := range writes {
		o := flow
		if t.policy.Tainted(t.writeSink(p, false)) {
			o.raise(taint)
		}
		if o.level <= Internal || t.paths.Classify(p).Level >= o.level {
			continue
		}
		a := Activity{Path: p, Level: o.level, Labels: o.labels, Source: o.short(), Session: in.Session,
			Updated: t.now()}
		if err := t.store.UpsertActivity(ctx, a); err != nil {
			errs = append(errs, fmt.Errorf("record activity for %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// short names an origin for an activity entry without nesting earlier
// entries' sources, so labels passed along a chain of copies stay short.
func (o origin) short() string {
	switch o.kind {
	case originActivity:
		return o.what
	case originPath, originContains:
		return o.what + " (" + o.rule + ")"
	case originNone, originContent, originCommand, originTaint, originLabel:
	}
	return o.describe()
}

// writtenPaths lists the literal files an action creates or overwrites.
// Glob targets name no single file and are skipped.
func (t *Tracker) writtenPaths(a *action.Action, resolved []action.PathField, eff *shell.Effects) []string {
	var out []string
	add := func(p string) {
		if !path.IsAbs(p) || harmlessWrites[p] {
			return
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, path.Clean(p))
	}
	for _, pf := range fieldsOf(a, resolved) {
		if pf.Access&action.AccessWrite != 0 {
			add(*pf.Path)
		}
	}
	if eff != nil {
		for _, u := range eff.Paths {
			if u.Access&action.AccessWrite != 0 && !u.Glob {
				add(u.Path)
			}
		}
	}
	return out
}

// Spawn records that session child is a sub-agent of parent. From then
// on every raise of the child's taint reaches the parent; the child
// starts with the parent's taint, since its task may carry what the
// parent saw.
func (t *Tracker) Spawn(ctx context.Context, parent, child string) error {
	if parent == "" || child == "" {
		return fmt.Errorf("ifc spawn %q from %q: a sub-agent link needs two sessions", child, parent)
	}
	if err := t.store.SetParent(ctx, child, parent); err != nil {
		return fmt.Errorf("ifc spawn %s from %s: %w", child, parent, err)
	}
	lvl, source, err := t.store.MaxTaint(ctx, parent)
	if err != nil {
		return fmt.Errorf("ifc spawn %s from %s: %w", child, parent, err)
	}
	if lvl > Public {
		if err := t.store.RaiseTaint(ctx, child, lvl, "parent session "+parent+": "+source); err != nil {
			return fmt.Errorf("ifc spawn %s from %s: %w", child, parent, err)
		}
	}
	return nil
}
