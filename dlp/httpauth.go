package dlp

import (
	"encoding/base64"
	"strings"
)

// Credentials carried by HTTP conventions: Authorization schemes and the
// userinfo of URLs. The span is the credential, so a redacted URL or
// header keeps its shape.

func isBearerByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._~+/=-", c) >= 0
}

// matchBearer: "Bearer " + a token of 16 or more bytes with letters and
// digits and at least 3 bits of entropy per byte; template values and
// variable references are not tokens.
func matchBearer(sc *scan, i int) int {
	s := sc.s
	j := i + len("bearer ")
	end, ok := token(s, j, 4096, isBearerByte)
	v := s[j:end]
	if !ok || len(v) < 16 || filler(v) || isPlaceholder(v) || entropy(v) < 3.0 {
		return 0
	}
	lower, upper, digit, _ := mix(v)
	if digit == 0 || lower+upper == 0 {
		return 0
	}
	sc.add(idBearerToken, j, end)
	return 0
}

// matchBasicAuth: "Basic " + base64 that decodes to printable
// "user:password" with a non-empty password.
func matchBasicAuth(sc *scan, i int) int {
	s := sc.s
	j := i + len("basic ")
	end, _ := token(s, j, 1024, isB64)
	pad := end
	for pad < len(s) && pad < end+2 && s[pad] == '=' {
		pad++
	}
	if end-j < 8 || (pad < len(s) && isWord(s[pad])) {
		return 0
	}
	b, err := base64.RawStdEncoding.DecodeString(s[j:end])
	if err != nil {
		return 0
	}
	dec := string(b)
	if dec == "Aladdin:open sesame" { // the example of RFC 7617 and its predecessors
		return 0
	}
	c := strings.IndexByte(dec, ':')
	if c < 1 || c == len(dec)-1 || !printable(dec) || isPlaceholder(dec[c+1:]) {
		return 0
	}
	sc.add(idBasicAuth, j, pad)
	return 0
}

func printable(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

func isSchemeByte(c byte) bool { return isAlnum(c) || c == '+' || c == '.' || c == '-' }

// matchURLCredentials: scheme://user:password@host, the trigger at "://".
// The password must be a value, not a reference or a template
// ("${DB_PASS}", "<password>", "password", "****"), nor the user name
// again (vendor defaults such as guest:guest), and at least 4 bytes.
func matchURLCredentials(sc *scan, i int) int {
	s := sc.s
	k := i
	for k > 0 && i-k < 32 && isSchemeByte(s[k-1]) {
		k--
	}
	if i-k < 2 || !isAlpha(s[k]) {
		return 0
	}
	j := i + 3
	at := -1
	colon := -1
	for p := j; p < len(s) && p < j+256; p++ {
		c := s[p]
		if c == '@' {
			at = p
			break
		}
		if c == ':' && colon < 0 {
			colon = p
		}
		if c <= ' ' || strings.IndexByte("/?#\"'<>`\\", c) >= 0 {
			return 0
		}
	}
	if at < 0 || colon < 0 || at+1 >= len(s) || !(isAlnum(s[at+1]) || s[at+1] == '[') {
		return 0
	}
	if pw := s[colon+1 : at]; len(pw) >= 4 && !weakValue(pw) && pw != s[i+3:colon] {
		sc.add(idConnString, colon+1, at)
	}
	return 0
}

// weakValue reports whether a password slot holds no usable secret: empty,
// a reference or a template.
func weakValue(pw string) bool {
	if pw == "" || strings.IndexByte("$<{[*", pw[0]) >= 0 {
		return true
	}
	switch lowerASCII(pw) {
	case "pass", "pwd", "pw", "x", "user", "username":
		return true
	}
	return isPlaceholder(pw) || repetitive(pw) && len(pw) > 2
}
