package dlp

// Personal data written as prose: where someone lives and what their
// health is. Neither has a checksum, so both are recognised by their
// shape and by what stands around them, never by a bare street name or
// a medical word alone:
//
//   - a street address is a house number, one to four name words and a
//     street suffix ("42 Elm Street", "221B Baker St."), reported only
//     when a residence cue stands before it ("lives at", "home address",
//     "resides at", ...) or a locality follows it (", Springfield, IL
//     62704", ", London NW1 6XE");
//   - a health condition is a phrase that says a person has, is treated
//     for or is on leave for one ("diagnosed with", "suffers from",
//     "undergoing chemotherapy", "on medical leave"): the health marker
//     phrases below.
//
// Both are Sensitive: into memory they need review; read, they raise the
// session's class as other personal data does.

// streetSuffixes are the street-type words that end a street name
// (lowercase, without a trailing dot).
var streetSuffixes = map[string]bool{
	"street": true, "st": true, "avenue": true, "ave": true, "av": true, "road": true, "rd": true,
	"boulevard": true, "blvd": true, "lane": true, "ln": true, "drive": true, "dr": true,
	"court": true, "ct": true, "place": true, "pl": true, "terrace": true, "circle": true,
	"parkway": true, "pkwy": true, "highway": true, "hwy": true, "way": true, "square": true,
	"crescent": true, "close": true, "gardens": true, "grove": true, "mews": true, "row": true,
}

// streetAt parses "NUMBER Name… Suffix" at j: a house number of one to
// five digits (with an optional letter or "-NUMBER"), then one to four
// capitalised or ordinal words, the last of them a street suffix. It
// returns the end of the suffix (after its dot, if any).
func streetAt(s string, j int) (int, bool) {
	k := j
	for k < len(s) && k-j < 6 && isDigit(s[k]) {
		k++
	}
	if k == j || k-j > 5 || k < len(s) && isDigit(s[k]) {
		return 0, false
	}
	if k < len(s) && isUpper(s[k]) && (k+1 == len(s) || s[k+1] == ' ') {
		k++ // 221B
	}
	names := 0
	for w := 0; w < 5; w++ {
		if k >= len(s) || s[k] != ' ' {
			return 0, false
		}
		k++
		e := k
		for e < len(s) && isAlnum(s[e]) {
			e++
		}
		word := s[k:e]
		if word == "" {
			return 0, false
		}
		if names > 0 && streetSuffixes[lowerASCII(word)] {
			if e < len(s) && s[e] == '.' {
				e++
			}
			return e, true
		}
		if !isUpper(word[0]) && !ordinal(word) {
			return 0, false
		}
		names++
		k = e
	}
	return 0, false
}

// ordinal reports whether w is "1st", "22nd", "3rd", "5th" and the like.
func ordinal(w string) bool {
	d := 0
	for d < len(w) && isDigit(w[d]) {
		d++
	}
	if d == 0 || d > 3 || len(w)-d != 2 {
		return false
	}
	switch lowerASCII(w[d:]) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// localityAfter reports where a locality that follows a street ends: an
// optional unit (", Apt 4B"), then ", City" with one to three capitalised
// words and a postal code: a US state and ZIP ("IL 62704", "62704-1234"),
// or a UK postcode ("NW1 6XE").
func localityAfter(s string, j int) (int, bool) {
	k := j
	if has(s, k, ", ") {
		for _, unit := range [...]string{"apt ", "apartment ", "suite ", "unit ", "flat ", "#"} {
			if hasFold(s, k+2, unit) {
				e := k + 2 + len(unit)
				for e < len(s) && isAlnum(s[e]) {
					e++
				}
				k = e
				break
			}
		}
	}
	if !has(s, k, ", ") {
		return 0, false
	}
	k += 2
	words := 0
	for words < 3 && k < len(s) && isUpper(s[k]) {
		e := k + 1
		for e < len(s) && isLower(s[e]) {
			e++
		}
		if e-k < 2 {
			break
		}
		words++
		k = e
		if k < len(s) && s[k] == ' ' && k+1 < len(s) && isUpper(s[k+1]) && k+2 < len(s) && isLower(s[k+2]) {
			k++
			continue
		}
		break
	}
	if words == 0 {
		return 0, false
	}
	if has(s, k, ",") {
		k++
	}
	if k < len(s) && s[k] == ' ' {
		k++
	}
	// US: optional two-letter state, then a ZIP.
	p := k
	if p+2 < len(s) && isUpper(s[p]) && isUpper(s[p+1]) && s[p+2] == ' ' {
		p += 3
	}
	if e, ok := zipAt(s, p); ok {
		return e, true
	}
	if e, ok := ukPostcodeAt(s, k); ok {
		return e, true
	}
	return 0, false
}

// zipAt: five digits, optionally "-" and four more, ending a word.
func zipAt(s string, j int) (int, bool) {
	e := j
	for e < len(s) && isDigit(s[e]) {
		e++
	}
	if e-j != 5 {
		return 0, false
	}
	if e+5 <= len(s) && s[e] == '-' && isDigit(s[e+1]) && isDigit(s[e+2]) && isDigit(s[e+3]) && isDigit(s[e+4]) {
		e += 5
	}
	return e, wordEnd(s, e)
}

// ukPostcodeAt: an outward code (letter, letter or digit, up to two more
// letters or digits), a space, an inward code (digit, two letters).
func ukPostcodeAt(s string, j int) (int, bool) {
	e := j
	for e < len(s) && e-j < 4 && (isUpper(s[e]) || isDigit(s[e])) {
		e++
	}
	if e-j < 2 || !isUpper(s[j]) || e+4 > len(s) || s[e] != ' ' {
		return 0, false
	}
	in := s[e+1 : e+4]
	if !isDigit(in[0]) || !isUpper(in[1]) || !isUpper(in[2]) || !wordEnd(s, e+4) {
		return 0, false
	}
	digit := false
	for _, c := range []byte(s[j:e]) {
		digit = digit || isDigit(c)
	}
	return e + 4, digit
}

// matchStreetNumber: a house number whose street is followed by a
// locality ("42 Elm Street, Springfield, IL 62704").
func matchStreetNumber(sc *scan, i int) int {
	end, ok := streetAt(sc.s, i)
	if !ok {
		return 0
	}
	if e, ok := localityAfter(sc.s, end); ok {
		sc.add(idStreetAddress, i, e)
		return e
	}
	return 0
}

// matchResidenceCue: a residence cue ("lives at", "home address:") then,
// within a few bytes, a street address; the locality is not needed.
func matchResidenceCue(sc *scan, i int) int {
	s := sc.s
	k := i + 1
	for k < len(s) && k-i < 48 && !(isDigit(s[k]) && !isWord(s[k-1])) {
		if s[k] == '\n' {
			return 0
		}
		k++
	}
	if k >= len(s) || !isDigit(s[k]) {
		return 0
	}
	end, ok := streetAt(s, k)
	if !ok {
		return 0
	}
	if e, ok := localityAfter(s, end); ok {
		end = e
	}
	sc.add(idStreetAddress, k, end)
	return end
}

// residenceCues start matchResidenceCue (word start, case-insensitive).
var residenceCues = [...]string{
	"lives at ", "living at ", "lives on ", "resides at ", "residing at ", "home address",
	"residential address", "mailing address", "postal address", "her address", "his address",
	"their address", "moved to ", "house at ", "apartment at ", "flat at ",
}

// healthPhrases say that a person has, is treated for or is away for a
// health condition (health marker phrases, word start, case-insensitive).
var healthPhrases = [...]string{
	"diagnosed with", "diagnosis of", "suffers from", "suffering from",
	"undergoing chemotherapy", "undergoing treatment", "chemotherapy", "radiotherapy",
	"out for chemo", "on chemo", "having chemo", "starting chemo",
	"hiv positive", "hiv-positive", "tested positive for", "is pregnant", "miscarriage",
	"medical condition", "health condition", "mental health", "psychiatric",
	"on medical leave", "medical leave", "sick leave", "in rehab", "was prescribed",
	"is prescribed", "on antidepressants", "takes antidepressants", "in therapy for",
}
