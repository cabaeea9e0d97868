package shell

import "strings"

// This file records where inline code talks to: the destinations of
// requests, connections and clients, literal when the code spells them,
// unknown otherwise.

// httpMethods are the words that name a request's method before its
// destination (request("POST", url), HTTP::Request->new(GET => $url)).
var httpMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true,
	"HEAD": true, "OPTIONS": true, "CONNECT": true, "TRACE": true}

// destArg returns the argument that names a request's destination.
func (s *codeScan) destArg(args []carg) *carg {
	for k := range args {
		a := &args[k]
		if a.kw != "" {
			if s.lang == "perl" && httpMethods[strings.ToUpper(a.kw)] {
				return a // GET => $url
			}
			continue
		}
		if a.to == a.from+1 && (s.toks[a.from].kind == 's' || s.toks[a.from].kind == 'i') &&
			httpMethods[strings.ToUpper(s.toks[a.from].s)] && k+1 < len(args) {
			s.used[a.from] = true
			continue
		}
		return a
	}
	return kwArg(args, "url", "uri", "host", "hostname", "address", "PeerAddr", "PeerHost", "Host", "base_url",
		"baseURL", "href", "endpoint")
}

// dest records a request to the destination an argument names.
func (s *codeScan) dest(a *carg, upload bool) {
	if a == nil {
		s.netAny = true
		return
	}
	if s.netValue(a) {
		return
	}
	s.destVal(s.value(a), upload)
}

// netValue reports whether an argument is a request the scanner records
// where it is built: a call it recognises (urlopen(Request(url))), or a
// variable assigned one.
func (s *codeScan) netValue(a *carg) bool {
	i := a.from
	if i < a.to && s.toks[i].s == "new" {
		i++
	}
	if i >= a.to || s.toks[i].kind != 'i' {
		return false
	}
	if k, exact := s.lookup(i); exact && isNetKind(k) {
		return true
	}
	if v := s.vars[s.toks[i].s]; a.to == i+1 && v != nil && v.n == 1 && v.from < v.to {
		j := v.from
		if s.toks[j].s == "new" && j+1 < v.to {
			j++
		}
		if s.toks[j].kind == 'i' {
			k, exact := s.lookup(j)
			return exact && isNetKind(k)
		}
	}
	return false
}

// isNetKind reports whether a call kind records its own destination.
func isNetKind(k ckind) bool {
	return k == cURL || k == cHost || k == cConnect
}

// destVal records a destination value: a URL, or a host.
func (s *codeScan) destVal(v string, upload bool) {
	host := v
	scheme := strings.Index(v, "://")
	switch {
	case scheme >= 0:
		host = v[scheme+3:]
	case strings.HasPrefix(v, "//"):
		host = v[2:]
	}
	if j := strings.IndexAny(host, "/?#"); j >= 0 {
		host = host[:j]
	}
	if k := strings.LastIndexByte(host, '@'); k >= 0 {
		host = host[k+1:]
	}
	if host == "" || !known(host) || scheme >= 0 && !known(v[:scheme]) {
		s.a.host(s.c, Word{}, "", upload, false) // unresolved host
		return
	}
	if scheme >= 0 {
		s.a.url(s.c, valWord(v), upload)
		return
	}
	s.a.host(s.c, s.word(host), "", upload, false)
}

// hostArg records a client of the host an argument names.
func (s *codeScan) hostArg(a *carg) {
	if a == nil {
		s.netAny = true
		return
	}
	s.destVal(s.value(a), false)
}

// hostKeys and portKeys name a connection's address in keyword arguments
// (perl's PeerAddr => h, python's address=(h, p)).
var hostKeys = map[string]bool{"peeraddr": true, "peerhost": true, "host": true, "hostname": true, "address": true,
	"localaddr": true}
var portKeys = map[string]bool{"peerport": true, "port": true, "localport": true, "listen": true}

// connect records the host and port of a connection (or a listening
// port): literal strings are hosts, numbers ports; an unknown one may be
// either.
func (s *codeScan) connect(k ckind, args []carg) {
	s.socket = true
	if k == cListen {
		s.listen = true
	}
	if k == cSendTo && len(args) > 0 {
		args = args[len(args)-1:]
	}
	var host, port string
	unknown := false
	take := func(v string, num bool) {
		switch {
		case !known(v):
			unknown = true
		case num || isDigits(v):
			if port == "" {
				port = v
			}
		case host == "":
			host = v
		}
	}
	for n := range args {
		a := &args[n]
		kw := strings.ToLower(a.kw)
		switch {
		case kw != "" && !hostKeys[kw] && !portKeys[kw]:
			continue
		case portKeys[kw]:
			take(s.value(a), true)
			continue
		}
		if items, ok := s.listVals(a.from, a.to); ok {
			s.markUsed(a.from, a.to)
			for _, v := range items {
				take(v, false)
			}
			continue
		}
		take(s.value(a), a.to == a.from+1 && s.toks[a.from].kind == 'n')
	}
	s.connected(host, port, unknown)
}

// connected records what connect found.
func (s *codeScan) connected(host, port string, unknown bool) {
	if h, p := hostPort(host); p != "" && port == "" {
		host, port = h, p
	}
	switch {
	case s.listen:
		if host == "" && port == "" && !unknown {
			return
		}
		s.a.addNet(s.c, NetDest{Program: progName(s.c), Host: strings.ToLower(host), Port: port, Listen: true})
	case host != "":
		s.a.host(s.c, s.word(host), port, false, false)
	case unknown:
		s.a.host(s.c, Word{}, port, false, false)
	}
}
