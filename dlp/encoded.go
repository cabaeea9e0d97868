package dlp

import "strings"

// Secrets sent inside request bodies, uploads and tool arguments are
// often encoded so that no scanner sees them in the clear: a JSON field
// holding base64 of {"token":"ghp_..."}, hex of aws_secret_access_key=...,
// every byte as %XX (MITRE ATT&CK T1132 Data Encoding, T1027, T1048).
// scanEncodedTokens finds runs of base64, hex or %XX characters long
// enough to hold a key, decodes them (one layer, then a second on what
// the first gave) and rescans the decoded text with the same trigger
// table. It reports encoded_secret over the run when the decoded text
// holds a credential or payment data.
//
// What does not match: data that decodes to binary (images, archives,
// hashes such as SHA-256 hex and git ids, random tokens) fails the
// printable-text test; text that decodes to ordinary words holds no
// credential; a run joined to another by '.' is JWT-shaped (its header
// and claims are public; the jwt scanner judges the token itself).
// Bounds: runs of encTokenMin to encTokenMax bytes, at most encMaxTokens
// decoded per text, and a rescan never decodes again.

const (
	encTokenMin  = 24   // base64 of 18 bytes: shorter runs hold no key
	encTokenMax  = 8192 // longer runs are blobs (images, archives), not keys
	encMaxTokens = 64
)

// encByte reports the bytes of an encoded run: the base64 alphabets
// (standard and URL-safe), padding, and % for %XX.
var encByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		t[c] = isLetter(b) || isDigit(b) || b == '+' || b == '/' || b == '-' || b == '_' || b == '=' || b == '%'
	}
	return t
}()

// scanEncodedTokens finds encoded secrets in sc.s and records them.
func scanEncodedTokens(sc *scan) {
	s := sc.s
	tried := 0
	for i := 0; i < len(s) && tried < encMaxTokens; {
		if !encByte[s[i]] {
			i++
			continue
		}
		j := i
		for j < len(s) && encByte[s[j]] {
			j++
		}
		start, end := i, j
		i = j
		if end-start < encTokenMin || end-start > encTokenMax || !encodedShape(s[start:end]) ||
			start > 0 && s[start-1] == '.' || end < len(s) && s[end] == '.' {
			continue
		}
		if coveredBy(sc.hits, start, end) {
			continue // a scanner already explains it (an encoded URL, a token)
		}
		tried++
		if decodedHoldsSecret(sc, s[start:end]) {
			sc.add(idEncodedSecret, start, end)
		}
	}
}

// coveredBy reports whether a recorded hit overlaps [start, end).
func coveredBy(hs []hit, start, end int) bool {
	for _, h := range hs {
		if h.start < end && start < h.end {
			return true
		}
	}
	return false
}

// encodedShape is the cheap pre-check on a run: %XX in it, or a mix of
// character classes no word or path has (a digit and both cases, or
// base64 punctuation inside), or all hex.
func encodedShape(t string) bool {
	var lower, upper, digit, punct bool
	for k := 0; k < len(t); k++ {
		c := t[k]
		switch {
		case c == '%' && k+2 < len(t) && isHex(t[k+1]) && isHex(t[k+2]):
			return true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case isDigit(c):
			digit = true
		case c == '+' || c == '=':
			punct = true
		}
	}
	return lower && upper && (digit || punct) || allBytes(t, isHex) && len(t)%2 == 0 ||
		digit && upper != lower && len(t) >= 32 && allBytes(strings.TrimRight(t, "="), isAlnum) // base32
}

// decodedHoldsSecret decodes t with the shared decoder (layers.go) and
// reports whether a decoded form holds a credential or payment data, or
// t backwards holds a credential.
func decodedHoldsSecret(sc *scan, t string) bool {
	for _, v := range variants(t) {
		if holdsSecret(sc, v) {
			return true
		}
	}
	return holdsCredential(sc, reversed(t))
}

// holdsSecret rescans decoded text without further decoding: a
// credential or payment data there counts.
func holdsSecret(sc *scan, v string) bool {
	return rescan(sc, v, func(id scannerID) bool {
		c := scanners[id].Category
		return c == Credential || c == PCI && decodedPayment(id)
	})
}

// holdsCredential is holdsSecret for credentials only: reversed text is
// noise in which a Luhn-valid digit run proves nothing.
func holdsCredential(sc *scan, v string) bool {
	return rescan(sc, v, func(id scannerID) bool { return scanners[id].Category == Credential })
}

// decodedPayment reports the payment scanners whose match in decoded text
// is data being smuggled (a card, an IBAN); a public address is not.
func decodedPayment(id scannerID) bool { return id == idCard || id == idIBAN }

func rescan(sc *scan, v string, counts func(scannerID) bool) bool {
	sub := scan{s: v, nested: true}
	for _, h := range sc.disp.runScan(&sub) {
		if counts(h.id) {
			return true
		}
	}
	return false
}

// scanHexRuns finds hex runs with separators or prefixes ("41-4b-49",
// "41:4b:49", "\x41\x4b", "0x41, 0x4b", "0x414b49...") anywhere in the
// text, decodes them with the shared decoder and records encoded_secret
// over a run whose text holds a credential or payment data. It reads the
// text as runs of the bytes such a run is made of (hexRunByte), sampling
// one byte in stride; only runs long enough for minHexRunBytes are looked
// into, and at most encMaxTokens are decoded per text.
func scanHexRuns(sc *scan) {
	const minRun = 3*minHexRunBytes - 1 // "41-4b-..." of minHexRunBytes pairs
	s := sc.s
	tried, last := 0, 0
	var buf []byte
	// A run of minRun bytes holds a byte at every stride-th position, so
	// only those are read first; a hit is widened to its run.
	const stride = minRun - 1
	for p := 0; p < len(s) && tried < encMaxTokens; p += stride {
		if !hexRunByte[s[p]] {
			continue
		}
		i, j := p, p+1
		for i > last && hexRunByte[s[i-1]] {
			i--
		}
		for j < len(s) && hexRunByte[s[j]] {
			j++
		}
		last, p = j, j
		if j-i < minRun {
			continue
		}
		for k := i; k+3 < j && tried < encMaxTokens; k++ {
			end, dec := hexRun(s, k, buf[:0])
			buf = dec
			if end == 0 {
				continue
			}
			start := k
			k = end - 1
			if len(dec) < minHexRunBytes || !decodedText(dec) || coveredBy(sc.hits, start, end) {
				continue
			}
			tried++
			if d := string(dec); holdsSecret(sc, d) || decodedHoldsSecret(sc, d) {
				sc.add(idEncodedSecret, start, end)
			}
		}
	}
}

// hexRunByte are the bytes a separated or prefixed hex run is made of.
var hexRunByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		t[c] = isHex(b) || hexSep[b] || b == '\\' || b == 'x' || b == 'X'
	}
	return t
}()

// zeroWidthSeqs are the encodings of the zeroWidth characters.
var zeroWidthSeqs = [...]string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e", "\u00ad"}

// zeroWidthAt returns the length of a zero-width character at i, or 0.
func zeroWidthAt(s string, i int) int {
	if c := s[i]; c != 0xe2 && c != 0xef && c != 0xe1 && c != 0xc2 {
		return 0
	}
	for _, z := range zeroWidthSeqs {
		if has(s, i, z) {
			return len(z)
		}
	}
	return 0
}

// scanZeroWidth rescans the text without its zero-width characters and
// records encoded_secret over each credential that only the joined text
// shows (a token split by U+200B in a message or a tool argument).
func scanZeroWidth(sc *scan) {
	s := sc.s
	found := false
	for _, z := range zeroWidthSeqs {
		if strings.Contains(s, z) {
			found = true
			break
		}
	}
	if !found {
		return
	}
	b := make([]byte, 0, len(s))
	at := make([]int, 0, len(s)) // at[k]: offset in s of b[k]
	for i := 0; i < len(s); {
		if n := zeroWidthAt(s, i); n > 0 {
			i += n
			continue
		}
		b = append(b, s[i])
		at = append(at, i)
		i++
	}
	sub := scan{s: string(b), nested: true}
	for _, h := range sc.disp.runScan(&sub) {
		if scanners[h.id].Category != Credential {
			continue
		}
		start, end := at[h.start], at[h.end-1]+1
		if end-start != h.end-h.start && !coveredBy(sc.hits, start, end) { // a removed character inside
			sc.add(idEncodedSecret, start, end)
		}
	}
}
