package guard

import (
	"path"

	"github.com/parallax/parallax/internal/glob"
)

// segEnd is what a pattern segment's matches can end with: a name whose
// last byte is not in the set cannot match, so segMatch (path.Match) is
// skipped for it. A malformed segment, which segMatch lets match
// everything, is never "known".
type segEnd struct {
	set   glob.Bytes
	known bool
}

func segEndOf(q string) segEnd {
	if q == anySeg || q == "**" || !glob.HasMeta(q) {
		return segEnd{} // segMatch decides these without path.Match
	}
	set, ok := glob.LastBytes(q, false) // bashSegs has turned "[!" into "[^"
	if !ok {
		return segEnd{}
	}
	if _, err := path.Match(q, ""); err != nil {
		return segEnd{}
	}
	return segEnd{set, true}
}

// excludes reports that no name ending like name can match.
func (e *segEnd) excludes(name string) bool {
	return e.known && (name == "" || !e.set.Has(name[len(name)-1]))
}
