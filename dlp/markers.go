package dlp

import "strings"

// Markings and clinical-document phrases. A marking is a phrase people
// put on material to classify it; it must stand as a word (not inside an
// identifier) and, for the bare upper-case word, not be code (an enum
// constant, a string compared in code).

// marker is one literal marking.
type marker struct {
	lit  string // lowercase when fold
	fold bool
	id   scannerID
	code bool // reject code contexts (bare upper-case words)
}

// markers is the marking table; the dispatch table registers each
// literal as a word-start trigger.
var markers = [...]marker{
	{lit: "TOP SECRET", id: idSecretMarker},
	{lit: "SECRET//", id: idSecretMarker},
	{lit: "TLP:RED", id: idSecretMarker},
	{lit: "TLP: RED", id: idSecretMarker},

	{lit: "CONFIDENTIAL", id: idConfidentialMarker, code: true},
	{lit: "INTERNAL USE ONLY", id: idConfidentialMarker},
	{lit: "Internal Use Only", id: idConfidentialMarker},
	{lit: "INTERNAL ONLY", id: idConfidentialMarker},
	{lit: "company confidential", fold: true, id: idConfidentialMarker},
	{lit: "strictly confidential", fold: true, id: idConfidentialMarker},
	{lit: "highly confidential", fold: true, id: idConfidentialMarker},
	{lit: "confidential and proprietary", fold: true, id: idConfidentialMarker},
	{lit: "proprietary and confidential", fold: true, id: idConfidentialMarker},
	{lit: "privileged and confidential", fold: true, id: idConfidentialMarker},
	{lit: "privileged & confidential", fold: true, id: idConfidentialMarker},
	{lit: "attorney-client privileged", fold: true, id: idConfidentialMarker},
	{lit: "do not distribute", fold: true, id: idConfidentialMarker},
	{lit: "do not forward", fold: true, id: idConfidentialMarker},
	{lit: "not for distribution", fold: true, id: idConfidentialMarker},
	{lit: "not for external distribution", fold: true, id: idConfidentialMarker},
	{lit: "under nda", fold: true, id: idConfidentialMarker},
	{lit: "tlp:amber", fold: true, id: idConfidentialMarker},
	{lit: "tlp: amber", fold: true, id: idConfidentialMarker},
	{lit: "tlp:green", fold: true, id: idConfidentialMarker},
	{lit: "tlp: green", fold: true, id: idConfidentialMarker},

	{lit: "tlp:clear", fold: true, id: idPublicMarker},
	{lit: "tlp: clear", fold: true, id: idPublicMarker},
	{lit: "tlp:white", fold: true, id: idPublicMarker},
	{lit: "tlp: white", fold: true, id: idPublicMarker},
	{lit: "approved for public release", fold: true, id: idPublicMarker},

	{lit: "patient name", fold: true, id: idPHIMarker},
	{lit: "protected health information", fold: true, id: idPHIMarker},
	{lit: "chief complaint", fold: true, id: idPHIMarker},
	{lit: "discharge summary", fold: true, id: idPHIMarker},
	{lit: "history of present illness", fold: true, id: idPHIMarker},
	{lit: "diagnosis code", fold: true, id: idPHIMarker},
	{lit: "admitting diagnosis", fold: true, id: idPHIMarker},
	{lit: "attending physician", fold: true, id: idPHIMarker},
	{lit: "date of service", fold: true, id: idPHIMarker},
	{lit: "past medical history", fold: true, id: idPHIMarker},
}

// match is the matcher for m: the literal (checked by the dispatch) must
// end a word, and code contexts are refused where m says so.
func (m *marker) match(sc *scan, i int) int {
	end := i + len(m.lit)
	last := m.lit[len(m.lit)-1]
	if isWord(last) && !wordEnd(sc.s, end) {
		return 0
	}
	if m.code && codeContext(sc.s, i, end) {
		return 0
	}
	sc.add(m.id, i, end)
	return 0
}

// codeContext reports whether the word s[i:end] is used as code: a
// member, a string literal, an argument or a constant being defined or
// compared ("Level.CONFIDENTIAL", `"CONFIDENTIAL"`, "CONFIDENTIAL = 3",
// "case CONFIDENTIAL:").
func codeContext(s string, i, end int) bool {
	p := i - 1
	for p >= 0 && s[p] == ' ' {
		p--
	}
	if p >= 0 && strings.IndexByte(".\"'`(,=|&!", s[p]) >= 0 {
		return true
	}
	if p >= 3 && s[p-3:p+1] == "case" {
		return true
	}
	n := end
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n < len(s) && strings.IndexByte("=\"'`,);}|&", s[n]) >= 0
}

// classValues maps the value of a classification label to a marking.
var classValues = [...]struct {
	word string
	id   scannerID
}{
	{"top secret", idSecretMarker}, {"secret", idSecretMarker}, {"restricted", idSecretMarker},
	{"strictly confidential", idConfidentialMarker}, {"highly confidential", idConfidentialMarker},
	{"confidential", idConfidentialMarker}, {"internal", idConfidentialMarker},
	{"sensitive", idConfidentialMarker}, {"private", idConfidentialMarker},
	{"public", idPublicMarker}, {"unclassified", idPublicMarker},
}

// matchClassification: "Classification: Confidential" and the like.
func matchClassification(sc *scan, start, _ int) {
	for _, v := range classValues {
		end := start + len(v.word)
		if hasFold(sc.s, start, v.word) && wordEnd(sc.s, end) {
			sc.add(v.id, start, end)
			return
		}
	}
}
