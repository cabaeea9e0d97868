package guard

import (
	"maps"
	"slices"
)

// Unreadable lists the paths whose contents the guard refuses to read
// (Restricted and Sealed entries: keys, credentials, the sealed
// .parallax), spelled as this guard resolved them, sorted. It is what a
// kernel sandbox denies to an executed command, so that what the gate
// refuses to read is also what the kernel refuses. An entry that holds
// the workspace or the home is left out (the user's own home, /root, is
// listed part by part). File-name patterns (*.pem, .env) are not paths
// and stay the gate's job.
func (g *Guard) Unreadable() []string {
	c := g.current()
	if c.broken != "" {
		return nil
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(c.prefixes)) {
		e := c.prefixes[p]
		if e.level != Restricted && e.level != Sealed {
			continue
		}
		if within(c.home, p) || within(c.workspace, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}
