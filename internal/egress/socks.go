package egress

import (
	"encoding/binary"
	"io"
	"net/netip"
	"strconv"
	"time"
)

// SOCKS5 wire values (RFC 1928).
const (
	socksVersion      = 0x05
	socks4Version     = 0x04
	socksNoAuth       = 0x00
	socksNoAcceptable = 0xFF
	socksCmdConnect   = 0x01
	socksAtypIPv4     = 0x01
	socksAtypDomain   = 0x03
	socksAtypIPv6     = 0x04
)

// socksReply is a reply with the given code; the bound address is always
// 0.0.0.0:0, so the client learns nothing of the engine's side.
func socksReply(code byte) []byte {
	return []byte{socksVersion, code, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0}
}

// serveSOCKS serves a SOCKS5 client: no-auth method, CONNECT only.
func (p *Proxy) serveSOCKS(s *session) {
	s.rec.Protocol = ProtoSOCKS5
	if !s.socksGreeting() {
		return
	}
	t, ok := s.socksRequest()
	if !ok {
		return
	}
	addrs, ok := s.admit(t)
	if !ok || !s.dial(addrs) {
		return
	}
	s.endHeader()
	s.answered = true
	_ = s.c.SetWriteDeadline(time.Now().Add(p.lim.IdleTimeout))
	if _, err := s.c.Write(socksReply(0x00)); err != nil {
		return
	}
	s.relay()
}

// socksGreeting reads the greeting and selects no-auth, or refuses.
func (s *session) socksGreeting() bool {
	var hdr [2]byte
	if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
		s.refuse(s.readReason(err), "greeting")
		return false
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(s.br, methods); err != nil {
		s.refuse(s.readReason(err), "greeting")
		return false
	}
	for _, m := range methods {
		if m == socksNoAuth {
			s.socksMethod = true
			_, _ = s.c.Write([]byte{socksVersion, socksNoAuth})
			return true
		}
	}
	s.refuse(ReasonSOCKSAuth, "")
	return false
}

// socksRequest reads the request and returns its CONNECT target, or
// refuses.
func (s *session) socksRequest() (target, bool) {
	var hdr [4]byte
	if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
		s.refuse(s.readReason(err), "request")
		return target{}, false
	}
	if hdr[0] != socksVersion || hdr[2] != 0 {
		s.refuse(ReasonBadRequest, "request header")
		return target{}, false
	}
	host, ok := s.socksAddr(hdr[3])
	if !ok {
		return target{}, false
	}
	var pb [2]byte
	if _, err := io.ReadFull(s.br, pb[:]); err != nil {
		s.refuse(s.readReason(err), "request port")
		return target{}, false
	}
	port := binary.BigEndian.Uint16(pb[:])
	s.rec.Host, s.rec.Port = host, port
	if hdr[1] != socksCmdConnect {
		s.refuse(ReasonSOCKSCommand, "command "+strconv.Itoa(int(hdr[1])))
		return target{}, false
	}
	t, err := parseTarget(host, port)
	if err != nil {
		s.refuse(ReasonBadRequest, "target: "+err.Error())
		return target{}, false
	}
	return t, true
}

// socksAddr reads DST.ADDR of the given type.
func (s *session) socksAddr(atyp byte) (string, bool) {
	var b []byte
	switch atyp {
	case socksAtypIPv4:
		b = make([]byte, 4)
	case socksAtypIPv6:
		b = make([]byte, 16)
	case socksAtypDomain:
		n, err := s.br.ReadByte()
		if err != nil {
			s.refuse(s.readReason(err), "request address")
			return "", false
		}
		b = make([]byte, n)
	default:
		s.refuse(ReasonSOCKSAddrType, "")
		return "", false
	}
	if _, err := io.ReadFull(s.br, b); err != nil {
		s.refuse(s.readReason(err), "request address")
		return "", false
	}
	if atyp == socksAtypDomain {
		return string(b), true
	}
	a, _ := netip.AddrFromSlice(b)
	return a.String(), true
}
