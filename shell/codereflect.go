package shell

import "strings"

// This file resolves reflective calls whose function is named by a
// literal: python's getattr(os, "system")(cmd), ruby's
// Kernel.send(:system, cmd) (public_send, __send__), php's
// call_user_func("system", cmd) and call_user_func_array("system",
// [cmd]). Such a call is the call it names, judged with its arguments
// like any other (a function that runs commands or code stays dynamic as
// well: reflection hides what runs from a reader); a computed name, a
// receiver the scanner cannot name or a function the tables do not
// describe stays as reflect judges it (dynamic code, or an unknown use of
// what the name does).

// reflectNamed applies the call a reflective call at toks[i] names, and
// reports whether it did.
func (s *codeScan) reflectNamed(i int, args []carg) bool {
	target, call, ok := s.reflectTarget(i, args)
	if !ok {
		return false
	}
	k := s.lookupName(target)
	if k == 0 && strings.Contains(target, ".") {
		k = codeCalls[s.lang]["."+target[lastSep(target):]] // Kernel.system is .system
	}
	switch k {
	case 0, cReflect, cRecvRead, cRecvWrite, cRecvDelete, cPathOpen:
		// Nothing the tables describe, reflection again, or a call whose
		// receiver is the path: judged as reflect does.
		return false
	}
	s.apply(k, i, call)
	switch k {
	case cShell, cArgv, cArgvL, cExecAny, cEval, cImport, cRequire, cLoad:
		// A command or code reached by reflection is analysed, and stays
		// dynamic as well: the spelling hides what runs from a reader.
		s.unknownUse(k)
	}
	return true
}

// reflectTarget returns the canonical name a reflective call at toks[i]
// names and the arguments it passes; ok is false when either is unknown.
func (s *codeScan) reflectTarget(i int, args []carg) (target string, call []carg, ok bool) {
	cn := s.canonAt(i)
	member := cn[lastSep(cn):]
	switch {
	case s.lang == "python" && (cn == "getattr" || cn == "builtins.getattr"):
		// getattr(recv, "name")(args...)
		if len(args) != 2 || args[0].kw != "" || args[1].kw != "" {
			return "", nil, false
		}
		recv, ok1 := s.receiverName(&args[0])
		name, ok2 := s.literalName(&args[1])
		close := s.match(i+1, len(s.toks))
		if !ok1 || !ok2 || close+1 >= len(s.toks) || s.toks[close+1].s != "(" {
			return "", nil, false
		}
		s.skip[args[0].from] = true // the receiver is used by the call it names, not handed on
		return recv + "." + name, s.cargs(s.argRanges(close+1, len(s.toks))), true
	case s.lang == "ruby" && (member == "send" || member == "public_send" || member == "__send__"):
		// recv.send(:name, args...)
		if len(args) == 0 || args[0].kw != "" {
			return "", nil, false
		}
		name, ok := s.literalName(&args[0])
		if !ok {
			return "", nil, false
		}
		if s.toks[args[0].from].s == ":" {
			s.skip[args[0].from+1] = true // the symbol names the call, it does not hand the function on
		}
		switch recv := strings.TrimSuffix(strings.TrimSuffix(cn, member), "."); recv {
		case "", "Kernel", "self", "Object":
			return name, args[1:], true
		default:
			return recv + "." + name, args[1:], true
		}
	case s.lang == "php" && (cn == "call_user_func" || cn == "forward_static_call"):
		if len(args) == 0 {
			return "", nil, false
		}
		name, ok := s.literalName(&args[0])
		return name, args[1:], ok
	case s.lang == "php" && cn == "call_user_func_array":
		// call_user_func_array("name", [args...]) or array(args...)
		if len(args) != 2 {
			return "", nil, false
		}
		name, ok := s.literalName(&args[0])
		list, lok := s.listArgs(&args[1])
		return name, list, ok && lok
	}
	return "", nil, false
}

// literalName is the function name a literal argument gives: a string
// or a ruby symbol (:name) holding an identifier.
func (s *codeScan) literalName(a *carg) (string, bool) {
	if a.to-a.from == 2 && s.toks[a.from].s == ":" && s.toks[a.from+1].kind == 'i' {
		return s.toks[a.from+1].s, true
	}
	v := s.val(a.from, a.to)
	if v == "" || !known(v) {
		return "", false
	}
	for k := 0; k < len(v); k++ {
		if c := v[k]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return v, true
}

// receiverName is the canonical name of a receiver argument: a name (a
// module under any local name), or a module loaded in place
// (__import__("os")).
func (s *codeScan) receiverName(a *carg) (string, bool) {
	if a.to-a.from == 1 && s.toks[a.from].kind == 'i' {
		return s.canonAt(a.from), true
	}
	if s.toks[a.from].kind == 'i' {
		if mod, next, ok := s.moduleCall(a.from); ok && next == a.to {
			return mod, true
		}
	}
	return "", false
}

// listArgs turns a list literal argument ([a, b] or array(a, b)) into
// arguments.
func (s *codeScan) listArgs(a *carg) ([]carg, bool) {
	open := a.from
	if s.toks[open].kind == 'i' && s.toks[open].s == "array" && open+1 < a.to {
		open++
	}
	if t := s.toks[open]; t.kind != 'p' || t.s != "[" && t.s != "(" || s.match(open, a.to) != a.to-1 {
		return nil, false
	}
	return s.cargs(s.argRanges(open, a.to)), true
}

// reflectVal evaluates getattr(recv, "name")(args) as the call it
// names; open is getattr's argument group. It returns the value and
// the token after the call, or ok false.
func (s *codeScan) reflectVal(name string, open, to int) (v string, next int, ok bool) {
	if s.lang != "python" || name != "getattr" && name != "builtins.getattr" {
		return "", 0, false
	}
	close := s.match(open, to)
	if close+1 >= to || s.toks[close+1].s != "(" {
		return "", 0, false
	}
	args := s.cargs(s.argRanges(open, close+1))
	if len(args) != 2 {
		return "", 0, false
	}
	recv, ok1 := s.receiverName(&args[0])
	member, ok2 := s.literalName(&args[1])
	if !ok1 || !ok2 {
		return "", 0, false
	}
	end := s.match(close+1, to)
	return s.callVal(recv+"."+member, close+1, end), end + 1, true
}
