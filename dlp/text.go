package dlp

import "math"

// Byte classes and small text helpers shared by the matchers. Everything
// works on bytes: input need not be valid UTF-8.

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlpha(c byte) bool { return isUpper(c) || isLower(c) }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// wordBytes marks [A-Za-z0-9_].
var wordBytes = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		t[c] = isAlnum(b) || b == '_'
	}
	return t
}()

// isWord reports whether c continues an identifier.
func isWord(c byte) bool { return wordBytes[c] }

// isURLSafe reports whether c is in the base64url alphabet.
func isURLSafe(c byte) bool { return isWord(c) || c == '-' }

// isB64 reports whether c is in the standard base64 alphabet (no padding).
func isB64(c byte) bool { return isAlnum(c) || c == '+' || c == '/' }

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = toLower(b[j])
			}
			return string(b)
		}
	}
	return s
}

// wordEnd reports whether position i (exclusive end) ends a word.
func wordEnd(s string, i int) bool { return i >= len(s) || !isWord(s[i]) }

// hasFold reports whether s[i:] starts with lit, ASCII case-insensitively;
// lit is lowercase.
func hasFold(s string, i int, lit string) bool {
	if len(s)-i < len(lit) {
		return false
	}
	for k := 0; k < len(lit); k++ {
		if toLower(s[i+k]) != lit[k] {
			return false
		}
	}
	return true
}

// has reports whether s[i:] starts with lit.
func has(s string, i int, lit string) bool {
	return len(s)-i >= len(lit) && s[i:i+len(lit)] == lit
}

// run returns the end of the run of bytes from i that satisfy ok, reading
// at most limit bytes.
func run(s string, i, limit int, ok func(byte) bool) int {
	end := min(len(s), i+limit)
	for i < end && ok(s[i]) {
		i++
	}
	return i
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]uint16
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// mix counts the character classes in s: lower, upper, digit, other.
func mix(s string) (lower, upper, digit, other int) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isLower(c):
			lower++
		case isUpper(c):
			upper++
		case isDigit(c):
			digit++
		default:
			other++
		}
	}
	return
}

// placeholders are substrings that mark a value as an example, a
// template or a redaction rather than a real secret.
var placeholders = [...]string{
	"example", "changeme", "change_me", "change-me", "placeholder", "your", "redacted",
	"dummy", "sample", "fake", "xxxx", "****", "...", "<", ">", "todo", "replace", "insert",
	"secret", "password", "passwd", "token", "notset", "null", "undefined", "test", "abcdef",
	"123456", "000000", "${", "{{", "%s", "%(",
}

// isPlaceholder reports whether v reads as a stand-in for a value.
func isPlaceholder(v string) bool {
	for _, p := range placeholders {
		if containsFold(v, p) {
			return true
		}
	}
	return false
}

// containsFold reports whether v contains the lowercase sub, ASCII
// case-insensitively.
func containsFold(v, sub string) bool {
	for i := 0; i+len(sub) <= len(v); i++ {
		if toLower(v[i]) == sub[0] && hasFold(v, i, sub) {
			return true
		}
	}
	return false
}

// repetitive reports whether one byte makes up at least half of s (x's,
// zeros, dashes: template filler).
func repetitive(s string) bool {
	var counts [256]uint16
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
		if int(counts[s[i]])*2 >= len(s) && len(s) >= 4 {
			return true
		}
	}
	return false
}
