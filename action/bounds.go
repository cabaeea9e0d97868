package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxJSONDepth bounds how deeply a JSON document reaching the gate may
// nest, counted from its outermost value: a request line, a hook input,
// an HTTP body or an MCP call's arguments. Real tool calls nest a handful
// of levels; 64 leaves room for envelopes (a request line adds one, a
// hook input one) and refuses the 100k-level lines whose decoding and
// walking cost seconds and gigabytes.
const MaxJSONDepth = 64

// Sentinels of CheckBounds. Their messages never echo the input.
var (
	ErrTooDeep     = errors.New("JSON nested too deeply")
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
)

// CheckBounds is the cheap pre-scan every boundary runs on raw JSON before
// any decoder: one pass, no allocation unless it fails. It refuses
// nesting past MaxJSONDepth and bytes that are not UTF-8 in a string (a
// decoder would replace them with U+FFFD, so two different inputs would be
// judged and hashed alike; no conforming JSON producer writes them). It
// does not check the rest of the JSON syntax: the strict decoder that
// follows does. Errors name where (a path of plain key names) and never
// echo the input.
//
// Lone-surrogate escapes ("\ud800"), which decode to U+FFFD too, are
// refused in action payloads only (CheckPayloadBounds): JavaScript hosts
// write them when they cut a string mid-pair, and refusing a whole hook
// input or tool result for it would leave that result unread.
func CheckBounds(b []byte) error { return checkBounds(b, false) }

// CheckPayloadBounds is CheckBounds that also refuses lone-surrogate
// escapes: what an action carries is judged and hashed, so it must decode
// to exactly one string. action.Decode runs it on every payload.
func CheckPayloadBounds(b []byte) error { return checkBounds(b, true) }

func checkBounds(b []byte, surrogates bool) error {
	var st [MaxJSONDepth]boundFrame
	depth := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == MaxJSONDepth {
				return fmt.Errorf("%w: more than %d levels (at byte %d, under %s)",
					ErrTooDeep, MaxJSONDepth, i, boundPath(st[:depth]))
			}
			st[depth] = boundFrame{obj: c == '{', wantKey: c == '{'}
			depth++
		case c == '}' || c == ']':
			if depth > 0 {
				depth--
			}
		case c == ',':
			if depth > 0 && st[depth-1].obj {
				st[depth-1].wantKey = true
			}
		case c == '"':
			j := stringEnd(b, i)
			isKey := depth > 0 && st[depth-1].obj && st[depth-1].wantKey
			s := b[i+1 : max(j, i+1)]
			if !validJSONString(s, surrogates) {
				if isKey {
					return fmt.Errorf("%w in a key under %s", ErrInvalidUTF8, boundPath(st[:depth]))
				}
				return fmt.Errorf("%w in the string at %s", ErrInvalidUTF8, boundPath(st[:depth]))
			}
			if isKey {
				st[depth-1].key, st[depth-1].wantKey = s, false
			}
			i = j
		case c >= utf8.RuneSelf:
			return fmt.Errorf("%w: a non-ASCII byte outside any JSON string (at byte %d)", ErrInvalidUTF8, i)
		}
	}
	return nil
}

// boundFrame is one open object or array of CheckBounds.
type boundFrame struct {
	obj, wantKey bool
	key          []byte // raw bytes of the key whose value is being read
}

// boundPath renders where the scan is ("payload.command", "args[]"),
// naming only keys that are plain short identifiers: an error must not
// carry arbitrary input.
func boundPath(st []boundFrame) string {
	const shown = 8 // levels named; the rest are counted
	var sb strings.Builder
	for i, f := range st {
		if i == shown {
			fmt.Fprintf(&sb, " and %d more levels", len(st)-shown)
			break
		}
		switch {
		case !f.obj:
			sb.WriteString("[]")
		case f.key != nil:
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(plainKey(f.key))
		}
	}
	if sb.Len() == 0 {
		return "the top level"
	}
	return sb.String()
}

// plainKey returns k when it is a short identifier, else "?".
func plainKey(k []byte) string {
	if len(k) == 0 || len(k) > 64 {
		return "?"
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "?"
		}
	}
	return string(k)
}

// validJSONString reports whether the body of a JSON string (between its
// quotes) is UTF-8 and, with surrogates, whether its \u escapes pair
// their surrogates.
func validJSONString(s []byte, surrogates bool) bool {
	if !utf8.Valid(s) {
		return false
	}
	if !surrogates {
		return true
	}
	for k := 0; k < len(s); k++ {
		if s[k] != '\\' {
			continue
		}
		k++
		if k >= len(s) || s[k] != 'u' {
			continue
		}
		r, ok := hex4(s, k+1)
		if !ok {
			continue // bad escape: the decoder names it
		}
		k += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return false // a low surrogate with no high one before it
		case r >= 0xD800 && r <= 0xDBFF:
			if k+2 >= len(s) || s[k+1] != '\\' || s[k+2] != 'u' {
				return false
			}
			lo, ok := hex4(s, k+3)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			k += 6
		}
	}
	return true
}

// hex4 reads four hex digits at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// TopLevelString returns the string value of a top-level key of a JSON
// object that did not pass a strict parse (too deep, say), in one pass
// over the bytes whatever its nesting: "" when absent, not a string, or
// given twice. It is for naming what to fail closed on (the session to
// taint), never for judging.
func TopLevelString(b []byte, key string) string {
	depth, val, found := 0, "", 0
	wantKey, isKey := false, false
	var cur string
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
			wantKey = b[i] == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			wantKey = depth == 1
		case '"':
			j := stringEnd(b, i)
			isKey, wantKey = wantKey, false
			var s string
			if depth == 1 && json.Unmarshal(b[i:j+1], &s) != nil {
				s = ""
			}
			switch {
			case depth == 1 && isKey:
				cur = s
			case depth == 1 && cur == key:
				val, found = s, found+1
			}
			i = j
		}
	}
	if found != 1 {
		return ""
	}
	return val
}
