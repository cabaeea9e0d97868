package shell

import "strings"

// This file resolves the names inline code gives modules: python's
// import and from-import, JavaScript's require and import, lua's
// require, perl's use, R's library, and names assigned a module or a
// member (g = urllib.request.urlopen). Every name is then known by its
// canonical form (child_process.execSync for e in
// `const {execSync: e} = require("child_process")`), which the call
// tables are written in.

// imports records modules and their local names.
func (s *codeScan) imports() {
	for i := 0; i < len(s.toks); i++ {
		t := s.toks[i]
		if t.kind != 'i' || !s.stmtStart(i) || s.shadowed(i) {
			continue
		}
		switch {
		case s.lang == "python" && t.s == "import":
			s.pyImport(i)
		case s.lang == "python" && t.s == "from":
			s.pyFrom(i)
		case s.lang == "node" && t.s == "import" && i+1 < len(s.toks) && s.toks[i+1].s != "(":
			s.jsImport(i)
		case s.lang == "perl" && (t.s == "use" || t.s == "require" || t.s == "no") && i+1 < len(s.toks) && s.toks[i+1].kind == 'i':
			s.skip[i], s.skip[i+1] = true, true
			s.stars = append(s.stars, s.toks[i+1].s)
		case s.lang == "ruby" && (t.s == "include" || t.s == "extend") && i+1 < len(s.toks) && s.toks[i+1].kind == 'i':
			s.skip[i] = true
			s.stars = append(s.stars, s.toks[i+1].s)
		case s.lang == "r" && (t.s == "library" || t.s == "require" || t.s == "requireNamespace") && i+2 < len(s.toks) && s.toks[i+1].s == "(":
			s.skip[i], s.skip[i+2] = true, true
			s.stars = append(s.stars, s.toks[i+2].s)
		}
	}
	s.requireAliases()
	s.nameAliases()
}

// stmtTo returns the end of the statement starting at toks[i].
func (s *codeScan) stmtTo(i int) int {
	for j := i + 1; j < len(s.toks); j++ {
		if s.toks[j].nl || s.toks[j].s == ";" && s.toks[j].kind == 'p' {
			return j
		}
	}
	return len(s.toks)
}

// pyImport: import a.b, c as d.
func (s *codeScan) pyImport(i int) {
	end := s.stmtTo(i)
	for j := i; j < end; j++ {
		s.skip[j] = true
		t := s.toks[j]
		if t.kind != 'i' || t.s == "import" || t.s == "as" {
			continue
		}
		if j+2 < end && s.toks[j+1].s == "as" {
			s.alias[s.toks[j+2].s] = t.s
			j += 2
			s.skip[j] = true
			continue
		}
		head, _ := splitHead(t.s)
		s.alias[head] = head
	}
}

// pyFrom: from a.b import c, d as e / from a import *.
func (s *codeScan) pyFrom(i int) {
	end := s.stmtTo(i)
	for j := i; j < end; j++ {
		s.skip[j] = true
	}
	if i+2 >= end || s.toks[i+1].kind != 'i' || s.toks[i+2].s != "import" {
		return
	}
	mod := s.toks[i+1].s
	for j := i + 3; j < end; j++ {
		t := s.toks[j]
		switch {
		case t.kind == 'p' && t.s == "*":
			s.stars = append(s.stars, mod)
		case t.kind != 'i':
		case j+2 < end && s.toks[j+1].s == "as":
			s.alias[s.toks[j+2].s] = mod + "." + t.s
			j += 2
		default:
			s.alias[t.s] = mod + "." + t.s
		}
	}
}

// jsImport: import x from "m"; import * as x from "m"; import {a as b} from "m".
func (s *codeScan) jsImport(i int) {
	end := s.stmtTo(i)
	mod := ""
	for j := i; j < end; j++ {
		s.skip[j] = true
		if s.toks[j].kind == 's' {
			mod = nodeModule(s.toks[j].s)
			s.used[j] = true
		}
	}
	if mod == "" {
		return
	}
	braces := false
	for j := i + 1; j < end; j++ {
		t := s.toks[j]
		switch {
		case t.s == "{":
			braces = true
		case t.s == "}":
			braces = false
		case t.kind != 'i' || t.s == "from" || t.s == "as" || t.s == "type":
		case j+2 < end && s.toks[j+1].s == "as":
			target := s.toks[j+2].s
			if braces {
				s.alias[target] = mod + "." + t.s
			} else {
				s.alias[target] = mod // * as x
			}
			j += 2
		case braces:
			s.alias[t.s] = mod + "." + t.s
		default:
			s.alias[t.s] = mod
		}
	}
}

// nodeModule normalises a module name: "node:fs" is fs.
func nodeModule(m string) string { return strings.TrimPrefix(m, "node:") }

// moduleCall reports whether toks[i] calls a module loader with a name
// the scanner knows (require("m"), __import__("o"+"s"),
// importlib.import_module("m"), lua's require "m"), and returns the
// module and the index after the call.
func (s *codeScan) moduleCall(i int) (string, int, bool) {
	if i >= len(s.toks) || s.toks[i].kind != 'i' {
		return "", 0, false
	}
	switch s.canonName(s.toks[i].s) {
	case "require", "__import__", "importlib.import_module", "process.mainModule.require", "module.require", "import":
	default:
		return "", 0, false
	}
	switch {
	case i+1 < len(s.toks) && s.toks[i+1].s == "(":
		end := s.match(i+1, len(s.toks))
		if args := s.argRanges(i+1, len(s.toks)); len(args) > 0 {
			if m := s.val(args[0][0], args[0][1]); known(m) && m != "" {
				return nodeModule(m), end + 1, true
			}
		}
	case s.lang == "lua" && i+1 < len(s.toks) && s.toks[i+1].kind == 's':
		return s.toks[i+1].s, i + 2, true
	}
	return "", 0, false
}

// requireAliases records x = require("m") (with members after the call)
// and const {a, b: c} = require("m").
func (s *codeScan) requireAliases() {
	for _, name := range s.varOrder {
		v := s.vars[name]
		if v.n != 1 {
			continue
		}
		from := v.from
		if from < v.to && s.toks[from].s == "await" {
			from++
		}
		mod, next, ok := s.moduleCall(from)
		if !ok {
			continue
		}
		for next < v.to && s.toks[next].kind == 'i' && s.toks[next].s[0] == '.' {
			mod += s.toks[next].s
			next++
		}
		if next == v.to {
			s.alias[name] = mod
			s.skip[from] = true
		}
	}
	for i := 0; i+2 < len(s.toks); i++ {
		if s.toks[i].s != "}" || s.toks[i+1].s != "=" || s.toks[i].kind != 'p' {
			continue
		}
		mod, _, ok := s.moduleCall(i + 2)
		if !ok {
			continue
		}
		open := s.matchBack(i)
		s.destructure(open, i, mod)
	}
}

// destructure records {a, b: c} = MODULE.
func (s *codeScan) destructure(open, end int, mod string) {
	for j := open + 1; j < end; j++ {
		t := s.toks[j]
		if t.kind != 'i' {
			continue
		}
		s.skip[j] = true
		if j+2 < end && s.toks[j+1].s == ":" && s.toks[j+2].kind == 'i' {
			s.alias[s.toks[j+2].s] = mod + "." + t.s
			s.skip[j+2] = true
			j += 2
			continue
		}
		s.alias[t.s] = mod + "." + t.s
	}
}

// matchBack returns the index of the bracket opening the one closed at
// toks[j] (0 when none does).
func (s *codeScan) matchBack(j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		t := s.toks[k]
		if t.kind != 'p' {
			continue
		}
		switch t.s {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return 0
}

// nameAliases records names assigned a module, a member of one, a known
// function, or a network client (g = urllib.request.urlopen, s =
// requests.Session()). Chains of such names resolve in a few rounds.
func (s *codeScan) nameAliases() {
	for round := 0; round < 4; round++ {
		changed := false
		for _, name := range s.varOrder {
			v := s.vars[name]
			if v.n != 1 || s.alias[name] != "" || v.from >= v.to {
				continue
			}
			if k, ok := s.rhsIdent(name); ok && s.lang != "perl" && s.lang != "ruby" {
				target := s.canonName(s.toks[k].s)
				if s.clientName(target) {
					s.clients[name] = true
				}
				if s.aliased(target) || s.lookupName(target) != 0 {
					s.alias[name], changed = target, true
					s.skip[k] = true
				}
				continue
			}
			if t := s.toks[v.from]; t.kind == 'i' && !s.clients[name] && s.callsClient(v.from) {
				s.clients[name], changed = true, true
			}
		}
		if !changed {
			break
		}
	}
	s.withClients()
}

// callsClient reports whether toks[i] starts a call of a network client's
// constructor: requests.Session(), LWP::UserAgent->new, axios.create().
func (s *codeScan) callsClient(i int) bool {
	if s.toks[i].s == "new" && i+1 < len(s.toks) {
		i++
	}
	return s.toks[i].kind == 'i' && s.lookupName(s.canonName(s.toks[i].s)) == cClient
}

// withClients records python's `with requests.Session() as s`.
func (s *codeScan) withClients() {
	if s.lang != "python" {
		return
	}
	for i := 0; i+1 < len(s.toks); i++ {
		if s.toks[i].s != "with" || !s.callsClient(i+1) {
			continue
		}
		end := s.stmtTo(i)
		for j := i + 1; j+1 < end; j++ {
			if s.toks[j].s == "as" && s.toks[j+1].kind == 'i' {
				s.clients[s.toks[j+1].s] = true
				s.skip[j+1] = true
				break
			}
		}
	}
}

// aliased reports whether a canonical name starts with a module the code
// imports (or a name it aliases).
func (s *codeScan) aliased(name string) bool {
	head, _ := splitHead(name)
	_, ok := s.alias[head]
	return ok
}

// canonName resolves the local names at the head of a name.
func (s *codeScan) canonName(name string) string {
	if a, ok := s.alias[name]; ok {
		return a
	}
	head, rest := splitHead(name)
	if a, ok := s.alias[head]; ok && rest != "" {
		return a + rest
	}
	return name
}

// clientName reports whether a canonical name holds a network client.
func (s *codeScan) clientName(name string) bool {
	head, _ := splitHead(name)
	return s.clients[head] && head == name
}

// canonicalise computes the canonical name of every identifier token.
func (s *codeScan) canonicalise() {
	s.canon = make([]string, len(s.toks))
	for i, t := range s.toks {
		if t.kind != 'i' {
			continue
		}
		if t.s[0] == '.' {
			if r := s.recvCanon(i); r != "" {
				s.canon[i] = r + t.s
			}
			continue
		}
		if c := s.canonName(t.s); c != t.s {
			s.canon[i] = c
		}
	}
}

// canonAt is the canonical name of token i.
func (s *codeScan) canonAt(i int) string {
	if s.canon != nil && s.canon[i] != "" {
		return s.canon[i]
	}
	return s.toks[i].s
}

// recvCanon names the receiver of a member token that follows a call:
// the module of require("m").x, or a client of requests.Session().get.
func (s *codeScan) recvCanon(i int) string {
	if i == 0 || s.toks[i-1].s != ")" || s.toks[i-1].kind != 'p' {
		return ""
	}
	open := s.matchBack(i - 1)
	if open == 0 {
		return ""
	}
	callee := open - 1
	if mod, next, ok := s.moduleCall(callee); ok && next == i {
		return mod
	}
	if s.callsClient(callee) || callee > 0 && s.toks[callee-1].s == "new" && s.callsClient(callee-1) {
		return "<client>"
	}
	return ""
}
