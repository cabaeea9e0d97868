package heuristic

import (
	"strings"
	"unicode/utf8"
)

// urlHost extracts the host and port a URL talks to, normalised the way a
// WHATWG URL parser or curl sees it: scheme and userinfo dropped, "\"
// ending the authority like "/", percent escapes decoded, full-width
// digits and dots folded to ASCII, lowercased, a trailing dot removed.
// A string without "://" is read as "host[:port][/path]".
func urlHost(u string) (host, port string) {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else {
		u = strings.TrimPrefix(u, "//")
	}
	if i := strings.IndexAny(u, "/?#\\"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if strings.HasPrefix(u, "[") {
		if i := strings.IndexByte(u, ']'); i >= 0 {
			host, rest := u[:i+1], u[i+1:]
			return normHost(host), strings.TrimPrefix(rest, ":")
		}
		return normHost(u), ""
	}
	if i := strings.LastIndexByte(u, ':'); i >= 0 && strings.Count(u, ":") == 1 {
		u, port = u[:i], u[i+1:]
	}
	return normHost(u), port
}

// normHost lowercases and decodes a host; plain lowercase ASCII hosts are
// returned without allocating.
func normHost(h string) string {
	clean := true
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= 'A' && c <= 'Z' || c == '%' || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return strings.TrimSuffix(h, ".")
	}
	var b strings.Builder
	for i := 0; i < len(h); {
		c := h[i]
		switch {
		case c == '%' && i+2 < len(h) && isHex(h[i+1]) && isHex(h[i+2]):
			hi, _ := digitVal(h[i+1])
			lo, _ := digitVal(h[i+2])
			b.WriteByte(lower(byte(hi<<4 | lo)))
			i += 3
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(h[i:])
			switch {
			case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
				b.WriteByte(lower(byte(r - 0xFEE0)))
			case r == 0x3002 || r == 0xFF61: // ideographic full stops
				b.WriteByte('.')
			default:
				b.WriteRune(r)
			}
			i += n
		default:
			b.WriteByte(lower(c))
			i++
		}
	}
	return strings.TrimSuffix(b.String(), ".")
}

func isHex(c byte) bool { _, ok := digitVal(c); return ok }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
