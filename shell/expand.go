package shell

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file resolves parameter expansions.

// setVar assigns a variable in the current scope.
func (a *analyzer) setVar(name string, w Word, srcs []source) {
	if name == "" {
		return
	}
	if a.anyReadonly || len(a.readonly) > 0 && slices.Contains(a.readonly, name) {
		// A readonly variable keeps its value (read, printf -v, for and
		// local fail and go on): the old value, or the new one.
		a.joinVar(name, []pathEnd{{}, {vars: []variable{{name: name, w: w, srcs: srcs}}}})
		return
	}
	a.putVar(name, w, srcs)
}

// putVar sets a variable to w, readonly or not.
// Its sources are kept as a set: x=$x$x would otherwise double them at
// each assignment.
func (a *analyzer) putVar(name string, w Word, srcs []source) {
	a.vars = append(a.vars, variable{name: name, w: w, srcs: uniqSources(srcs)})
}

// getVar looks a variable up; found is false when nothing is known of it.
func (a *analyzer) getVar(name string) (w Word, srcs []source, found bool) {
	if v, ok, trusted := a.latest(name); !trusted {
		return Word{}, nil, false
	} else if ok {
		return v.w, v.srcs, true
	}
	switch name {
	case "HOME":
		if a.opt.Home != "" {
			return Word{Value: a.opt.Home, Known: true}, nil, true
		}
	case "PWD":
		if a.cwd != "" {
			return Word{Value: a.cwd, Known: true}, nil, true
		}
	case "IFS":
		return Word{Value: " \t\n", Known: true}, nil, true
	}
	if v, ok := a.opt.Env[name]; ok {
		return Word{Value: v, Known: true}, nil, true
	}
	if a.depth == 0 && a.fnDef == "" {
		// The command string runs as "bash -c CMD" with no arguments:
		// at its top level $1.. are empty and $# is 0 ($0 stays unknown).
		switch name {
		case "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*":
			return Word{Known: true}, nil, true
		case "#":
			return Word{Value: "0", Known: true}, nil, true
		}
	}
	return Word{}, nil, false
}

// envSource reports whether an unset name reads the environment of the
// process (as opposed to a positional or special parameter).
func envSource(name string) bool {
	if name == "" || !(name[0] == '_' || name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		return false
	}
	switch name {
	case "RANDOM", "LINENO", "SECONDS", "BASHPID", "PPID", "UID", "EUID", "SRANDOM", "EPOCHSECONDS",
		"EPOCHREALTIME", "BASH_SUBSHELL", "OLDPWD", "REPLY", "OPTARG", "OPTIND", "SHLVL":
		return false
	}
	return true
}

// param appends the value of ${...}.
func (b *wbuild) param(pe *syntax.ParamExp, quoted bool) {
	a := b.a
	if pe.Param == nil {
		b.hole()
		return
	}
	name := pe.Param.Value
	if name == "IFS" && !quoted && b.split {
		a.tagf(nil, TagObfuscation, "$IFS used as a separator")
		b.emit()
		return
	}
	w, srcs, found := a.getVar(name)
	a.wsrc = append(a.wsrc, srcs...)
	if pe.Excl && pe.Names == 0 && pe.Index == nil && namesSrc(srcs) {
		// ${!n} over the names of every variable: their values.
		a.wsrc = append(a.wsrc, source{kind: SourceCommand, name: "${!" + name + "}", dump: true})
	}
	if !found && envSource(name) {
		a.wsrc = append(a.wsrc, source{kind: SourceEnv, name: name})
	}
	set := w.flags&wSet != 0
	b.flags |= w.flags &^ (wObf | wSet | wRec | wMany | wProg | wOwnPid)
	switch {
	case pe.Length:
		if found && w.Known && !set {
			b.text(strconv.Itoa(len(w.Value)), quoted)
			return
		}
		b.segHole(tokOne, quoted) // a length is a number
		return
	case pe.Excl || pe.Index != nil || pe.Names != 0 || pe.Width || pe.IsSet || pe.NestedParam != nil:
		w = Word{}
	case set && (pe.Slice != nil || pe.Repl != nil || pe.Exp != nil && !defaultOp(pe.Exp.Op)):
		w = a.setOp(w, pe)
	case pe.Slice != nil:
		w = a.slice(w, pe.Slice)
	case pe.Repl != nil:
		w = a.replace(w, pe.Repl)
	case pe.Exp != nil:
		w, _ = a.paramOp(name, w, found, pe.Exp)
	default:
		if !found {
			if k := specialTok(name); k != tokNone {
				b.segHole(k, quoted)
				if name == "!" {
					b.own++ // the PID of the last job this command put in the background
				}
				return
			}
			w = Word{}
		}
	}
	if w.flags&wSet != 0 {
		b.setPat(w, quoted)
		if w.flags&wOwnPid != 0 && plainParam(pe) {
			b.own++ // $pid with pid=$!: still the command's own job
		}
		return
	}
	if !w.Known {
		if a.altVar == "" && plainParam(pe) && len(a.altsOf(name)) > 0 {
			a.altVar = name // the call is walked again with each value
		}
		if w.flags&wOwnPid != 0 && plainParam(pe) {
			// $pid with pid=$!: still the command's own job.
			b.hole()
			b.own++
			return
		}
		base, ok := dynamicBase(w)
		switch {
		case ok && found && plainParam(pe) && progWord(w):
			b.progLoc(base) // P=$(which parallax); $P
		case ok && found && plainParam(pe):
			// $P where P ends in a literal program name: "*/name".
			b.hole()
			b.text("/"+base, true)
		default:
			b.hole()
		}
		return
	}
	b.expansion(w.Value, quoted)
}

// plainParam reports whether ${...} is the variable's value, unchanged.
func plainParam(pe *syntax.ParamExp) bool {
	return !pe.Length && !pe.Excl && pe.Index == nil && pe.Names == 0 && !pe.Width && !pe.IsSet &&
		pe.NestedParam == nil && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil
}

// setOp applies ${x%...} or ${x##...} to a set word where the result is
// again a sound set: a literal suffix or the extension of the last
// segment removed (${f%.txt}, ${f%.*}), the directory (${f##*/}) or the
// last segment (${f%/*}). Other operations give an unknown word.
func (a *analyzer) setOp(w Word, pe *syntax.ParamExp) Word {
	if pe.Exp == nil || pe.Slice != nil || pe.Repl != nil || pe.Exp.Word == nil {
		return Word{}
	}
	op := pe.Exp.Op
	pw := a.word1(pe.Exp.Word)
	if !pw.Known {
		return Word{}
	}
	pat := w.pattern()
	slash := strings.LastIndexByte(pat, '/')
	seg := pat[slash+1:]
	rec := w.flags&wRec != 0
	suffix := op == syntax.RemSmallSuffix || op == syntax.RemLargeSuffix
	switch v := pw.Value; {
	case op == syntax.RemSmallSuffix && v == "/*":
		switch {
		case slash < 0:
			return w
		case slash == 0:
			return Word{}
		}
		return setWord(pat[:slash], rec)
	case op == syntax.RemLargePrefix && v == "*/":
		if seg == "" {
			return Word{}
		}
		if seg == "**" {
			return setWord("*", true)
		}
		return setWord(seg, rec)
	case op == syntax.RemSmallSuffix && v == ".*":
		dot := strings.LastIndexByte(seg, '.')
		if dot <= 0 || strings.ContainsAny(seg[dot:], "*?[\\") {
			return Word{}
		}
		return setWord(pat[:slash+1+dot], rec)
	case suffix && v != "" && !strings.ContainsAny(v, "*?[\\/"):
		if !strings.HasSuffix(seg, v) || len(seg) == len(v) || seg[len(seg)-len(v)-1] == '\\' {
			return Word{}
		}
		return setWord(pat[:len(pat)-len(v)], rec)
	}
	return Word{}
}

// defaultOp reports whether a parameter operator yields the value itself
// or a default (never a transformed value).
func defaultOp(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return true
	}
	return false
}

// specialTok is the shape of the special parameters bash always sets to
// a number ($$, $?, $RANDOM, ...); tokNone for the others.
func specialTok(name string) tokKind {
	switch name {
	case "$", "?", "#", "RANDOM", "SRANDOM", "PPID", "UID", "EUID", "BASHPID", "SECONDS", "LINENO",
		"EPOCHSECONDS", "EPOCHREALTIME", "BASH_SUBSHELL":
		return tokOne
	case "!":
		return tokMaybeEmpty
	}
	return tokNone
}

// paramOp applies ${x:-w}, ${x#p} and friends. An unset variable takes
// its default: that is what bash does, and the command itself is all the
// environment an agent controls.
func (a *analyzer) paramOp(name string, w Word, found bool, e *syntax.Expansion) (Word, bool) {
	set := found && (!w.Known || w.Value != "")
	switch e.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if set {
			return w, true
		}
		d := a.word1(e.Word)
		orNull := e.Op == syntax.DefaultUnsetOrNull || e.Op == syntax.AssignUnsetOrNull
		switch {
		case found && orNull:
			// Known empty (or unset): the default.
		case found && d.Known && d.Value == "":
			// Empty either way.
		default:
			// Not found: the environment may set it. Known empty: set to
			// "" or unset, which ${x-d} tells apart and the walk does not.
			d = Word{flags: d.flags & (wObf | wDecoded | wNet | wSubst)}
		}
		if e.Op == syntax.AssignUnset || e.Op == syntax.AssignUnsetOrNull {
			a.setVar(name, d, nil)
		}
		return d, true
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if !found {
			return Word{}, false // might be set in the environment
		}
		if e.Op == syntax.AlternateUnsetOrNull && !set && w.Known {
			return Word{Value: "", Known: true}, true
		}
		return a.word1(e.Word), true
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return w, found
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		p := a.word1(e.Word)
		if !found || !w.Known || !p.Known {
			return Word{}, false
		}
		return Word{Value: trimPattern(w.Value, p.pattern(), e.Op), Known: true}, true
	case syntax.UpperAll, syntax.UpperFirst, syntax.LowerAll, syntax.LowerFirst:
		if !found || !w.Known {
			return Word{}, false
		}
		return Word{Value: caseOp(w.Value, e.Op), Known: true}, true
	}
	return Word{}, false
}

// trimPattern removes the shortest/longest prefix/suffix matching pat.
func trimPattern(v, pat string, op syntax.ParExpOperator) string {
	if len(v) > 256 {
		return v
	}
	switch op {
	case syntax.RemSmallPrefix:
		for i := 0; i <= len(v); i++ {
			if ok, _ := path.Match(pat, v[:i]); ok {
				return v[i:]
			}
		}
	case syntax.RemLargePrefix:
		for i := len(v); i >= 0; i-- {
			if ok, _ := path.Match(pat, v[:i]); ok {
				return v[i:]
			}
		}
	case syntax.RemSmallSuffix:
		for i := len(v); i >= 0; i-- {
			if ok, _ := path.Match(pat, v[i:]); ok {
				return v[:i]
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= len(v); i++ {
			if ok, _ := path.Match(pat, v[i:]); ok {
				return v[:i]
			}
		}
	}
	return v
}

func caseOp(v string, op syntax.ParExpOperator) string {
	switch op {
	case syntax.UpperAll:
		return strings.ToUpper(v)
	case syntax.LowerAll:
		return strings.ToLower(v)
	}
	if v == "" {
		return v
	}
	if op == syntax.UpperFirst {
		return strings.ToUpper(v[:1]) + v[1:]
	}
	return strings.ToLower(v[:1]) + v[1:]
}

// slice applies ${x:off:len} with literal numbers.
func (a *analyzer) slice(w Word, s *syntax.Slice) Word {
	if !w.Known {
		return Word{}
	}
	off, ok := arithLit(s.Offset)
	if !ok {
		return Word{}
	}
	v := w.Value
	if off < 0 {
		off += len(v)
	}
	if off < 0 || off > len(v) {
		return Word{Value: "", Known: true}
	}
	v = v[off:]
	if s.Length != nil {
		n, ok := arithLit(s.Length)
		if !ok {
			return Word{}
		}
		if n < 0 {
			n += len(v)
		}
		if n < 0 {
			return Word{}
		}
		if n < len(v) {
			v = v[:n]
		}
	}
	return Word{Value: v, Known: true}
}

// arithLit evaluates an arithmetic expression that is a plain integer.
func arithLit(x syntax.ArithmExpr) (int, bool) {
	switch e := x.(type) {
	case *syntax.Word:
		n, err := strconv.Atoi(e.Lit())
		return n, err == nil
	case *syntax.UnaryArithm:
		if e.Op == syntax.Minus {
			n, ok := arithLit(e.X)
			return -n, ok
		}
	case *syntax.ParenArithm:
		return arithLit(e.X)
	}
	return 0, false
}

// replace applies ${x/old/new} with a literal old.
func (a *analyzer) replace(w Word, r *syntax.Replace) Word {
	if !w.Known || r.Orig == nil {
		return Word{}
	}
	o := a.word1(r.Orig)
	n := Word{Value: "", Known: true}
	if r.With != nil {
		n = a.word1(r.With)
	}
	if !o.Known || !n.Known || o.Glob || o.Value == "" {
		return Word{}
	}
	cnt := strings.Count(w.Value, o.Value)
	if !r.All {
		cnt = min(cnt, 1)
	}
	// The size is checked before the value is built: ${x//a/$x} over a
	// 64 KB x of a's would be 4 GB.
	if len(w.Value)+cnt*(len(n.Value)-len(o.Value)) > maxDecoded {
		return Word{}
	}
	return Word{Value: strings.Replace(w.Value, o.Value, n.Value, cnt), Known: true}
}
