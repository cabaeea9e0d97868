package dlp

import "sort"

// The engine makes one pass over the text. A 256-entry table keyed by
// byte says which triggers can start at a position; most bytes have
// none, and most triggers need a word start, so the common case is one
// table load per byte. A trigger that fires calls its matcher, which
// validates the candidate (lengths, charsets, checksums, context) with
// bounded look-around and records hits.

// hit is a match before it becomes a Finding.
type hit struct {
	id         scannerID
	start, end int
}

// scan is the state of one pass.
type scan struct {
	s      string
	hits   []hit
	nested bool      // a rescan of decoded text: no further decoding
	disp   *dispatch // the table the pass runs, for rescans
}

func (sc *scan) add(id scannerID, start, end int) {
	sc.hits = append(sc.hits, hit{id, start, end})
}

// matcher validates a candidate whose trigger starts at i. It returns the
// position the pass resumes at, or 0 to resume at i+1.
type matcher func(sc *scan, i int) int

// trigger is a literal that starts candidates.
type trigger struct {
	lit  string // matched at the position; lowercase when fold
	fold bool   // ASCII case-insensitive
	word bool   // only at a word start (previous byte not [A-Za-z0-9_])
	fn   matcher
}

// armed is a trigger in the dispatch table, with its second byte ready
// for a one-compare pre-check.
type armed struct {
	trigger
	second byte // lit[1] (0: one-byte literal)
}

// triggers is the static trigger table. Digits and capital letters get
// their triggers in buildDispatch (one per byte value), markers from the
// marker table.
var triggers = [...]trigger{
	{lit: "-----BEGIN ", fn: matchPrivateKey},
	{lit: "AKIA", word: true, fn: matchAWSKeyID},
	{lit: "ASIA", word: true, fn: matchAWSKeyID},
	{lit: "ABIA", word: true, fn: matchAWSKeyID},
	{lit: "ACCA", word: true, fn: matchAWSKeyID},
	{lit: "AIza", word: true, fn: matchGCPAPIKey},
	{lit: "GOCSPX-", word: true, fn: matchGCPOAuthSecret},
	{lit: "Q~", fn: matchAzureClientSecret},
	{lit: "gh", word: true, fn: matchGitHub},
	{lit: "github_pat_", word: true, fn: matchGitHubPAT},
	{lit: "gl", word: true, fn: matchGitLab},
	{lit: "xox", word: true, fn: matchSlackToken},
	{lit: "xapp-", word: true, fn: matchSlackToken},
	{lit: "hooks.slack.com/", fn: matchSlackWebhook},
	{lit: "sk_live_", word: true, fn: matchStripe},
	{lit: "rk_live_", word: true, fn: matchStripe},
	{lit: "whsec_", word: true, fn: matchStripe},
	{lit: "sk-", word: true, fn: matchSKDash},
	{lit: "npm_", word: true, fn: matchNPM},
	{lit: "pypi-AgE", word: true, fn: matchPyPI},
	{lit: "SG.", word: true, fn: matchSendGrid},
	{lit: "eyJ", word: true, fn: matchJWT},
	{lit: "basic ", fold: true, word: true, fn: matchBasicAuth},
	{lit: "bearer ", fold: true, word: true, fn: matchBearer},
	{lit: "://", fn: matchURLCredentials},
	{lit: "://", fn: matchEncodedURL},
	{lit: "=", fn: matchAssignment},
	{lit: ":", fn: matchAssignment},
	{lit: "@", fn: matchEmail},
	{lit: "+", fn: matchIntlPhone},
	{lit: "(", fn: matchParenPhone},
	{lit: "born ", fold: true, word: true, fn: matchBorn},
	{lit: "dob ", fold: true, word: true, fn: matchDOBWord},
	{lit: "5", word: true, fn: matchWIF},
	{lit: "K", word: true, fn: matchWIF},
	{lit: "L", word: true, fn: matchWIF},
	{lit: "0x", word: true, fn: matchEthKey},
	{lit: "0x", word: true, fn: matchEthAddress},
	{lit: "1", word: true, fn: matchBase58Address},
	{lit: "3", word: true, fn: matchBase58Address},
	{lit: "bc1", fold: true, word: true, fn: matchBech32Address},
}

// dispatch holds the triggers by first byte, split by whether they need
// a word start; hot says which bytes have any (bit 1: anywhere, bit 2: at
// a word start), so most bytes cost one load.
type dispatch struct {
	hot  [256]uint8
	any  [256][]armed
	word [256][]armed
}

var defaultDispatch = buildDispatch(triggers[:])

func buildDispatch(ts []trigger) *dispatch {
	d := &dispatch{}
	addTrigger := func(t trigger) {
		firsts := []byte{t.lit[0]}
		if t.fold && isLower(t.lit[0]) {
			firsts = append(firsts, t.lit[0]-'a'+'A')
		}
		a := armed{trigger: t}
		if len(t.lit) > 1 {
			a.second = t.lit[1]
		}
		for _, c := range firsts {
			if t.word {
				d.word[c] = append(d.word[c], a)
				d.hot[c] |= 2
			} else {
				d.any[c] = append(d.any[c], a)
				d.hot[c] |= 1
			}
		}
	}
	for _, t := range ts {
		addTrigger(t)
	}
	for c := byte('0'); c <= '9'; c++ {
		addTrigger(trigger{lit: string(c), word: true, fn: matchDigits})
	}
	for c := byte('A'); c <= 'Z'; c++ {
		addTrigger(trigger{lit: string(c), word: true, fn: matchUpperID})
	}
	for c := byte('1'); c <= '9'; c++ {
		addTrigger(trigger{lit: string(c), word: true, fn: matchStreetNumber})
	}
	for _, cue := range residenceCues {
		addTrigger(trigger{lit: cue, fold: true, word: true, fn: matchResidenceCue})
	}
	for _, p := range healthPhrases {
		m := &marker{lit: p, fold: true, id: idHealthInfo}
		addTrigger(trigger{lit: p, fold: true, word: true, fn: m.match})
	}
	for k := range markers {
		m := &markers[k]
		addTrigger(trigger{lit: m.lit, fold: m.fold, word: true, fn: m.match})
	}
	return d
}

// run makes the pass and returns the raw hits.
func (d *dispatch) run(s string) []hit {
	sc := scan{s: s}
	return d.runScan(&sc)
}

// runScan makes the pass over sc.s and returns the raw hits.
func (d *dispatch) runScan(sc *scan) []hit {
	s := sc.s
	sc.disp = d
	for i := 0; i < len(s); i++ {
		h := d.hot[s[i]]
		if h == 0 {
			continue
		}
		next := 0
		if h&1 != 0 {
			next = fire(sc, d.any[s[i]], i)
		}
		if h&2 != 0 && (i == 0 || !isWord(s[i-1])) {
			next = max(next, fire(sc, d.word[s[i]], i))
		}
		if next > i+1 {
			i = next - 1
		}
	}
	if len(s) >= minSeedText {
		scanSeedPhrases(sc)
	}
	if !sc.nested {
		scanZeroWidth(sc)
		if len(s) >= encTokenMin {
			scanEncodedTokens(sc)
		}
		if len(s) >= 2*minHexRunBytes {
			scanHexRuns(sc)
		}
	}
	return sc.hits
}

func fire(sc *scan, ts []armed, i int) int {
	next := 0
	var c1 byte
	if i+1 < len(sc.s) {
		c1 = sc.s[i+1]
	}
	for k := range ts {
		t := &ts[k]
		if t.second != 0 {
			if c1 != t.second && (!t.fold || toLower(c1) != t.second) {
				continue
			}
			if t.fold {
				if !hasFold(sc.s, i, t.lit) {
					continue
				}
			} else if !has(sc.s, i, t.lit) {
				continue
			}
		}
		next = max(next, t.fn(sc, i))
	}
	return next
}

// resolve sorts hits and removes what another hit explains: duplicates
// and overlaps of one scanner merge into one span; anything inside a
// private key block is part of the key; a generic credential finding
// yields to a specific one on an overlapping span.
func resolve(hs []hit) []hit {
	if len(hs) < 2 {
		return hs
	}
	sort.Slice(hs, func(a, b int) bool {
		if hs[a].start != hs[b].start {
			return hs[a].start < hs[b].start
		}
		if hs[a].end != hs[b].end {
			return hs[a].end > hs[b].end
		}
		return hs[a].id < hs[b].id
	})
	hs = mergeSame(hs)
	out := hs[:0]
	keyEnd := -1
	for k, h := range hs {
		if h.id != idPrivateKey && h.end <= keyEnd {
			continue
		}
		if h.id == idPrivateKey {
			keyEnd = max(keyEnd, h.end)
		}
		if scanners[h.id].generic && overlapsSpecific(hs, k) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// mergeSame merges overlapping hits of the same scanner (sorted input).
func mergeSame(hs []hit) []hit {
	var open [numScanners]int // index+1 in out of the scanner's last hit
	out := hs[:0]
	for _, h := range hs {
		if j := open[h.id] - 1; j >= 0 && h.start < out[j].end {
			out[j].end = max(out[j].end, h.end)
			continue
		}
		out = append(out, h)
		open[h.id] = len(out)
	}
	return out
}

// overlapsSpecific reports whether a non-generic credential hit overlaps
// hs[k]. Hits are sorted by start; spans are short, so the look-around
// is bounded by the span lengths.
func overlapsSpecific(hs []hit, k int) bool {
	h := hs[k]
	specific := func(o hit) bool {
		sc := &scanners[o.id]
		return sc.Category == Credential && !sc.generic && o.start < h.end && h.start < o.end
	}
	for j := k - 1; j >= 0 && k-j <= 64; j-- {
		if specific(hs[j]) {
			return true
		}
	}
	for j := k + 1; j < len(hs) && hs[j].start < h.end; j++ {
		if specific(hs[j]) {
			return true
		}
	}
	return false
}
