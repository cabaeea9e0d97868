package dlp

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
	return lower && upper && (digit || punct) || allBytes(t, isHex) && len(t)%2 == 0
}

// decodedHoldsSecret decodes t (base64 or hex, or %XX) up to two layers
// and reports whether a decoded form holds a credential or payment data.
func decodedHoldsSecret(sc *scan, t string) bool {
	var layer1 []string
	if d, ok := decodeSegment(t); ok {
		layer1 = append(layer1, d)
	}
	if p := percentDecode(t); p != t {
		layer1 = append(layer1, p)
		if d, ok := decodeSegment(p); ok {
			layer1 = append(layer1, d)
		}
	}
	for _, v := range layer1 {
		if holdsSecret(sc, v) {
			return true
		}
		for _, w := range decodeOnce(v) {
			if holdsSecret(sc, w) {
				return true
			}
		}
	}
	return false
}

// holdsSecret rescans decoded text without further decoding.
func holdsSecret(sc *scan, v string) bool {
	sub := scan{s: v, nested: true}
	for _, h := range sc.disp.runScan(&sub) {
		if c := scanners[h.id].Category; c == Credential || c == PCI {
			return true
		}
	}
	return false
}
