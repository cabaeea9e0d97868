package dlp

import "strings"

// Masking further copies of masked values in one pass over the output,
// however many values there are: a 64 Ki-bit filter keyed by the first two
// bytes rules out most positions with one load; the rest are looked up by
// their first minNeedle bytes.

// minNeedle is the shortest masked value whose other copies are masked
// too (shorter ones would blank ordinary words).
const minNeedle = 6

type needle struct{ value, id string }

type needles struct {
	filter   [1 << 10]uint64
	byPrefix map[string][]needle
}

func newNeedles() *needles { return &needles{} }

func prefixHash(s string) uint32 { return uint32(s[0])<<8 | uint32(s[1]) }

func (ns *needles) add(value, id string) {
	if len(value) < minNeedle {
		return
	}
	if ns.byPrefix == nil {
		ns.byPrefix = make(map[string][]needle)
	}
	key := value[:minNeedle]
	for _, n := range ns.byPrefix[key] {
		if n.value == value {
			return
		}
	}
	ns.byPrefix[key] = append(ns.byPrefix[key], needle{value, id})
	h := prefixHash(value)
	ns.filter[h>>6] |= 1 << (h & 63)
}

// at returns the longest needle starting at out[p:].
func (ns *needles) at(out string, p int) (needle, bool) {
	h := prefixHash(out[p:])
	if ns.filter[h>>6]&(1<<(h&63)) == 0 {
		return needle{}, false
	}
	var best needle
	for _, n := range ns.byPrefix[out[p:p+minNeedle]] {
		if len(n.value) > len(best.value) && strings.HasPrefix(out[p:], n.value) {
			best = n
		}
	}
	return best, best.value != ""
}

// replace masks every needle in out; it reports whether it changed out.
func (ns *needles) replace(out string) (string, bool) {
	var b strings.Builder
	last := 0
	for p := 0; p+minNeedle <= len(out); {
		n, ok := ns.at(out, p)
		if !ok {
			p++
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(out) + 64)
		}
		b.WriteString(out[last:p])
		b.WriteString(mask(n.id))
		p += len(n.value)
		last = p
	}
	if last == 0 {
		return out, false
	}
	b.WriteString(out[last:])
	return b.String(), true
}

// remask masks remaining copies until none is left; if that takes more
// than maxRemask passes the whole output is masked.
func (ns *needles) remask(out string) string {
	if ns.byPrefix == nil {
		return out
	}
	for range maxRemask {
		var changed bool
		if out, changed = ns.replace(out); !changed {
			return out
		}
	}
	if _, changed := ns.replace(out); changed {
		return mask("dlp")
	}
	return out
}
