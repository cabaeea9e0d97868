package heuristic

import (
	"net/netip"
	"strings"
)

// parseIPv4Legacy parses s with inet_aton semantics, the way curl, wget,
// browsers and libc resolvers accept an IPv4 literal: one to four parts
// separated by ".", each decimal, octal (leading 0) or hex (0x); the last
// part fills the remaining bytes. "2852039166", "0xa9fea9fe",
// "0251.0376.0251.0376", "169.254.43518" and "0xa9.0xfe.0xa9.0xfe" are all
// 169.254.169.254. A single trailing dot is accepted (a rooted name).
func parseIPv4Legacy(s string) (netip.Addr, bool) {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return netip.Addr{}, false
	}
	var parts [4]uint64
	n := 0
	for {
		if n == 4 {
			return netip.Addr{}, false
		}
		i := strings.IndexByte(s, '.')
		part := s
		if i >= 0 {
			part = s[:i]
		}
		v, ok := parseIPv4Part(part)
		if !ok {
			return netip.Addr{}, false
		}
		parts[n] = v
		n++
		if i < 0 {
			break
		}
		s = s[i+1:]
	}
	var ip uint64
	for i := 0; i < n-1; i++ {
		if parts[i] > 0xff {
			return netip.Addr{}, false
		}
		ip |= parts[i] << (8 * (3 - i))
	}
	last := parts[n-1]
	if last >= 1<<(8*(5-n)) {
		return netip.Addr{}, false
	}
	ip |= last
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// parseIPv4Part reads one part: "0x"/"0X" hex, leading-0 octal, decimal.
// Values are capped at 32 bits (no overflow on long inputs).
func parseIPv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
		if p == "" { // "0x" alone is 0 for inet_aton
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		d, ok := digitVal(p[i])
		if !ok || d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

func digitVal(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// parseHostIP reads a host as an IP address in any spelling a client
// accepts: legacy IPv4 forms, IPv6 with or without brackets and zone, and
// IPv4 embedded in IPv6 (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d,
// NAT64 64:ff9b::/96), which are returned as the IPv4 address they reach.
func parseHostIP(host string) (netip.Addr, bool) {
	h := strings.TrimPrefix(strings.TrimSuffix(host, "]"), "[")
	if strings.IndexByte(h, ':') >= 0 {
		if i := strings.IndexByte(h, '%'); i >= 0 {
			h = h[:i]
		}
		a, err := netip.ParseAddr(h)
		if err != nil {
			return netip.Addr{}, false
		}
		return unembed(a), true
	}
	return parseIPv4Legacy(h)
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// unembed returns the IPv4 address an IPv6 address carries, if any.
func unembed(a netip.Addr) netip.Addr {
	if a.Is4In6() {
		return a.Unmap()
	}
	if a.Is6() {
		b := a.As16()
		zero12 := true
		for _, x := range b[:12] {
			if x != 0 {
				zero12 = false
				break
			}
		}
		if (zero12 && (b[12] != 0 || b[13] != 0)) || nat64.Contains(a) { // ::a.b.c.d, 64:ff9b::a.b.c.d
			return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		}
	}
	return a
}

// metadataAddrs are cloud instance metadata endpoints: AWS, GCP, Azure,
// OCI, DigitalOcean (169.254.169.254), AWS ECS/EKS task credentials
// (169.254.170.2, .23), Alibaba (100.100.100.200), AWS IPv6 (fd00:ec2::254,
// ::23).
var metadataAddrs = [...]netip.Addr{
	netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("169.254.170.23"), netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("fd00:ec2::23"),
}

// metadataNames are DNS names of metadata services.
var metadataNames = [...]string{"metadata.google.internal", "metadata.goog", "metadata",
	"instance-data", "instance-data.ec2.internal", "metadata.tencentyun.com",
	"metadata.azure.com", "metadata.packet.net", "metadata.platformequinix.com"}

// wildcardDNS are services resolving "<ip>.<service>" to <ip>.
var wildcardDNS = [...]string{".nip.io", ".sslip.io", ".xip.io", ".traefik.me", ".localtest.me"}

// isMetadataHost reports whether host (already lowercased and decoded)
// reaches a cloud metadata service.
func isMetadataHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	for _, n := range metadataNames {
		if host == n {
			return true
		}
	}
	a, ok := hostAddr(host)
	if !ok {
		return false
	}
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// hostAddr returns the address a host names: an IP literal in any
// spelling, or "<ip>.nip.io"-style wildcard DNS names ("a9fea9fe.nip.io",
// "169-254-169-254.sslip.io").
func hostAddr(host string) (netip.Addr, bool) {
	if a, ok := parseHostIP(host); ok {
		return a, true
	}
	for _, w := range wildcardDNS {
		if !strings.HasSuffix(host, w) {
			continue
		}
		// "<ip>.nip.io", "app.<ip>.nip.io", "app-10-0-0-1.nip.io", "app-c0a80101.nip.io"
		f := strings.FieldsFunc(host[:len(host)-len(w)], func(r rune) bool { return r == '.' || r == '-' })
		if len(f) >= 4 {
			if a, ok := parseIPv4Legacy(strings.Join(f[len(f)-4:], ".")); ok {
				return a, true
			}
		}
		if len(f) >= 1 && len(f[len(f)-1]) == 8 {
			if a, ok := parseIPv4Legacy("0x" + f[len(f)-1]); ok {
				return a, true
			}
		}
	}
	return netip.Addr{}, false
}

var (
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	benchmark = netip.MustParsePrefix("198.18.0.0/15")
)

// isInternalAddr reports whether a is loopback, private, link-local,
// unspecified, shared (CGNAT) or unique-local: not a public destination.
func isInternalAddr(a netip.Addr) bool {
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || cgnat.Contains(a) || benchmark.Contains(a)
}

// isInternalHost reports whether host names a machine-local or private
// network destination: an internal address in any spelling, localhost,
// or a private DNS suffix.
func isInternalHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if a, ok := hostAddr(host); ok {
		return isInternalAddr(a)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, s := range [...]string{".internal", ".local", ".cluster.local", ".lan", ".home.arpa", ".corp", ".intranet"} {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}
