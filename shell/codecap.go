package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// This file judges the uses of names that are not plain calls: a
// function that runs commands, code or requests handed on instead of
// called (map(os.system, cmds), getattr(requests, m)), a module member
// the tables do not describe, a computed member (cp[name]), a variable
// function (php's $f()); and the environment the code reads.

// dynamicNames finds what makes every variable unknown: code evaluated
// at run time may assign any of them, and some functions do by name.
func (s *codeScan) dynamicNames() {
	for i, t := range s.toks {
		if t.kind == 'p' && t.s == "&" && s.lang == "perl" && i+1 < len(s.toks) && s.toks[i+1].s == "{" {
			s.dynEval = true // &{"name"}(...): a sub named by a value
		}
		if t.kind != 'i' {
			continue
		}
		switch s.canonAt(i) {
		case "exec", "eval", "globals", "locals", "vars", "setattr", "extract", "parse_str", "assign", "list2env",
			"attach", "setfenv", "rawset", "_G", "instance_variable_set", "local_variable_set", "binding",
			"load", "loadstring", "with":
			s.varsUnknown = true
		}
		if strings.HasPrefix(t.s, "$$") || t.s == "$" && s.lang == "php" {
			s.varsUnknown = true // php's variable variables
		}
		if s.indirect(i) {
			s.dynEval = true
		}
	}
}

// indirect reports a call through a reference the scanner cannot name:
// perl's &{"name"}(...), &$f(...) and $f->(...); JavaScript's
// x.constructor (the Function constructor is one step away).
func (s *codeScan) indirect(i int) bool {
	t := s.toks[i]
	next := func(k int) string {
		if i+k < len(s.toks) {
			return s.toks[i+k].s
		}
		return ""
	}
	switch s.lang {
	case "perl":
		return t.s[0] == '$' && next(1) == "-" && next(2) == ">" && next(3) == "(" ||
			i > 0 && s.toks[i-1].s == "&" && s.toks[i-1].kind == 'p' && t.s[0] == '$' && next(1) == "("
	case "node":
		return strings.HasSuffix(t.s, ".constructor") || strings.Contains(t.s, ".constructor.") ||
			strings.HasSuffix(t.s, "._load") || strings.Contains(t.s, "__proto__")
	}
	return false
}

// refs judges every name that is not a plain call.
func (s *codeScan) refs() {
	for i, t := range s.toks {
		switch {
		case t.kind == 'p' && t.s == "[" && i > 0:
			s.computed(i)
		case t.kind == 'i' && !s.skip[i]:
			s.ref(i)
		}
	}
}

// called reports whether the name at toks[i] is called there.
func (s *codeScan) called(i int) bool {
	if i+1 < len(s.toks) {
		n := s.toks[i+1]
		if n.kind == 'p' && n.s == "(" || n.kind == 's' && s.lang == "node" && strings.HasSuffix(s.toks[i].s, "$") {
			return true
		}
	}
	return s.bareCall(i)
}

// ref judges one name.
func (s *codeScan) ref(i int) {
	t := s.toks[i]
	called := s.called(i)
	if s.lang == "php" && t.s[0] == '$' && called && !strings.ContainsAny(t.s, ".:>") {
		s.dynEval = true // $f(...): a function named by a value
		return
	}
	if mod, next, ok := s.moduleCall(i); ok {
		if next >= len(s.toks) || s.toks[next].kind != 'i' || s.toks[next].s[0] != '.' {
			s.unknownUse(s.moduleKind(mod, true))
		}
		return
	}
	if k, exact := s.lookup(i); k != 0 {
		if exact && !called {
			s.unknownUse(k) // the function handed on
		}
		return
	}
	cn := s.canonAt(i)
	if s.clients[cn] && !called {
		if i+1 >= len(s.toks) || s.toks[i+1].kind != 'i' || s.toks[i+1].s[0] != '.' {
			s.netAny = true // a client handed on
		}
		return
	}
	if mk := s.moduleKind(cn, s.aliased(t.s)); mk != 0 && mk != cPure && (mk == cEval || called || !harmlessMember(cn)) {
		s.unknownUse(mk)
	}
}

// computed judges x[key] where x is a module, a namespace of functions
// (globals(), window, _G) or a call's result: a key naming a function
// that runs commands or code is that use, a computed key on a module is
// an unknown use of it.
func (s *codeScan) computed(i int) {
	p := s.toks[i-1]
	end := s.match(i, len(s.toks))
	if s.lang == "php" {
		s.phpComputed(p, end)
		return
	}
	if p.kind != 'i' && !(p.kind == 'p' && p.s == ")") {
		return
	}
	key := s.val(i+1, end)
	name := ""
	if p.kind == 'i' {
		name = s.canonAt(i - 1)
	} else if open := s.matchBack(i - 1); open > 0 && s.toks[open-1].kind == 'i' {
		name = s.canonAt(open-1) + "()"
		if mod, _, ok := s.moduleCall(open - 1); ok {
			name = mod
		}
	}
	mk := s.moduleKind(name, true)
	dangerous := mk != 0 && mk != cPure
	if globalSpaces[strings.TrimSuffix(name, "()")] {
		s.dynEval = true // _G["os"], globals()[name]: any function, by name
		return
	}
	if known(key) {
		if k, ok := reflectNames[key]; ok && (dangerous || namespaceLike(name)) {
			s.unknownUse(k)
		}
		return
	}
	switch {
	case dangerous:
		s.unknownUse(mk)
	case strings.HasSuffix(name, "__dict__"):
		s.dynEval = true
	}
}

// phpComputed judges a PHP subscript ending at toks[end]: PHP reaches no
// function by an array key ($a["system"] is the value stored there, a
// string or a closure), so the key names nothing; calling the value
// ($a["k"](...), f()["k"](...)) calls a function named by data, which
// is dynamic code whatever the key.
func (s *codeScan) phpComputed(p ctok, end int) {
	subscript := p.kind == 'i' || p.kind == 'p' && (p.s == ")" || p.s == "]")
	if subscript && end+1 < len(s.toks) && s.toks[end+1].kind == 'p' && s.toks[end+1].s == "(" {
		s.dynEval = true
	}
}

// globalSpaces hold every function of a program by name.
var globalSpaces = map[string]bool{"globals": true, "locals": true, "vars": true, "__builtins__": true,
	"builtins": true, "_G": true, "global": true, "globalThis": true, "window": true, "self": true, "this": true,
	"module": true, "Kernel": true, "Object": true, "process": true}

// namespaceLike reports whether a name may hold functions by name: not a
// plain data variable (args, row, data).
func namespaceLike(name string) bool {
	if name == "" {
		return true
	}
	head, _ := splitHead(strings.TrimSuffix(name, "()"))
	return globalSpaces[head] || strings.HasSuffix(name, "__dict__") || !strings.ContainsAny(name, "$") && head != name ||
		strings.HasSuffix(name, "()")
}

// moduleKind returns what a module the code uses does, by the longest
// module name name starts with; cPure for its pure parts. In languages
// whose modules are imported by name, only an imported module counts
// (imported: the caller knows it is one).
func (s *codeScan) moduleKind(name string, imported bool) ckind {
	if name == "" {
		return 0
	}
	switch s.lang {
	case "python", "node", "lua":
		if !imported && !s.aliased(name) {
			return 0
		}
	}
	best, kind := -1, ckind(0)
	for m, k := range codeModules[s.lang] {
		if len(m) > best && (name == m || strings.HasPrefix(name, m) && strings.ContainsAny(name[len(m):len(m)+1], ".:-")) {
			best, kind = len(m), k
		}
	}
	return kind
}

// harmlessMember reports a member that is data, not a function: a
// constant (AF_INET, PIPE), a dunder (__version__), an exception class.
func harmlessMember(name string) bool {
	m := name[lastSep(name):]
	if m == "" || m == name {
		return false
	}
	upper := true
	for _, c := range []byte(m) {
		if c >= 'a' && c <= 'z' {
			upper = false
		}
	}
	return upper || strings.HasPrefix(m, "__") || strings.HasSuffix(m, "Error") || strings.HasSuffix(m, "Exception") ||
		strings.HasSuffix(m, "Warning") || m == "exceptions" || m == "codes" || m == "status_codes"
}

// unknownUse records a use of a function of kind k with arguments the
// scanner does not follow.
func (s *codeScan) unknownUse(k ckind) {
	switch k {
	case cShell, cArgv, cArgvL, cExecAny:
		s.dynShell = true
	case cEval, cImport, cRequire, cReflect, cLoad:
		s.dynEval = true
	case cURL, cHost, cConnect, cListen, cSendTo, cClient, cSend, cNetAny, cSocket, cCurlOpt:
		s.netAny = true
	case cOpen, cOpenRW, cPathOpen, cCopy, cMove, cPerlOpen:
		s.a.use(s.c, Word{}, action.AccessRead|action.AccessWrite)
	case cRead, cRecvRead:
		s.a.use(s.c, Word{}, action.AccessRead)
	case cWrite, cWrite2, cWriteRest, cRecvWrite:
		s.a.use(s.c, Word{}, action.AccessWrite)
	case cDelete, cRecvDelete:
		s.a.use(s.c, Word{}, action.AccessDelete)
	}
}

// envContainers hold the environment by name.
var envContainers = map[string]bool{"os.environ": true, "os.environb": true, "ENV": true, "process.env": true,
	"$_ENV": true, "$_SERVER": true, "ENVIRON": true, "$ENV": true, "Deno.env": true, "Bun.env": true}

// sources records the environment the code reads (as data sources of
// the call: into its output, and into its requests) and whether it
// prints.
func (s *codeScan) sources() {
	prints := printFuncs[s.lang]
	for i, t := range s.toks {
		if t.kind == 'p' && t.s == "%" && s.lang == "perl" && i+1 < len(s.toks) && s.toks[i+1].s == "ENV" {
			s.env("")
		}
		if t.kind != 'i' {
			continue
		}
		cn := s.canonAt(i)
		if prints[cn] {
			s.prints = true
		}
		s.envRef(i, cn)
	}
	if _, ok := s.c.Flag("-p", "--print"); ok && s.lang == "node" {
		s.prints = true
	}
	if s.prints && len(s.envSeen) > 0 {
		s.c.relay = true
	}
}

// envRef records an environment read at toks[i].
func (s *codeScan) envRef(i int, cn string) {
	switch {
	case envContainers[cn]:
		if i+1 < len(s.toks) && (s.toks[i+1].s == "[" || s.toks[i+1].s == "{" && s.lang == "perl") {
			end := s.match(i+1, len(s.toks))
			key := s.val(i+2, end)
			if s.toks[i+1].s == "{" && end == i+3 && s.toks[i+2].kind == 'i' {
				key = s.toks[i+2].s
			}
			s.env(key)
			return
		}
		s.env("")
	case valFuncs[cn] == vEnv:
		args := s.argRanges(i+1, len(s.toks))
		if i+1 >= len(s.toks) || s.toks[i+1].s != "(" || len(args) == 0 {
			s.env("")
			return
		}
		s.env(s.val(args[0][0], args[0][1]))
	default:
		k := strings.LastIndexByte(cn, '.')
		if k <= 0 || !envContainers[cn[:k]] {
			return
		}
		if c := cn[:k]; c == "process.env" || c == "Bun.env" {
			s.env(cn[k+1:])
		} else {
			s.env("") // os.environ.copy(), ENV.to_h
		}
	}
}

// env records that the code reads an environment variable ("" or an
// unknown name: any of them).
func (s *codeScan) env(name string) {
	if name == "" || !known(name) {
		name = ""
	}
	if s.envSeen[name] {
		return
	}
	s.envSeen[name] = true
	if name == "" {
		s.a.wsrc = append(s.a.wsrc, source{kind: SourceCommand, name: "env", dump: true})
		return
	}
	s.a.wsrc = append(s.a.wsrc, source{kind: SourceEnv, name: name})
}
