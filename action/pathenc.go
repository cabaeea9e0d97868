package action

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrEncodedPath is returned for a path field that spells characters with
// an escape (%68, &#126;, \x2e, \u002e) or a look-alike of ASCII (．ssh,
// .ѕsh with a Cyrillic ѕ). The gate judges a path as written; the tool
// that runs the action may decode or fold it (a URL decoder, an HTML
// unescaper, Windows' best-fit mapping of fullwidth characters, a
// reviewer reading .ѕsh as .ssh). Rather than guess which, such a path is
// refused (bad_path). ATT&CK T1027 Obfuscated Files or Information,
// Unicode TR39 (mixed-script confusables), CAPEC-267 Alternate Encoding.
//
// Tolerated, as real file names: a percent escape of a space or of
// punctuation that no path syntax depends on ("report%20final.txt"),
// a lone "%" or "&", and non-ASCII names in one script ("café.txt",
// "文档.md", "отчёт.txt").
var ErrEncodedPath = errors.New("path spells characters with an escape or a look-alike")

// CheckPathEncoding refuses a path with an escape or look-alike that
// could stand for path syntax or for a restricted name.
func CheckPathEncoding(p string) error {
	for i := 0; i < len(p); i++ {
		var n int
		switch p[i] {
		case '%':
			n = percentEscape(p[i:])
		case '&':
			n = entityEscape(p[i:])
		case '\\':
			n = backslashEscape(p[i:])
		}
		if n > 0 {
			return fmt.Errorf("%w: %q at byte %d", ErrEncodedPath, p[i:i+n], i)
		}
	}
	if r, ok := lookAlike(p); ok {
		return fmt.Errorf("%w: %U %q", ErrEncodedPath, r, string(r))
	}
	return nil
}

// percentEscape is the length of a refused "%HH" at the start of s: one
// that decodes to a letter, a digit, path syntax (. / \ ~), another
// escape (%), a control byte or a byte of a multi-byte character.
func percentEscape(s string) int {
	if len(s) < 3 || !isHex(s[1]) || !isHex(s[2]) {
		return 0
	}
	b := unhex(s[1])<<4 | unhex(s[2])
	switch {
	case b < 0x20 || b >= 0x7f, isAlnum(b), strings.IndexByte(`./\~%&`, b) >= 0:
		return 3
	}
	return 0
}

// pathEntities are HTML named references to characters path syntax and
// the escapes above depend on.
var pathEntities = []string{"period", "sol", "bsol", "tilde", "percnt", "amp", "lowbar", "hyphen",
	"dash", "colon", "nbsp", "tab", "newline", "num", "dollar", "quot", "apos"}

// entityEscape is the length of a refused HTML character reference at
// the start of s: any numeric one (&#126; &#x7e;, with or without ";")
// and the named ones in pathEntities.
func entityEscape(s string) int {
	if len(s) > 2 && s[1] == '#' {
		if isDigit(s[2]) || len(s) > 3 && (s[2] == 'x' || s[2] == 'X') && isHex(s[3]) {
			return min(len(s), 4)
		}
		return 0
	}
	end := strings.IndexByte(s, ';')
	if end < 2 {
		return 0
	}
	name := strings.ToLower(s[1:end])
	for _, e := range pathEntities {
		if name == e {
			return end + 1
		}
	}
	return 0
}

// backslashEscape is the length of a refused escape at the start of s:
// \xHH, \uHHHH, \UHHHHHHHH, \NNN (octal), \N{...}.
func backslashEscape(s string) int {
	hexRun := func(n int) int {
		if len(s) < 2+n {
			return 0
		}
		for i := 2; i < 2+n; i++ {
			if !isHex(s[i]) {
				return 0
			}
		}
		return 2 + n
	}
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case 'x':
		return hexRun(2)
	case 'u':
		return hexRun(4)
	case 'U':
		return hexRun(8)
	case 'N':
		if len(s) > 2 && s[2] == '{' {
			return 3
		}
	case '0', '1', '2', '3':
		if len(s) > 3 && isOctal(s[2]) && isOctal(s[3]) {
			return 4
		}
	}
	return 0
}

// lookAlikes are non-ASCII characters drawn like path syntax (dot,
// slash, backslash, tilde) that the fullwidth block does not cover.
var lookAlikes = []rune{
	'\u2024', '\uFE52', '\uFF61', '\u3002', // dots: one dot leader, small and ideographic full stops
	'\u2215', '\u2044', '\u29F8', '\u29F9', '\u2571', '\u2572', // slashes and backslashes
	'\u02DC', '\u223C', '\u2053', '\u00A5', '\u20A9', // tilde look-alikes; ¥ and ₩ are best-fit backslashes
}

// lookAlike finds a character that stands for ASCII: fullwidth forms,
// path-syntax look-alikes, invisible format characters (zero-width,
// bidi controls, soft hyphen), and a Cyrillic or Greek letter in a
// component that also has ASCII letters or whose letters all fold to
// ASCII (TR39 mixed-script and whole-script confusables).
func lookAlike(p string) (rune, bool) {
	if isASCII(p) {
		return 0, false
	}
	for _, r := range p {
		switch {
		case r >= '\uFF01' && r <= '\uFF5E', unicode.Is(unicode.Cf, r):
			return r, true
		}
		for _, l := range lookAlikes {
			if r == l {
				return r, true
			}
		}
	}
	words := strings.FieldsFunc(p, func(r rune) bool { return r < utf8.RuneSelf && !isAlnum(byte(r)) })
	for _, w := range words {
		if r, ok := confusableWord(w); ok {
			return r, true
		}
	}
	return 0, false
}

// confusableWord: a word (a run of letters and digits between path
// syntax, dots, dashes, spaces) with a Cyrillic or Greek letter and
// either an ASCII letter or only letters drawn like ASCII ones. Words,
// not components: "отчёт.txt" is two words, each in one script.
func confusableWord(c string) (rune, bool) {
	var foreign rune
	latin, allFold := false, true
	for _, r := range c {
		switch {
		case r < utf8.RuneSelf:
			latin = latin || isAlnum(byte(r)) && !isDigit(byte(r))
		case unicode.In(r, unicode.Cyrillic, unicode.Greek):
			if foreign == 0 {
				foreign = r
			}
			allFold = allFold && strings.ContainsRune(asciiLike, r)
		case unicode.IsLetter(r):
			allFold = false
		}
	}
	return foreign, foreign != 0 && (latin || allFold)
}

// asciiLike are Cyrillic and Greek letters drawn like ASCII letters.
const asciiLike = "аеорсухѕіјһԁԛԝӏɡАВЕКМНОРСТХЅІЈԚԜ" + "αβεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isHex(b byte) bool   { return isDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'f' }
func isDigit(b byte) bool { return '0' <= b && b <= '9' }
func isOctal(b byte) bool { return '0' <= b && b <= '7' }
func isAlnum(b byte) bool { return isDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'z' }

func unhex(b byte) byte {
	if isDigit(b) {
		return b - '0'
	}
	return b | 0x20 - 'a' + 10
}

// PercentDecoded decodes every "%HH" of p once; ok is false when p has
// none. The guard judges this spelling too, worst wins: the escapes
// CheckPathEncoding tolerates (a space, punctuation) may still spell a
// restricted path with a space in it (~/Library/Application Support).
func PercentDecoded(p string) (string, bool) {
	if strings.IndexByte(p, '%') < 0 {
		return p, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
			b.WriteByte(unhex(p[i+1])<<4 | unhex(p[i+2]))
			i += 2
			changed = true
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String(), changed
}
