package policy

import (
	"net/url"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// NewInput builds the tier 0 input the way the gate does: the payload's
// paths (normalised beforehand with action.Normalize), the shell-effect
// paths, and every host reached by a payload URL or a network
// destination of the command. eff may be nil.
func NewInput(a *action.Action, eff *shell.Effects) *Input {
	in := &Input{Action: a, Effects: eff}
	if a == nil || a.Payload == nil {
		return in
	}
	for _, pf := range a.Payload.PathFields() {
		in.Paths = append(in.Paths, PathRef{Path: *pf.Path, Access: pf.Access})
	}
	if u, ok := urlOf(a); ok {
		in.Hosts = append(in.Hosts, HostOf(u))
	}
	if eff != nil {
		for _, pu := range eff.Paths {
			in.Paths = append(in.Paths, PathRef{Path: pu.Path, Access: pu.Access, Glob: pu.Glob, Creates: pu.Creates})
		}
		for _, nd := range eff.Network {
			h := nd.Host
			if h == "" && nd.URL != "" {
				h = HostOf(nd.URL)
			}
			in.Hosts = append(in.Hosts, normHost(h))
		}
	}
	return in
}

// urlOf returns the URL an action talks to, if its type has one.
func urlOf(a *action.Action) (string, bool) { return action.URLOf(a) }

// HostOf extracts the lowercase host from a URL or an scp-style git
// address ("git@github.com:org/repo"). It returns "" when no host can be
// told, which rules treat as "could be any host".
func HostOf(raw string) string {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		// scp-like: [user@]host:path
		if i := strings.IndexByte(raw, ':'); i > 0 && !strings.ContainsAny(raw[:i], "/\\") {
			h := raw[:i]
			if j := strings.LastIndexByte(h, '@'); j >= 0 {
				h = h[j+1:]
			}
			return normHost(h)
		}
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return normHost(u.Hostname())
}
