package dlp

import "strings"

// Secrets leaving inside URLs are often encoded so that no scanner sees
// them in the clear: base64 (std or URL-safe, padded or not), hex, %XX
// (once or twice), split by zero-width characters or by '+' and '.'
// (MITRE ATT&CK T1132, T1027, T1048). matchEncodedURL reads the URL
// around a "://", derives decoded variants of it and of its segments,
// and rescans them with the same trigger table. Decoding is the shared
// decoder's (layers.go) on at most urlMaxBytes of URL, and a rescan never
// decodes again. The URL backwards is one more form, rescanned for
// credentials only.

const (
	urlMaxBytes   = 4096
	urlMinSegment = 16 // shorter segments cannot hold a key in any encoding
)

// matchEncodedURL runs at "://". It reports one encoded_url_secret over
// the URL when a decoded variant holds a credential or payment data the
// plain text does not show.
func matchEncodedURL(sc *scan, i int) int {
	if sc.nested {
		return 0
	}
	s := sc.s
	start := i
	for start > 0 && i-start < 32 && isSchemeByte(s[start-1]) {
		start--
	}
	end := i + 3
	for end < len(s) && end-i < urlMaxBytes && (!urlStop(s[end]) || has(s, end, `\x`) && hexPair(s, end+2)) {
		end++
	}
	u := s[i+3 : end]
	if len(u) < urlMinSegment || !mayDecode(u) {
		return 0
	}
	for _, v := range variants(u) {
		if holdsSecret(sc, v) {
			sc.add(idEncodedURLSecret, start, end)
			return 0
		}
	}
	if holdsCredential(sc, reversed(u)) {
		sc.add(idEncodedURLSecret, start, end)
	}
	return 0
}

// mayDecode is the cheap pre-check: something in u could decode (%XX, a
// zero-width character, separator splits, or a segment long enough to
// hold an encoded key). Most URLs stop here without allocating.
func mayDecode(u string) bool {
	if strings.IndexByte(u, '%') >= 0 || strings.IndexByte(u, 0xe2) >= 0 || strings.IndexByte(u, 0xef) >= 0 ||
		strings.IndexByte(u, 0xc2) >= 0 || strings.IndexByte(u, '\\') >= 0 ||
		strings.Count(u, "+") >= 3 || strings.Count(u, ".") >= 5 || mayHexRun(u) {
		return true
	}
	n := 0
	for k := 0; k < len(u); k++ {
		if strings.IndexByte("/?&=#.:;,@", u[k]) >= 0 {
			n = 0
			continue
		}
		if n++; n >= urlMinSegment {
			return true
		}
	}
	return false
}

// urlStop ends a URL: whitespace, quotes and angle brackets.
func urlStop(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == '\\'
}

// percentDecode decodes every valid %XX and leaves the rest as it is.
func percentDecode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for k := 0; k < len(s); k++ {
		if s[k] == '%' && k+2 < len(s) && isHex(s[k+1]) && isHex(s[k+2]) {
			b.WriteByte(unhex(s[k+1])<<4 | unhex(s[k+2]))
			k += 2
			continue
		}
		b.WriteByte(s[k])
	}
	return b.String()
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// zeroWidth are the invisible characters used to split a token: U+200B,
// U+200C, U+200D, U+2060, U+FEFF, U+180E and the soft hyphen U+00AD.
var zeroWidth = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "",
	"\u180e", "", "\u00ad", "")

// mayHoldZeroWidth is the cheap pre-check: a lead byte of one of them.
func mayHoldZeroWidth(s string) bool {
	return strings.IndexByte(s, 0xe2) >= 0 || strings.IndexByte(s, 0xef) >= 0 ||
		strings.IndexByte(s, 0xe1) >= 0 || strings.IndexByte(s, 0xc2) >= 0
}

func stripZeroWidth(s string) string {
	if !mayHoldZeroWidth(s) {
		return s
	}
	return zeroWidth.Replace(s)
}

// segments splits s at URL delimiters and keeps the runs long enough to
// hold an encoded key.
func segments(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune("/?&=#.:;,@", r)
	}) {
		if len(f) >= urlMinSegment {
			out = append(out, f)
		}
	}
	return out
}

func allBytes(s string, ok func(byte) bool) bool {
	for k := 0; k < len(s); k++ {
		if !ok(s[k]) {
			return false
		}
	}
	return true
}

// decodedText reports whether b is at least 90% printable ASCII or
// whitespace: decoded data, not noise.
func decodedText(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	n := 0
	for _, c := range b {
		if c >= ' ' && c < 0x7f || c == '\n' || c == '\r' || c == '\t' {
			n++
		}
	}
	return n*10 >= len(b)*9
}
