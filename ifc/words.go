package ifc

// maxWord bounds the words eachWord reports; longer runs are skipped
// (no rule word is that long).
const maxWord = 32

type charClass uint8

const (
	classOther charClass = iota
	classLower
	classUpper
	classDigit
)

func classOf(b byte) charClass {
	switch {
	case b >= 'a' && b <= 'z':
		return classLower
	case b >= 'A' && b <= 'Z':
		return classUpper
	case b >= '0' && b <= '9':
		return classDigit
	}
	return classOther
}

// eachWord calls fn with every lower-cased word of s. Words break at
// non-alphanumeric bytes, at a lower-to-upper change ("bankStatement"),
// before the last capital of a capital run followed by a lower-case
// letter ("NDAForm" → "nda", "form") and between letters and digits
// ("budget2025"). It does not allocate: fn receives a view of a buffer
// and must not keep it.
func eachWord(s string, fn func([]byte)) {
	var buf [maxWord]byte
	n, over := 0, false
	flush := func() {
		if n > 0 && !over {
			fn(buf[:n])
		}
		n, over = 0, false
	}
	prev := classOther
	for i := 0; i < len(s); i++ {
		b := s[i]
		cl := classOf(b)
		if cl == classOther {
			flush()
			prev = cl
			continue
		}
		if wordBreak(prev, cl, s, i) {
			flush()
		}
		if n == maxWord {
			over = true
		} else {
			if cl == classUpper {
				b += 'a' - 'A'
			}
			buf[n] = b
			n++
		}
		prev = cl
	}
	flush()
}

// wordBreak reports whether a word ends before s[i].
func wordBreak(prev, cl charClass, s string, i int) bool {
	switch {
	case prev == classOther:
		return false
	case (prev == classDigit) != (cl == classDigit):
		return true
	case prev == classLower && cl == classUpper:
		return true
	case prev == classUpper && cl == classUpper:
		return i+1 < len(s) && classOf(s[i+1]) == classLower
	}
	return false
}
