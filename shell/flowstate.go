package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file keeps the shell's state sound across control flow. The walk
// visits every branch of a command, so the effects it records are those of
// any path. The state is another matter: after an if, a loop, a
// short-circuit or a cd that may fail, a variable holds whatever the paths
// that reach that point left in it, and the directory is any of theirs.
// Where the paths disagree the value is unknown from there on: what a
// later command touches through it is then judged as unknown, never as
// the value the last-walked branch happened to leave.

// flowMark is the state at one point of the walk: how many assignments
// were made, the directory and the pushd stack.
type flowMark struct {
	nv   int
	nfn  int
	nal  int
	cwd  string
	dirs []string
	dead bool
}

// pathEnd is the state one path leaves: the assignments it made since the
// mark (newest last), its directory and stack, and whether it ends the
// shell (exit) so that nothing after it runs.
type pathEnd struct {
	vars    []variable
	fns     []fnState
	aliases []aliasState
	cwd     string
	dirs    []string
	dead    bool
}

// mark takes the current state.
func (a *analyzer) mark() flowMark {
	m := flowMark{nv: len(a.vars), nfn: len(a.fnv), nal: len(a.aliases), cwd: a.cwd, dead: a.dead}
	if len(a.dirs) > 0 {
		m.dirs = slices.Clone(a.dirs)
	}
	return m
}

// capture returns the state the path walked since m leaves, without
// changing it.
func (a *analyzer) capture(m flowMark) pathEnd {
	e := pathEnd{cwd: a.cwd, dead: a.dead}
	if len(a.vars) > m.nv {
		e.vars = slices.Clone(a.vars[m.nv:])
	}
	if len(a.fnv) > m.nfn {
		e.fns = slices.Clone(a.fnv[m.nfn:])
	}
	if len(a.aliases) > m.nal {
		e.aliases = slices.Clone(a.aliases[m.nal:])
	}
	if len(a.dirs) > 0 {
		e.dirs = slices.Clone(a.dirs)
	}
	return e
}

// end captures the path's state and rewinds to m.
func (a *analyzer) end(m flowMark) pathEnd {
	e := a.capture(m)
	a.rewind(m)
	return e
}

// endAll appends the states the path walked since m leaves to dst (two
// when it ended with a cd that may have failed: moved, or where it was)
// and rewinds to m.
func (a *analyzer) endAll(dst []pathEnd, m flowMark) []pathEnd {
	e := a.capture(m)
	dst = append(dst, e)
	if a.failSet {
		dst = append(dst, a.failEnd(e))
		a.failSet = false
	}
	a.rewind(m)
	return dst
}

// rewind returns to the state at m.
func (a *analyzer) rewind(m flowMark) {
	if len(a.vars) > m.nv {
		a.vars = a.vars[:m.nv]
	}
	if len(a.fnv) > m.nfn {
		a.fnv = a.fnv[:m.nfn]
	}
	if len(a.aliases) > m.nal {
		a.aliases = a.aliases[:m.nal]
	}
	a.cwd, a.dead = m.cwd, m.dead
	a.dirs = append(a.dirs[:0], m.dirs...)
}

// changed reports whether a path changed anything since its mark.
func (e *pathEnd) changed(m flowMark) bool {
	return len(e.vars) > 0 || len(e.fns) > 0 || len(e.aliases) > 0 || e.cwd != m.cwd || !slices.Equal(e.dirs, m.dirs)
}

// merge sets the state to the join of the paths' ends; stay adds the
// state at m itself (a path that skips the construct). The walk must be
// at m (rewound). Paths that ended the shell are left out; when every
// path did, what follows is dead too.
func (a *analyzer) merge(m flowMark, stay bool, ends ...pathEnd) {
	a.rewind(m)
	live := ends[:0:0]
	for _, e := range ends {
		if !e.dead {
			live = append(live, e)
		}
	}
	if len(live) == 0 && !stay {
		a.dead = true
		return
	}
	if stay {
		live = append(live, pathEnd{cwd: m.cwd, dirs: m.dirs})
	}
	// The directory and the pushd stack.
	cwd, dirs, same := live[0].cwd, live[0].dirs, true
	for _, e := range live[1:] {
		if e.cwd != cwd || !slices.Equal(e.dirs, dirs) {
			same = false
		}
	}
	if same {
		a.cwd, a.dirs = cwd, append(a.dirs[:0], dirs...)
	} else {
		a.cwd = ""
		n := 0
		for _, e := range live {
			n = max(n, len(e.dirs))
		}
		a.dirs = a.dirs[:0]
		for range n {
			a.dirs = append(a.dirs, "") // popd then leads somewhere unknown
		}
	}
	// The variables any path assigned.
	var done []string
	for _, e := range live {
		for _, v := range e.vars {
			if slices.Contains(done, v.name) {
				continue
			}
			done = append(done, v.name)
			a.joinVar(v.name, live)
		}
	}
	a.joinNames(live)
}

// joinVar sets name to the join of its value at the end of each path (its
// value at the mark where a path did not assign it).
func (a *analyzer) joinVar(name string, live []pathEnd) {
	entry, esrcs, efound := a.getVar(name)
	eAlts := a.altsOf(name)
	var w Word
	var srcs []source
	var alts []Word
	exact := true // every path's value is known (or one of known alternatives)
	for i, e := range live {
		v, s, found, va := entry, esrcs, efound, eAlts
		if x, ok := lastAssign(e.vars, name); ok {
			v, s, found, va = x.w, x.srcs, true, x.alts
		}
		srcs = addSources(srcs, s...)
		switch {
		case found && v.Known && v.proc == 0 && !v.Glob:
			alts = addAlt(alts, v)
		case found && len(va) > 0:
			for _, x := range va {
				alts = addAlt(alts, x)
			}
		default:
			exact = false
		}
		switch {
		case i == 0:
			w = v
			if !found {
				w = Word{}
			}
		case !found || !sameWord(w, v):
			w = Word{flags: (w.flags|v.flags)&(wObf|wDecoded|wNet|wSubst) | w.flags&v.flags&wOwnPid}
		}
	}
	if w.Known || !exact || len(alts) < 2 || len(alts) > maxAlts {
		alts = nil // one value, or too many to follow
	}
	a.vars = append(a.vars, variable{name: name, w: w, srcs: srcs, alts: alts})
}

// addSources appends to dst the sources of add it does not hold yet. A
// join of paths gathers every path's sources of a variable; appended
// whole, a variable joined after each of k constructs that may or may not
// assign it would hold 2^k copies of the same few (a 900-line script took
// a minute). As a set, a variable holds at most every source the script
// names.
func addSources(dst []source, add ...source) []source {
	for _, s := range add {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

// uniqSources returns srcs without repeats: srcs itself when it has none
// (the common case, no copy), else a new slice (srcs may be shared).
func uniqSources(srcs []source) []source {
	for i := 1; i < len(srcs); i++ {
		if slices.Contains(srcs[:i], srcs[i]) {
			return addSources(slices.Clip(srcs[:i:i]), srcs[i+1:]...)
		}
	}
	return srcs
}

// maxAlts bounds the values a variable is followed with: a call that uses
// it is walked once per value.
const maxAlts = 4

// addAlt adds a value to a list of alternatives, once.
func addAlt(alts []Word, w Word) []Word {
	for _, x := range alts {
		if sameWord(x, w) {
			return alts
		}
	}
	return append(alts, w)
}

// altsOf returns the values a variable may hold when it holds one of a
// few known ones (after paths that disagree), nil otherwise.
func (a *analyzer) altsOf(name string) []Word {
	if v, ok, _ := a.latest(name); ok && !v.w.Known {
		return v.alts
	}
	return nil
}

// latest is the last assignment of name the walk made (ok), unless code it
// cannot see may have changed the variable since (trusted is false: a
// source, a nameref, a trap that assigns it).
func (a *analyzer) latest(name string) (v variable, ok, trusted bool) {
	if a.havocAll || len(a.volatile) > 0 && slices.Contains(a.volatile, name) {
		return variable{}, false, false
	}
	v, ok = lastAssign(a.vars, name)
	return v, ok, true
}

// lastAssign is the last assignment of name among vars.
func lastAssign(vars []variable, name string) (variable, bool) {
	for i := len(vars) - 1; i >= 0; i-- {
		if vars[i].name == name {
			return vars[i], true
		}
	}
	return variable{}, false
}

// sameWord reports whether two values are the same known value, or the
// same set of values (a find set, one of a list of paths).
func sameWord(x, y Word) bool {
	if !(x.Known || x.flags&wSet != 0) || x.proc != 0 || y.proc != 0 {
		return false
	}
	return x.Known == y.Known && x.Value == y.Value && x.Glob == y.Glob && x.pat == y.pat && x.flags == y.flags
}

// havoc makes every variable a path assigned since m unknown, and the
// directory unknown if it moved: the state of a loop after any number of
// rounds, of a function that may return early.
func (a *analyzer) havoc(m flowMark, e pathEnd) {
	a.rewind(m)
	if e.cwd != m.cwd || !slices.Equal(e.dirs, m.dirs) {
		a.forgetDir()
	}
	var done []string
	for _, v := range e.vars {
		if slices.Contains(done, v.name) {
			continue
		}
		done = append(done, v.name)
		var srcs []source
		for _, x := range e.vars {
			if x.name == v.name {
				srcs = addSources(srcs, x.srcs...)
			}
		}
		_, es, _ := a.getVar(v.name)
		a.setVar(v.name, Word{flags: v.w.flags & (wObf | wDecoded | wNet | wSubst)}, addSources(srcs, es...))
	}
	a.joinNames([]pathEnd{{}, e}) // defined in no round, or in one
}

// jumps reports whether a loop body or a function body holds a statement
// that leaves it early (break, continue, return): its state at the end is
// then not the only one it can leave.
func jumps(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found {
			return false
		}
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			switch ce.Args[0].Lit() {
			case "break", "continue", "return":
				found = true
			case "":
				found = true // a dynamic name may be any of them
			}
		}
		return !found
	})
	return found
}

// failEnd is the state the statement just walked leaves when it fails,
// given e, the state it leaves: the same, but for a cd that stays where it
// was. (The ends share their slices: merge only reads them.)
func (a *analyzer) failEnd(e pathEnd) pathEnd {
	e.cwd = a.failCwdOr(e.cwd)
	return e
}

// failCwdOr is the directory the statement just walked leaves when it
// fails: where a cd that may have failed started, else cwd.
func (a *analyzer) failCwdOr(cwd string) string {
	if a.failSet {
		return a.failCwd
	}
	return cwd
}

// cdMayHaveFailed joins, before the next statement of a list, the
// directory a cd just moved to with the one it left: cd fails on a
// missing directory and the list goes on where it was.
func (a *analyzer) cdMayHaveFailed() {
	if a.failSet && !a.dead && a.failCwd != a.cwd {
		a.forgetDir()
	}
	a.failSet = false
}

// forgetDir makes the directory unknown, and where popd would lead.
func (a *analyzer) forgetDir() {
	a.cwd = ""
	for i := range a.dirs {
		a.dirs[i] = ""
	}
}

// isParam reports whether name is a positional or count parameter.
func isParam(name string) bool {
	switch name {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "#", "@", "*":
		return true
	}
	return false
}

// localNames lists the names a function body makes local before anything
// in it assigns them (local, or declare/typeset without -g, met first in
// the body): the caller's variable of that name is untouched by the call.
// A name assigned before its local declaration changed the caller's.
// later lists the names declared local only after an assignment: the
// caller's variable then holds whatever that assignment left. After a
// call that may assign any name (eval, source, a function, an alias:
// mayAssign), every name declared local is in later; so is a name
// declared local where the declaration may not run or not in the
// function's own shell (in a branch, a loop, a subshell, with &).
func localNames(body *syntax.Stmt, mayAssign func(name string) bool) (first, later []string) {
	var seen []string
	sure := sureDecls(body)
	opaque, maybe := false, false
	note := func(name string, local bool) {
		if local && (opaque || maybe) && !slices.Contains(first, name) {
			if !slices.Contains(later, name) {
				later = append(later, name)
			}
			return
		}
		if !slices.Contains(seen, name) {
			seen = append(seen, name)
			if local {
				first = append(first, name)
			}
		} else if local && !slices.Contains(first, name) && !slices.Contains(later, name) {
			later = append(later, name)
		}
	}
	syntax.Walk(body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DeclClause:
			local := x.Variant != nil && (x.Variant.Value == "local" || x.Variant.Value == "declare" || x.Variant.Value == "typeset")
			for _, as := range x.Args {
				if as.Naked && as.Name == nil && as.Value != nil {
					if v := as.Value.Lit(); len(v) > 1 && v[0] == '-' && strings.ContainsRune(v, 'g') {
						local = false
					}
				}
			}
			maybe = !slices.Contains(sure, x)
			for _, as := range x.Args {
				if as.Name == nil {
					continue
				}
				note(as.Name.Value, local)
				if global := x.Variant != nil && x.Variant.Value != "local" && !local; global &&
					slices.Contains(first, as.Name.Value) && !slices.Contains(later, as.Name.Value) {
					later = append(later, as.Name.Value) // declare -g past a local: the caller's
				}
			}
			return false
		case *syntax.Assign:
			if x.Name != nil {
				note(x.Name.Value, false)
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 {
				if n := x.Args[0].Lit(); n == "" || mayAssign(n) {
					opaque = true
				}
			}
			// read NAME, printf -v NAME, mapfile NAME...: an assignment too.
			for _, w := range x.Args {
				if l := w.Lit(); validName(l) {
					note(l, false)
				}
			}
		}
		return true
	})
	return first, later
}

// anyTime ends the walk of code that runs later, at any time (a DEBUG
// trap: before every command; PROMPT_COMMAND: before every prompt): the
// walk returns to m, and what the code assigns or where it moves is
// unknown from now on.
func (a *analyzer) anyTime(m flowMark) {
	e := a.end(m)
	a.failSet = false
	for _, v := range e.vars {
		a.volatileVar(v.name)
	}
	if e.cwd != m.cwd || !slices.Equal(e.dirs, m.dirs) {
		a.cwdVolatile, a.cwd = true, ""
	}
	a.joinNames([]pathEnd{{}, e}) // defined from when it runs on
}

// sureDecls lists the declarations that run, in the function's own
// shell, when its body does: the statements of the body itself.
func sureDecls(body *syntax.Stmt) []*syntax.DeclClause {
	var sure []*syntax.DeclClause
	if b, ok := body.Cmd.(*syntax.Block); ok {
		for _, s := range b.Stmts {
			if d, ok := s.Cmd.(*syntax.DeclClause); ok && !s.Background && !redirMayFail(s) {
				sure = append(sure, d)
			}
		}
	}
	return sure
}

// volatileVar marks a variable a trap or alias assigns: its value is
// unknown from here on, whatever the command assigns it later.
func (a *analyzer) volatileVar(name string) {
	if !slices.Contains(a.volatile, name) {
		a.volatile = append(a.volatile, name)
	}
}
