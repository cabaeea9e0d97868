package heuristic

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/parallax/parallax/action"
)

// Data carried out in hostnames (MITRE ATT&CK T1071.004, T1048.003): each
// lookup of <data>.attacker.example delivers <data> to the attacker's
// name server, whatever the request that follows. Three rules read the
// labels left of the registrable domain of every host an action talks to
// (none for the CDN and storage domains, .arpa names and IP addresses):
//
//   - dns_label_data (BLOCK): a label of 20 or more characters, or all
//     the labels joined (data chunked across labels too short to judge
//     alone), decodes (hex, base32 or base64) to readable text. Nobody
//     names a host after text encoded this way; an encoder did.
//   - dns_label_entropy (ESCALATE): a label of 32 or more characters of
//     high entropy that decodes to nothing readable, or the labels joined
//     when they are not hyphenated names and reach 4 bits per character.
//     Hash-named hosts exist (preview deployments, tunnels, CDNs), so a
//     reviewer decides; UUIDs are left alone.
//   - dns_label_chain (ESCALATE): a long chain of labels (see
//     minChainLabels), whatever they hold.
//
// Labels are at most 63 bytes and names 253 (RFC 1035); the work per host
// is bounded by that and by maxLabelsChecked.

const (
	minJoinedEntropy = 4.0 // labels joined: random data, not names
	minDataLabel     = 20
	minEntropyLabel  = 32
	maxLabelsChecked = 8
)

// hashHostDomains serve content under hash-named hosts or buckets.
var hashHostDomains = map[string]bool{
	"amazonaws.com": true, "cloudfront.net": true, "azureedge.net": true, "windows.net": true,
	"googleusercontent.com": true, "googleapis.com": true, "gstatic.com": true, "akamaized.net": true,
	"akamaihd.net": true, "fastly.net": true, "fastlylb.net": true, "r2.dev": true,
	"vercel.app": true, "netlify.app": true, "herokuapp.com": true, "github.io": true,
	"githubusercontent.com": true, "cloudflarestorage.com": true,
}

// eachHost calls f with every host an action talks to, with its case as
// written when a URL gives it (base64 is case-sensitive), until f says so.
func eachHost(in *Input, f func(host string) bool) bool {
	if in.Effects != nil {
		for i := range in.Effects.Network {
			n := &in.Effects.Network[i]
			h := rawHost(n.URL)
			if h == "" {
				h = n.Host
			}
			if h != "" && f(h) {
				return true
			}
		}
	}
	if u, ok := action.URLOf(in.Action); ok {
		if h := rawHost(u); h != "" && f(h) {
			return true
		}
	}
	return false
}

// rawHost is the host of a URL without changing its case.
func rawHost(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	u = u[i+3:]
	if j := strings.IndexAny(u, "/?#\\"); j >= 0 {
		u = u[:j]
	}
	if j := strings.LastIndexByte(u, '@'); j >= 0 {
		u = u[j+1:]
	}
	if j := strings.LastIndexByte(u, ':'); j >= 0 {
		u = u[:j]
	}
	return u
}

// subdomain returns what is left of the registrable domain of host
// (labels joined by dots), nothing for the hash-host domains, reverse
// lookup names (.arpa: an address spelled out) and IPv4 addresses.
func subdomain(host string) string {
	host = strings.TrimSuffix(host, ".")
	reg := registrable(host)
	low := strings.ToLower(reg)
	if len(reg) >= len(host) || hashHostDomains[low] || strings.HasSuffix(low, ".arpa") || isDigits(reg[strings.LastIndexByte(reg, '.')+1:]) {
		return ""
	}
	return host[:len(host)-len(reg)-1]
}

// eachDataLabel calls f with the labels left of the registrable domain
// of host (at most maxLabelsChecked), then, when there are several and
// they hold at least minDataLabel bytes, with all of them joined: data
// chunked across labels (each one too short to judge) is judged whole.
// It allocates only for that joined form.
func eachDataLabel(host string, f func(label string, joined bool) bool) bool {
	rest := subdomain(host)
	if rest == "" {
		return false
	}
	n := strings.Count(rest, ".") + 1
	for k, r := 0, rest; k < maxLabelsChecked && r != ""; k++ {
		l, tail, _ := strings.Cut(r, ".")
		if f(l, false) {
			return true
		}
		r = tail
	}
	return n > 1 && len(rest)-(n-1) >= minDataLabel && f(strings.ReplaceAll(rest, ".", ""), true)
}

func matchDNSLabelData(in *Input) (string, bool) {
	var hit string
	found := eachHost(in, func(h string) bool {
		hit = h
		return eachDataLabel(h, func(l string, _ bool) bool { return len(l) >= minDataLabel && labelDecodes(l) })
	})
	if !found {
		return "", false
	}
	return "a hostname label under " + strings.ToLower(registrable(hit)) + " decodes to text", true
}

func matchDNSLabelEntropy(in *Input) (string, bool) {
	var hit string
	found := eachHost(in, func(h string) bool {
		hit = h
		return eachDataLabel(h, func(l string, joined bool) bool {
			if joined && (strings.IndexByte(l, '-') >= 0 || labelEntropy(strings.ToLower(l)) < minJoinedEntropy) {
				return false // hyphenated names joined are words, not a chunked value
			}
			return len(l) >= minEntropyLabel && !isUUID(l) && mixedAlnum(l) && labelEntropy(strings.ToLower(l)) >= 3.3
		})
	})
	if !found {
		return "", false
	}
	return "a long high-entropy hostname label under " + strings.ToLower(registrable(hit)), true
}

// Long label chains (dns_label_chain, ESCALATE): many labels, or many
// bytes, left of the registrable domain. Measured on look-alikes
// (TestDNSChainLookalikes): internal service names reach 5 labels and
// about 60 bytes ("api.v1.prod.us-east-1.k8s.corp.example.com" has 6
// labels in 29 bytes); a tunnel that spreads data over labels needs
// more of both.
const (
	minChainLabels = 6   // with at least minChainBytes
	minChainBytes  = 30  // bytes of the labels, dots excluded
	maxChainBytes  = 100 // more bytes than this, however many labels
)

func matchDNSLabelChain(in *Input) (string, bool) {
	var hit string
	var n, size int
	found := eachHost(in, func(h string) bool {
		hit = h
		rest := subdomain(h)
		n, size = 0, 0
		if rest != "" {
			n = strings.Count(rest, ".") + 1
			size = len(rest) - (n - 1)
		}
		return n >= minChainLabels && size >= minChainBytes || size > maxChainBytes
	})
	if !found {
		return "", false
	}
	return fmt.Sprintf("%d hostname labels (%d bytes) under %s", n, size, strings.ToLower(registrable(hit))), true
}

// labelDecodes reports whether l is hex, base32 or base64 of readable text.
func labelDecodes(l string) bool {
	var cands [][]byte
	if b, err := hex.DecodeString(l); err == nil {
		cands = append(cands, b)
	}
	if b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(l)); err == nil {
		cands = append(cands, b)
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(l); err == nil {
			cands = append(cands, b)
		}
	}
	for _, b := range cands {
		if len(b) >= 10 && readable(b) {
			return true
		}
	}
	return false
}

// readable reports whether b is printable ASCII (whitespace allowed),
// with at most one byte in twenty outside it.
func readable(b []byte) bool {
	bad := 0
	for _, c := range b {
		if c < ' ' && c != '\n' && c != '\r' && c != '\t' || c >= 0x7f {
			bad++
		}
	}
	return bad*20 <= len(b)
}

// isUUID reports the 8-4-4-4-12 hex form.
func isUUID(l string) bool {
	if len(l) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := l[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdefABCDEF", rune(c)) {
			return false
		}
	}
	return true
}

// labelEntropy is the Shannon entropy of l in bits per byte.
func labelEntropy(l string) float64 {
	var n [256]int
	for i := 0; i < len(l); i++ {
		n[l[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(l))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// isDigits reports a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
