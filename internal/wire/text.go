package wire

import (
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TextMarker opens every string Text had to escape. It says, to a model
// or a person reading the result, how to read what follows.
const TextMarker = "[parallax: bytes that are not UTF-8 are shown as \\xNN; a backslash before them or before an x is doubled]\n"

// Text returns s as valid UTF-8 (as proto3 string fields must be),
// losing nothing. The scheme:
//
//   - Valid UTF-8 that does not begin with TextMarker is returned
//     unchanged: ordinary text, source code with "\x41" in it, reaches
//     the agent as it is.
//   - Anything else is TextMarker followed by s where each byte that is
//     not part of valid UTF-8 is written \xNN (two lowercase hex digits)
//     and every run of backslashes just before such a byte or before an
//     'x' is doubled.
//
// So, after the marker, a run of n backslashes followed by 'x' reads as
// n/2 backslashes and an 'x' when n is even, and as (n-1)/2 backslashes
// and the byte NN of "xNN" when n is odd; UnText does that. Text is
// injective: UnText(Text(s)) == s for every s.
func Text(s string) string {
	if utf8.ValidString(s) && !strings.HasPrefix(s, TextMarker) {
		return s
	}
	var b strings.Builder
	b.Grow(len(TextMarker) + len(s) + len(s)/8)
	b.WriteString(TextMarker)
	slashes := 0 // backslashes written since the last other character
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(strings.Repeat(`\`, slashes)) // double the run
			const hex = "0123456789abcdef"
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
			slashes = 0
		case r == 'x':
			b.WriteString(strings.Repeat(`\`, slashes))
			b.WriteByte('x')
			slashes = 0
		case r == '\\':
			b.WriteByte('\\')
			slashes++
		default:
			b.WriteString(s[i : i+n])
			slashes = 0
		}
		i += n
	}
	return b.String()
}

// ErrBadText is returned by UnText for a marked string Text cannot have
// written.
var ErrBadText = errors.New("wire: malformed escaped text")

// UnText inverts Text: the bytes Text was given.
func UnText(s string) (string, error) {
	body, ok := strings.CutPrefix(s, TextMarker)
	if !ok {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			b.WriteByte(body[i])
			i++
			continue
		}
		n := 0
		for i+n < len(body) && body[i+n] == '\\' {
			n++
		}
		if i+n == len(body) || body[i+n] != 'x' { // an ordinary run
			b.WriteString(body[i : i+n])
			i += n
			continue
		}
		b.WriteString(strings.Repeat(`\`, n/2))
		i += n
		if n%2 == 0 {
			b.WriteByte('x')
			i++
			continue
		}
		c, ok := unhex(body[i+1:])
		if !ok {
			return "", ErrBadText
		}
		b.WriteByte(c)
		i += 3
	}
	return b.String(), nil
}

func unhex(s string) (byte, bool) {
	if len(s) < 2 {
		return 0, false
	}
	var v byte
	for _, c := range []byte(s[:2]) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// ValidText returns m when all its string fields (nested, repeated and
// map ones included) are valid UTF-8, else a copy in which the invalid
// ones went through Text. It never changes m, so a message shared
// between goroutines stays safe to send from each.
func ValidText[M proto.Message](m M) M {
	if validMessage(m.ProtoReflect()) {
		return m
	}
	c := proto.Clone(m).(M)
	fixMessage(c.ProtoReflect())
	return c
}

func validMessage(m protoreflect.Message) bool {
	ok := true
	walkStrings(m, func(s string) string {
		if ok && !utf8.ValidString(s) {
			ok = false
		}
		return s
	})
	return ok
}

func fixMessage(m protoreflect.Message) {
	walkStrings(m, func(s string) string {
		if utf8.ValidString(s) {
			return s
		}
		return Text(s)
	})
}

// walkStrings calls f on every string field, list element, map key and
// map value of m and its submessages, and stores what f returns where it
// differs (a walk whose f returns its argument changes nothing).
func walkStrings(m protoreflect.Message, f func(string) string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			walkList(v.List(), fd, f)
		case fd.IsMap():
			walkMap(v.Map(), fd, f)
		case fd.Kind() == protoreflect.StringKind:
			if s := v.String(); f(s) != s {
				m.Set(fd, protoreflect.ValueOfString(f(s)))
			}
		case fd.Message() != nil:
			walkStrings(v.Message(), f)
		}
		return true
	})
}

func walkList(l protoreflect.List, fd protoreflect.FieldDescriptor, f func(string) string) {
	for i := 0; i < l.Len(); i++ {
		switch {
		case fd.Kind() == protoreflect.StringKind:
			if s := l.Get(i).String(); f(s) != s {
				l.Set(i, protoreflect.ValueOfString(f(s)))
			}
		case fd.Message() != nil:
			walkStrings(l.Get(i).Message(), f)
		}
	}
}

func walkMap(mp protoreflect.Map, fd protoreflect.FieldDescriptor, f func(string) string) {
	type entry struct {
		old protoreflect.MapKey
		k   protoreflect.MapKey
		v   protoreflect.Value
	}
	var changed []entry
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		e := entry{old: k, k: k, v: v}
		dirty := false
		if fd.MapKey().Kind() == protoreflect.StringKind {
			if s := k.String(); f(s) != s {
				e.k, dirty = protoreflect.ValueOfString(f(s)).MapKey(), true
			}
		}
		switch vd := fd.MapValue(); {
		case vd.Kind() == protoreflect.StringKind:
			if s := v.String(); f(s) != s {
				e.v, dirty = protoreflect.ValueOfString(f(s)), true
			}
		case vd.Message() != nil:
			walkStrings(v.Message(), f)
		}
		if dirty {
			changed = append(changed, e)
		}
		return true
	})
	for _, e := range changed {
		mp.Clear(e.old)
		mp.Set(e.k, e.v)
	}
}
