package guard

import (
	"github.com/parallax/parallax/internal/glob"
	"path"
)

// Token kinds of a pattern segment.
const (
	tokLit   = iota // one literal byte
	tokAny          // ?
	tokStar         // *
	tokClass        // [...]
)

type tok struct {
	kind  int
	c     byte
	class string // the bracket expression without brackets, path.Match syntax
}

// tokenize splits a segment in path.Match syntax into tokens; ok is false
// for a malformed segment.
func tokenize(q string) (toks []tok, ok bool) {
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '*':
			toks = append(toks, tok{kind: tokStar})
		case '?':
			toks = append(toks, tok{kind: tokAny})
		case '\\':
			if i+1 == len(q) {
				return nil, false
			}
			i++
			toks = append(toks, tok{kind: tokLit, c: q[i]})
		case '[':
			end := glob.ClassEnd(q, i)
			if end < 0 {
				return nil, false
			}
			toks = append(toks, tok{kind: tokClass, class: q[i+1 : end]})
			i = end
		default:
			toks = append(toks, tok{kind: tokLit, c: c})
		}
	}
	return toks, true
}

// classAny reports whether the class matches any byte of set.
func classAny(class, set string) bool {
	for i := 0; i < len(set); i++ {
		if ok, err := path.Match("["+class+"]", set[i:i+1]); ok || err != nil {
			return true
		}
	}
	return false
}

// couldFix reports whether a name matched by toks can end with (suffix
// true) or start with (suffix false) the literal s.
func couldFix(toks []tok, s string, suffix bool) bool {
	for k := 0; k < len(s); k++ {
		ti, si := k, k
		if suffix {
			ti, si = len(toks)-1-k, len(s)-1-k
		}
		if ti < 0 || ti >= len(toks) {
			return false
		}
		t := toks[ti]
		switch t.kind {
		case tokStar:
			return true
		case tokLit:
			if t.c != s[si] {
				return false
			}
		case tokClass:
			if !classAny(t.class, s[si:si+1]) {
				return false
			}
		}
	}
	return true
}

// bashSegs rewrites bash pattern segments into path.Match syntax
// (glob.ToGo); an extglob segment becomes anySeg. It returns a reason for
// a segment path.Match still refuses.
func bashSegs(segs []string) ([]string, string) {
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		q, ext, ok := glob.ToGo(s)
		switch {
		case !ok:
			return nil, "the glob segment " + quote(s) + " is malformed"
		case ext:
			q = anySeg
		}
		out = append(out, q)
	}
	return out, ""
}
