package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// rule is one allowed entry of Config.Hosts or Config.Registries.
type rule struct {
	name     string     // lowercased host name; empty for a literal
	addr     netip.Addr // the literal address (unmapped); invalid for a name
	port     uint16     // 0: any port
	registry bool
}

// rules is the compiled allow list: registries first, so that a literal
// listed in both keeps the registry's exemption from the public-address
// rule, then the verdict's hosts.
type rules []rule

func compileRules(hosts, registries []string) (rules, error) {
	var rs rules
	for _, e := range registries {
		r, err := parseEntry(e, true)
		if err != nil {
			return nil, fmt.Errorf("registry %q: %w", e, err)
		}
		rs = append(rs, r)
	}
	for _, e := range hosts {
		r, err := parseEntry(e, false)
		if err != nil {
			return nil, fmt.Errorf("host %q: %w", e, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// parseEntry reads "name", "name:port", "ip" or "ip:port" ("[v6]:port").
func parseEntry(s string, registry bool) (rule, error) {
	r := rule{registry: registry}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		r.addr, r.port = ap.Addr().Unmap(), ap.Port()
		if r.port == 0 {
			return r, errors.New("port 0")
		}
		return r, checkLiteral(r.addr)
	}
	if a, err := netip.ParseAddr(s); err == nil {
		r.addr = a.Unmap()
		return r, checkLiteral(r.addr)
	}
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		port, err := parsePort(p)
		if err != nil {
			return r, err
		}
		host, r.port = h, port
	}
	if strings.Contains(host, "*") {
		return r, errors.New("wildcards are not supported")
	}
	r.name = normalizeName(host)
	if !validName(r.name) {
		return r, errors.New("not a host name, IP or host:port")
	}
	return r, nil
}

// checkLiteral refuses literal entries no connection may go to.
func checkLiteral(a netip.Addr) error {
	if a.Zone() != "" || a.IsUnspecified() || a.IsMulticast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() {
		return errors.New("unspecified, multicast or zoned address")
	}
	return nil
}

func parsePort(p string) (uint16, error) {
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("bad port %q", p)
	}
	return uint16(n), nil
}

// normalizeName lowercases ASCII and drops one trailing dot.
func normalizeName(s string) string {
	s = strings.TrimSuffix(s, ".")
	return strings.ToLower(s)
}

// validName accepts a DNS name of labels [a-z0-9_-] (lowercase input),
// at most 253 bytes, whose last label is not all digits (that shape is an
// IPv4 address in some form, such as "127.1" or "2130706433").
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

// target is what a client asked to reach.
type target struct {
	raw  string     // the host as the client sent it, for Inspect
	host string     // normalized name, or the literal's text
	ip   netip.Addr // valid when the client named a literal IP (unmapped)
	port uint16
}

// parseTarget reads a requested host (no brackets) and port.
func parseTarget(host string, port uint16) (target, error) {
	if port == 0 {
		return target{}, errors.New("port 0")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return target{}, errors.New("zoned address")
		}
		a = a.Unmap()
		return target{raw: host, host: a.String(), ip: a, port: port}, nil
	}
	name := normalizeName(host)
	if !validName(name) {
		return target{}, errors.New("not a host name or IP")
	}
	return target{raw: host, host: name, port: port}, nil
}

// parseHostPort reads "host:port" ("[v6]:port").
func parseHostPort(s string) (target, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return target{}, err
	}
	port, err := parsePort(p)
	if err != nil {
		return target{}, err
	}
	return parseTarget(h, port)
}

// match returns the first rule allowing t.
func (rs rules) match(t target) (rule, bool) {
	for _, r := range rs {
		if r.port != 0 && r.port != t.port {
			continue
		}
		if t.ip.IsValid() {
			if r.addr.IsValid() && r.addr == t.ip {
				return r, true
			}
			continue
		}
		if r.name != "" && r.name == t.host {
			return r, true
		}
	}
	return rule{}, false
}

// nonPublic lists the ranges no name may resolve to and no verdict
// literal may name, beyond what netip's predicates cover (loopback,
// private, link-local, multicast, unspecified). IPv4-mapped addresses
// are unmapped before the check.
var nonPublic = [...]netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // this network
	netip.MustParsePrefix("10.0.0.0/8"),      // private
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared space
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),   // private
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("192.168.0.0/16"),  // private
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("::/96"),           // unspecified, loopback, IPv4-compatible
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped (unmapped first; kept for clarity)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: embeds any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo: embeds IPv4
	netip.MustParsePrefix("2001:2::/48"),     // benchmarking
	netip.MustParsePrefix("2001:10::/28"),    // ORCHID
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: embeds IPv4
	netip.MustParsePrefix("3fff::/20"),       // documentation
	netip.MustParsePrefix("5f00::/16"),       // SRv6 SIDs
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fe80::/10"),       // link-local
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
	netip.MustParsePrefix("ff00::/8"),        // multicast
}

// isPublic reports whether a is a routable public unicast address.
func isPublic(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.Zone() != "" || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		a.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
