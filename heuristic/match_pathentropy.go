package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// Data carried out in URL paths (T1048, T1132): a random-looking path
// segment of base64 or base64url characters sent to a host that serves
// nothing under such names. url_path_entropy (ESCALATE) reads each path
// segment of every URL an action requests: 32 or more characters of the
// base64url alphabet, with capitals, small letters and digits, and at
// least minPathEntropy bits per character. What it leaves alone, measured
// on look-alikes (TestPathEntropyLookalikes): content hashes and git ids
// (hex, one case), UUIDs, words and slugs (low entropy), query strings
// (tracking and session ids live there), and the hosts that name content
// by random ids (idPathDomains, the CDN and storage domains).

const (
	minPathSegment = 32
	maxPathSegment = 512
	minPathEntropy = 4.2
)

// idPathDomains name documents, media and objects by random ids in
// their paths.
var idPathDomains = map[string]bool{
	"google.com": true, "youtube.com": true, "youtu.be": true, "dropbox.com": true, "github.com": true,
	"gitlab.com": true, "figma.com": true, "notion.so": true, "imgur.com": true, "discord.com": true,
	"discordapp.com": true, "discordapp.net": true, "slack.com": true, "zoom.us": true, "sharepoint.com": true,
	"box.com": true, "atlassian.net": true, "docker.io": true, "npmjs.org": true, "pypi.org": true,
	"pythonhosted.org": true, "golang.org": true, "go.dev": true, "stripe.com": true, "twitter.com": true,
	"x.com": true, "medium.com": true, "reddit.com": true, "imgix.net": true, "unsplash.com": true,
}

func matchPathEntropy(in *Input) (string, bool) {
	var hit string
	found := eachURL(in, func(u string) bool {
		h := strings.ToLower(registrable(rawHost(u)))
		if h == "" || hashHostDomains[h] || idPathDomains[h] {
			return false
		}
		hit = h
		return eachPathSegment(u, randomSegment)
	})
	if !found {
		return "", false
	}
	return "a long random path segment in a URL to " + hit, true
}

// eachURL calls f with every URL an action requests, until f says so.
func eachURL(in *Input, f func(u string) bool) bool {
	if in.Effects != nil {
		for i := range in.Effects.Network {
			if u := in.Effects.Network[i].URL; u != "" && f(u) {
				return true
			}
		}
	}
	if u, ok := action.URLOf(in.Action); ok && f(u) {
		return true
	}
	return false
}

// eachPathSegment calls f with the segments of u's path.
func eachPathSegment(u string, f func(seg string) bool) bool {
	i := strings.Index(u, "://")
	if i < 0 {
		return false
	}
	p := u[i+3:]
	j := strings.IndexByte(p, '/')
	if j < 0 {
		return false
	}
	p = p[j+1:]
	if k := strings.IndexAny(p, "?#"); k >= 0 {
		p = p[:k]
	}
	for p != "" {
		seg, rest, _ := strings.Cut(p, "/")
		if f(seg) {
			return true
		}
		p = rest
	}
	return false
}

// randomSegment reports a segment that looks like encoded random data.
func randomSegment(seg string) bool {
	if len(seg) < minPathSegment || len(seg) > maxPathSegment || isUUID(seg) {
		return false
	}
	var upper, lower, digit bool
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case isDigit(c):
			digit = true
		case c == '-' || c == '_' || c == '=' || c == '+' || c == '~':
		default:
			return false
		}
	}
	return upper && lower && digit && labelEntropy(seg) >= minPathEntropy
}
