package dlp

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
)

// One decoder for every outbound channel. A URL (matchEncodedURL), an
// encoded run in a body, header or tool argument (scanEncodedTokens),
// separated hex anywhere (scanHexRuns) and text split by zero-width
// characters (scanZeroWidth) are all decoded by decodeOnce, layer after
// layer, within the same bounds:
//
//   - %XX, repeated until stable (at most pctRounds rounds: %2541 and
//     %252541 are one layer);
//   - zero-width characters removed, '+' and '.' splits joined;
//   - hex runs with separators ("41-4b", "41:4b", "41 4b", "41,4b",
//     "\x41\x4b", "0x41 0x4b") or a "0x" prefix ("0x414b...");
//   - each segment of urlMinSegment or more bytes as hex, base64 (std or
//     URL-safe, padded or not) and base32 (standard and extended-hex
//     alphabets, either case, padded or not).
//
// A decoded form counts only when it is mostly printable text
// (decodedText): images, hashes and random nonces decode to binary.
// Layers nest up to layerDepth; the forms of one input are capped at
// layerMaxVariants and layerMaxBytes in total, so the work per input is
// bounded whatever it holds. A reversed copy of the input is one more
// form (reversedTokens), cheap and only rescanned for credentials.

const (
	layerDepth       = 3
	layerMaxVariants = 24
	layerMaxBytes    = 64 << 10
	pctRounds        = 4
	minHexRunBytes   = 8 // a MAC address (6) or a short id is not data
)

// variants returns the decoded forms of s that differ from it, breadth
// first, within the bounds above.
func variants(s string) []string {
	var out []string
	seen := func(d string) bool { return d == s || slices.Contains(out, d) }
	total := 0
	layer := []string{s}
	for depth := 0; depth < layerDepth && len(layer) > 0; depth++ {
		var next []string
		for _, v := range layer {
			for _, d := range decodeOnce(v) {
				if len(out) >= layerMaxVariants || total+len(d) > layerMaxBytes || seen(d) {
					continue
				}
				total += len(d)
				out = append(out, d)
				next = append(next, d)
			}
		}
		layer = next
	}
	return out
}

// decodeOnce applies each decoding to s once.
func decodeOnce(s string) []string {
	var out []string
	if strings.IndexByte(s, '%') >= 0 {
		if p := pctStable(s); p != s {
			out = append(out, p)
		}
	}
	if z := stripZeroWidth(s); len(z) != len(s) {
		out = append(out, z)
	}
	if strings.ContainsAny(s, "+.") {
		out = append(out, strings.NewReplacer("+", "", ".", "").Replace(s))
	}
	if h, ok := unhexRuns(s); ok {
		out = append(out, h)
	}
	if len(s) <= encTokenMax {
		if d, ok := decodeSegment(s); ok {
			out = append(out, d) // the whole value (a token may hold '/' or '=')
		}
	}
	for _, seg := range segments(s) {
		if d, ok := decodeSegment(seg); ok && len(seg) != len(s) {
			out = append(out, d)
		}
	}
	return out
}

// pctStable decodes %XX until nothing changes, at most pctRounds times.
func pctStable(s string) string {
	for k := 0; k < pctRounds && strings.IndexByte(s, '%') >= 0; k++ {
		p := percentDecode(s)
		if p == s {
			break
		}
		s = p
	}
	return s
}

// decodeSegment decodes seg as hex, base64 in its four forms, then
// base32 in its two alphabets; a result counts only when it is mostly
// printable text.
func decodeSegment(seg string) (string, bool) {
	if len(seg)%2 == 0 && allBytes(seg, isHex) {
		if b, err := hex.DecodeString(seg); err == nil && decodedText(b) {
			return string(b), true
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(seg); err == nil && decodedText(b) {
			return string(b), true
		}
	}
	return decodeBase32(seg)
}

// base32Std and base32Hex read unpadded base32 (padding is trimmed first).
var (
	base32Std = base32.StdEncoding.WithPadding(base32.NoPadding)
	base32Hex = base32.HexEncoding.WithPadding(base32.NoPadding)
)

// decodeBase32 reads seg as base32 (RFC 4648 standard or extended hex
// alphabet), in either case, with or without '=' padding.
func decodeBase32(seg string) (string, bool) {
	t := strings.TrimRight(seg, "=")
	if len(t) < urlMinSegment || !allBytes(t, isBase32Byte) {
		return "", false
	}
	up := strings.ToUpper(t)
	for _, enc := range []*base32.Encoding{base32Std, base32Hex} {
		if b, err := enc.DecodeString(up); err == nil && decodedText(b) {
			return string(b), true
		}
	}
	return "", false
}

// isBase32Byte is a byte of either base32 alphabet, in either case.
func isBase32Byte(c byte) bool { return isAlnum(c) }

// unhexRuns replaces every separated or prefixed hex run of s that
// decodes to text by the text. It reports whether anything changed.
func unhexRuns(s string) (string, bool) {
	if !mayHexRun(s) {
		return s, false
	}
	var b strings.Builder
	last := 0
	var buf []byte
	for i := 0; i+3 < len(s); {
		end, dec := hexRun(s, i, buf[:0])
		buf = dec
		if end == 0 {
			i++
			continue
		}
		if len(dec) >= minHexRunBytes && decodedText(dec) {
			b.WriteString(s[last:i])
			b.Write(dec)
			last = end
		}
		i = end
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// mayHexRun is the cheap pre-check for unhexRuns: a "\x", a "0x", or a
// hex pair followed by a separator and another pair.
func mayHexRun(s string) bool {
	if strings.Contains(s, `\x`) || strings.Contains(s, "0x") || strings.Contains(s, "0X") {
		return true
	}
	for i := 2; i+2 < len(s); i++ {
		if hexSep[s[i]] && isHex(s[i-1]) && isHex(s[i-2]) {
			j := i + 1
			if hexSep[s[j]] {
				j++
			}
			if hexPair(s, j) {
				return true
			}
		}
	}
	return false
}

// hexSep are the bytes that separate hex pairs.
var hexSep = [256]bool{'-': true, ':': true, ' ': true, ',': true}

// hexRun reads a hex run at i: pairs joined by one separator ("41-4b"),
// prefixed pairs ("\x41\x4b", JSON's "\\x41", "0x41, 0x4b"), or "0x" and an even run of
// hex digits. It returns the end and the bytes appended to dst, or 0.
func hexRun(s string, i int, dst []byte) (int, []byte) {
	if i > 0 && isAlnum(s[i-1]) {
		return 0, dst // mid-word
	}
	pre := ""
	switch {
	case has(s, i, `\\x`):
		pre = `\\x` // "\x" inside a JSON string
	case has(s, i, `\x`):
		pre = `\x`
	case has(s, i, "0x") || has(s, i, "0X"):
		pre = s[i : i+2]
	}
	j := i + len(pre)
	if !hexPair(s, j) {
		return 0, dst
	}
	if strings.HasPrefix(pre, "0") && j+2 < len(s) && isHex(s[j+2]) && !has(s, j+2, pre) {
		return hexWhole(s, j, dst)
	}
	out := append(dst, unhex(s[j])<<4|unhex(s[j+1]))
	j += 2
	k := j
	for k < len(s) && k-j < 2 && hexSep[s[k]] {
		k++
	}
	sep := s[j:k]
	if pre == "" && (sep == "" || j < len(s) && isHex(s[j])) {
		return 0, dst // plain hex is a segment; decodeSegment reads it
	}
	for {
		m := j
		if !has(s, m, sep) || !has(s, m+len(sep), pre) {
			break
		}
		m += len(sep) + len(pre)
		if !hexPair(s, m) || m+2 < len(s) && isHex(s[m+2]) && (pre == "" || !has(s, m+2, pre)) {
			break
		}
		out = append(out, unhex(s[m])<<4|unhex(s[m+1]))
		j = m + 2
	}
	return j, out
}

// hexPair reports two hex digits at i.
func hexPair(s string, i int) bool { return i+1 < len(s) && isHex(s[i]) && isHex(s[i+1]) }

// hexWhole reads an even run of hex digits at j (after "0x").
func hexWhole(s string, j int, dst []byte) (int, []byte) {
	end := run(s, j, encTokenMax, isHex)
	n := (end - j) &^ 1
	if n < 2*minHexRunBytes {
		return 0, dst
	}
	for k := j; k < j+n; k += 2 {
		dst = append(dst, unhex(s[k])<<4|unhex(s[k+1]))
	}
	return j + n, dst
}

// reversed returns s backwards (bytes; the scanners read ASCII).
func reversed(s string) string {
	b := make([]byte, len(s))
	for k := 0; k < len(s); k++ {
		b[len(s)-1-k] = s[k]
	}
	return string(b)
}
