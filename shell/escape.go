package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// This file expands braces and decodes escape sequences ($'...', echo -e,
// printf).

// braces expands the brace expressions of a word (after
// syntax.SplitBraces) into alternative part lists, at most maxBraces.
func (a *analyzer) braces(parts []syntax.WordPart) [][]syntax.WordPart {
	out := make([][]syntax.WordPart, 0, 4)
	var rec func(parts []syntax.WordPart)
	rec = func(parts []syntax.WordPart) {
		if len(out) >= maxBraces {
			return
		}
		i := 0
		for ; i < len(parts); i++ {
			if _, ok := parts[i].(*syntax.BraceExp); ok {
				break
			}
		}
		if i == len(parts) {
			out = append(out, parts)
			return
		}
		be := parts[i].(*syntax.BraceExp)
		for _, alt := range braceAlts(be) {
			if len(out) >= maxBraces || !a.tick() {
				return
			}
			n := make([]syntax.WordPart, 0, len(parts)+len(alt))
			n = append(append(append(n, parts[:i]...), alt...), parts[i+1:]...)
			rec(n)
		}
	}
	rec(parts)
	if len(out) >= maxBraces {
		a.tagf(nil, TagLimitExceeded, "brace expansion")
	}
	return out
}

// braceAlts lists the alternatives of one brace expression.
func braceAlts(be *syntax.BraceExp) [][]syntax.WordPart {
	if !be.Sequence {
		alts := make([][]syntax.WordPart, len(be.Elems))
		for i, e := range be.Elems {
			alts[i] = e.Parts
		}
		return alts
	}
	if len(be.Elems) < 2 {
		return nil
	}
	from, to := be.Elems[0].Lit(), be.Elems[1].Lit()
	step := 1
	if len(be.Elems) > 2 {
		if n, err := strconv.Atoi(be.Elems[2].Lit()); err == nil && n != 0 {
			step = n
		}
	}
	if step < 0 {
		step = -step
	}
	var vals []string
	x, err1 := strconv.Atoi(from)
	y, err2 := strconv.Atoi(to)
	switch {
	case err1 == nil && err2 == nil:
		vals = seqInts(x, y, step)
	case len(from) == 1 && len(to) == 1:
		for _, v := range seqInts(int(from[0]), int(to[0]), step) {
			n, _ := strconv.Atoi(v)
			vals = append(vals, string(rune(n)))
		}
	}
	alts := make([][]syntax.WordPart, len(vals))
	for i, v := range vals {
		alts[i] = []syntax.WordPart{&syntax.Lit{Value: v}}
	}
	return alts
}

func seqInts(x, y, step int) []string {
	var out []string
	for i := 0; i <= maxBraces; i++ {
		var v int
		if x <= y {
			v = x + i*step
			if v > y {
				break
			}
		} else {
			v = x - i*step
			if v < y {
				break
			}
		}
		out = append(out, strconv.Itoa(v))
	}
	return out
}

// ansiC decodes the body of $'...'; esc reports whether it held numeric
// escapes (\x41, \101, \u0041) — a way to hide names.
func ansiC(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	return unescape(s, true)
}

// unescape decodes backslash escapes as $'...' and echo -e do. With
// quote set ($'...', printf), octal escapes need no leading 0 and \' \"
// are escapes too.
func unescape(s string, quote bool) (string, bool) {
	var sb strings.Builder
	sb.Grow(len(s))
	esc := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		c = s[i]
		if r, ok := simpleEscape(c); ok {
			sb.WriteByte(r)
			continue
		}
		switch c {
		case 'x':
			n, k := numEsc(s[i+1:], 16, 2)
			if k == 0 {
				sb.WriteString("\\x")
				continue
			}
			sb.WriteByte(byte(n))
			i += k
			esc = true
		case 'u', 'U':
			max := 4
			if c == 'U' {
				max = 8
			}
			n, k := numEsc(s[i+1:], 16, max)
			if k == 0 || n > utf8.MaxRune {
				sb.WriteByte('\\')
				sb.WriteByte(c)
				continue
			}
			sb.WriteRune(rune(n))
			i += k
			esc = true
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			if c == '0' && !quote {
				j++ // echo -e: \0nnn
			}
			n, k := numEsc(s[j:], 8, 3)
			sb.WriteByte(byte(n))
			i = j + k - 1
			esc = true
		case '\'', '"':
			if !quote {
				sb.WriteByte('\\')
			}
			sb.WriteByte(c)
		case 'c':
			if !quote {
				return sb.String(), esc // echo -e \c: stop output
			}
			sb.WriteString("\\c")
		default:
			sb.WriteByte('\\')
			sb.WriteByte(c)
		}
	}
	return sb.String(), esc
}

// simpleEscape maps one-letter escapes (\n, \t, ...).
func simpleEscape(c byte) (byte, bool) {
	switch c {
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'a':
		return 7, true
	case 'b':
		return 8, true
	case 'e', 'E':
		return 27, true
	case 'f':
		return 12, true
	case 'v':
		return 11, true
	case '\\':
		return '\\', true
	}
	return 0, false
}

// numEsc reads up to max digits of base; k is how many were read.
func numEsc(s string, base, max int) (n, k int) {
	for k < max && k < len(s) {
		d := digitVal(s[k])
		if d < 0 || d >= base {
			break
		}
		n = n*base + d
		k++
	}
	return n, k
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
