package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
	"mvdan.cc/sh/v3/syntax"
)

// This file handles redirections: files read and written, here-documents,
// /dev/tcp sockets and file descriptors bound to them.

// redirs collects what a statement's redirections do once the command is
// known.
type redirs struct {
	outs   []string   // files that receive standard output
	apps   []bool     // whether each of outs is appended to (>>, &>>)
	tcp    []tcpRedir // /dev/tcp and /dev/udp targets
	netFD  bool       // a descriptor dup'ed from a network socket
	stdout bool       // standard output goes elsewhere than the pipe
}

type tcpRedir struct {
	fd, host, port string
	out            bool // data goes out on it
}

// redirsIn applies the redirections that exist before the command runs
// and returns its standard input.
func (a *analyzer) redirsIn(list []*syntax.Redirect, in *stream, rd *redirs) *stream {
	mark := len(a.wsrc)
	defer func() { a.wsrc = a.wsrc[:mark] }()
	for _, r := range list {
		if r == nil || !a.tick() {
			continue
		}
		fd := ""
		if r.N != nil {
			fd = r.N.Value
			if name, ok := strings.CutPrefix(fd, "{"); ok {
				// {NAME}>file: bash picks a descriptor and stores it in NAME.
				a.setVar(strings.TrimSuffix(name, "}"), Word{}, nil)
			}
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			in = a.hereDoc(r)
		case syntax.WordHdoc:
			m := len(a.wsrc)
			w := a.word1(r.Word)
			in = &stream{text: w.Value + "\n", known: w.Known, piped: true, from: "herestring", srcs: a.wsrcFrom(m)}
			in.decoded = w.flags&wDecoded != 0
			in.net = w.flags&wNet != 0
		case syntax.RdrIn, syntax.RdrInOut:
			in = a.redirFile(r, orDefault(fd, "0"), in, rd)
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			a.redirFile(r, orDefault(fd, "1"), in, rd)
		case syntax.DplIn, syntax.DplOut:
			in = a.redirDup(r, fd, in, rd)
		}
	}
	return in
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// wsrcFrom copies the data sources met since mark.
func (a *analyzer) wsrcFrom(mark int) []source {
	if len(a.wsrc) <= mark {
		return nil
	}
	return append([]source(nil), a.wsrc[mark:]...)
}

// hereDoc resolves a here-document body.
func (a *analyzer) hereDoc(r *syntax.Redirect) *stream {
	s := &stream{piped: true, from: "heredoc"}
	mark := len(a.wsrc)
	if r.Hdoc == nil {
		s.known = true
		return s
	}
	b := wbuild{a: a}
	b.parts(r.Hdoc.Parts, true, false)
	s.text, s.known = string(b.val), !b.unknown
	s.decoded = b.flags&wDecoded != 0
	s.net = b.flags&wNet != 0
	s.srcs = a.wsrcFrom(mark)
	return s
}

// redirFile handles < > >> &> <> to a file or a socket.
func (a *analyzer) redirFile(r *syntax.Redirect, fd string, in *stream, rd *redirs) *stream {
	w := a.word1(r.Word)
	if !w.Known {
		a.use(nil, w, accessOf(r.Op))
		return in
	}
	if host, port, ok := devNet(w.Value); ok {
		out := r.Op != syntax.RdrIn
		rd.tcp = append(rd.tcp, tcpRedir{fd: fd, host: host, port: port, out: out})
		if r.Op == syntax.RdrAll || r.Op == syntax.AppAll || fd == "1" {
			rd.stdout = true
		}
		if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut && fd == "0" {
			return &stream{piped: true, net: true, from: w.Value, netHost: host}
		}
		return in
	}
	p, ok := a.absPath(a.cwd, w.Value)
	if !ok {
		a.tagf(nil, TagOpaque, "relative redirection in unknown directory")
		return in
	}
	acc := accessOf(r.Op)
	a.usePath(nil, p, acc, w.Glob)
	if acc&action.AccessWrite != 0 && (fd == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll) {
		rd.outs = append(rd.outs, p)
		rd.apps = append(rd.apps, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
		rd.stdout = true
	}
	if acc&action.AccessRead != 0 && fd == "0" {
		return &stream{piped: true, srcs: []source{{kind: SourceFile, name: p}}, net: a.isDownloaded(p), from: "file " + p}
	}
	return in
}

func accessOf(op syntax.RedirOperator) action.Access {
	switch op {
	case syntax.RdrIn:
		return action.AccessRead
	case syntax.RdrInOut:
		return action.AccessRead | action.AccessWrite
	}
	return action.AccessWrite
}

// devNet parses /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT.
func devNet(p string) (host, port string, ok bool) {
	if !strings.HasPrefix(p, "/dev/tcp/") && !strings.HasPrefix(p, "/dev/udp/") {
		return "", "", false
	}
	host, port, _ = strings.Cut(p[9:], "/")
	return strings.ToLower(host), port, true
}

// redirDup handles <&N and >&N (and >&FILE).
func (a *analyzer) redirDup(r *syntax.Redirect, fd string, in *stream, rd *redirs) *stream {
	w := a.word1(r.Word)
	if !w.Known {
		return in
	}
	if !isDigits(w.Value) {
		if w.Value == "-" || r.Op != syntax.DplOut {
			return in
		}
		rr := *r
		rr.Op = syntax.RdrAll
		return a.redirFile(&rr, orDefault(fd, "1"), in, rd)
	}
	for _, n := range a.fds {
		if n.fd != w.Value {
			continue
		}
		rd.netFD = true
		if r.Op == syntax.DplIn && orDefault(fd, "0") == "0" {
			return &stream{piped: true, net: true, from: "socket", netHost: n.host}
		}
	}
	return in
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// redirsOut applies what the redirections mean once the command ran.
func (a *analyzer) redirsOut(rd *redirs, out stream) stream {
	name := a.last.name
	shell := a.last.shell || isShellName(name)
	for _, t := range rd.tcp {
		a.addNet(nil, NetDest{Program: name, Host: t.host, Port: t.port, Upload: t.out})
		if name == "exec" {
			a.fds = append(a.fds, netFD{fd: t.fd, host: t.host})
			if t.fd == "0" || t.fd == "1" {
				a.tagf(nil, TagReverseShell, "shell stdio on /dev/tcp")
			}
		}
		if t.out && (t.fd == "1" || rd.stdout) {
			for _, s := range out.srcs {
				a.addFlow(Flow{Kind: s.kind, Source: s.name, Program: name, Host: t.host})
			}
		}
	}
	if shell && (len(rd.tcp) > 0 || rd.netFD) {
		a.tagf(nil, TagReverseShell, name+" wired to a socket")
	}
	if out.net {
		a.downloaded = append(a.downloaded, rd.outs...)
	}
	if rd.stdout && out.known && out.text != "" {
		for i, p := range rd.outs {
			a.wrote(p, out.text, rd.apps[i])
		}
	}
	if rd.stdout {
		// The environment written to a file is the environment read:
		// a later cat of the file prints it.
		a.eff.EnvDump = a.eff.EnvDump || out.envDump && !onlyDevNull(rd.outs)
		return stream{}
	}
	return out
}

// isShellName reports whether name is a shell or an interpreter that
// reads code from its standard input.
func isShellName(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "csh", "tcsh", "fish", "busybox",
		"python", "python2", "python3", "perl", "ruby", "php", "node", "lua":
		return true
	}
	return false
}

// wrote records text a command writes to the file p (Effects.Written).
func (a *analyzer) wrote(p, text string, app bool) {
	a.written(WrittenText{Path: p, Text: text, Append: app})
}

// written records w, within MaxWritten.
func (a *analyzer) written(w WrittenText) {
	if w.Path == "/dev/null" || len(a.eff.Written) >= MaxWritten {
		return
	}
	a.eff.Written = append(a.eff.Written, w)
}
