package shell

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// This file keeps functions and aliases sound across control flow, as
// flowstate.go does variables: a definition made in a subshell dies with
// it, one made on a branch that may not run may not be in effect, and
// unset -f or unalias removes it.

// binding is what a name stands for at a point of the walk: the
// definitions the paths that reach it made, and whether one of them left
// the name undefined (none).
type binding[T comparable] struct {
	name string
	defs []T
	none bool
}

// fnState binds a function name to its bodies; aliasState an alias name
// to its texts.
type (
	fnState    = binding[*syntax.Stmt]
	aliasState = binding[Word]
)

// bound returns what list binds name to (found: list binds it; when it
// does not, the name is undefined).
func bound[T comparable](list []binding[T], name string) (defs []T, none, found bool) {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].name == name {
			return list[i].defs, list[i].none, true
		}
	}
	return nil, true, false
}

// joinBindings appends to list, for each name a path bound (ends[i] the
// bindings path i made, newest last), the join of what the paths leave
// it: what list binds it to where a path did not bind it.
func joinBindings[T comparable](list []binding[T], ends [][]binding[T]) []binding[T] {
	var done []string
	for _, e := range ends {
		for _, b := range e {
			if slices.Contains(done, b.name) {
				continue
			}
			done = append(done, b.name)
			mdefs, mnone, _ := bound(list, b.name)
			j := binding[T]{name: b.name}
			for _, p := range ends {
				defs, none, found := bound(p, b.name)
				if !found {
					defs, none = mdefs, mnone
				}
				for _, d := range defs {
					if !slices.Contains(j.defs, d) {
						j.defs = append(j.defs, d)
					}
				}
				j.none = j.none || none
			}
			list = append(list, j)
		}
	}
	return list
}

// unbind appends to list that name ("": every name) is undefined, or
// (maybe) may be.
func unbind[T comparable](list []binding[T], name string, maybe bool) []binding[T] {
	n := len(list)
	for i := n - 1; i >= 0; i-- {
		b := list[i]
		if name != "" && b.name != name || len(b.defs) == 0 ||
			slices.ContainsFunc(list[i+1:], func(x binding[T]) bool { return x.name == b.name }) {
			continue // another name, undefined, or not the latest binding of its name
		}
		if !maybe {
			b.defs = nil
		}
		b.none = true
		list = append(list, b)
	}
	return list
}

// joinNames joins the functions and aliases the paths defined; the walk
// must be at their mark.
func (a *analyzer) joinNames(live []pathEnd) {
	fns := make([][]fnState, len(live))
	als := make([][]aliasState, len(live))
	for i, e := range live {
		fns[i], als[i] = e.fns, e.aliases
	}
	a.fnv = joinBindings(a.fnv, fns)
	a.aliases = joinBindings(a.aliases, als)
}

// funcWays returns the bodies name may run as a function, and whether it
// may be no function at all.
func (a *analyzer) funcWays(name string) (bodies []*syntax.Stmt, none bool) {
	bodies, none, _ = bound(a.fnv, name)
	return bodies, none
}

// aliasWays returns the texts the alias name may expand to (none while
// that alias is being expanded: bash does not expand one inside itself).
func (a *analyzer) aliasWays(name string) []Word {
	if slices.Contains(a.expanding, name) {
		return nil
	}
	defs, _, _ := bound(a.aliases, name)
	return defs
}

// mayAssign reports whether a call of name may assign variables the
// walk of a body does not see as assignments: code run in this shell
// (eval, source, command eval), a function, an alias.
func (a *analyzer) mayAssign(name string) bool {
	switch name {
	case "eval", "source", ".", "command", "builtin":
		return true
	}
	return a.isFunc(name) || len(a.aliasWays(name)) > 0
}
