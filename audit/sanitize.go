package audit

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Redactor removes secret values from free text before it is hashed and
// written. The dlp package provides one; RedactFunc adapts a function.
type Redactor interface {
	Redact(s string) string
}

// RedactFunc is a function used as a Redactor.
type RedactFunc func(string) string

// Redact calls f.
func (f RedactFunc) Redact(s string) string { return f(s) }

// Bounds on entry fields, so that no line nears MaxLine. Free text beyond
// its bound is cut at a rune boundary and marked with a trailing "…".
const (
	maxIdent   = 128  // rule, stage, action type, code, ref, each label
	maxSession = 256  // session id
	maxReason  = 2048 // reason
	maxMessage = 4096 // detail message
	maxPath    = 4096 // detail path
	maxTarget  = 512  // detail target
	maxLabels  = 32   // number of labels
)

// prepare turns an event into the fields of an entry: free text made valid
// UTF-8, redacted, then bounded; identifiers checked. A Redactor that
// panics fails the append.
func prepare(ev *Event, r Redactor) (e Entry, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("redact %s event: redactor panicked", ev.Type)
		}
	}()
	e = Entry{
		Version: Version, Type: ev.Type, Session: ev.Session,
		ActionType: ev.ActionType, ActionHash: ev.ActionHash, Decision: ev.Decision,
		Stage: ev.Stage, Tier: ev.Tier, Rule: ev.Rule,
		Reason: clean(ev.Reason, r, maxReason),
		Detail: ev.Detail,
	}
	e.Detail.Labels = append([]string(nil), ev.Detail.Labels...)
	e.Detail.Message = clean(ev.Detail.Message, r, maxMessage)
	e.Detail.Path = clean(ev.Detail.Path, r, maxPath)
	e.Detail.Target = clean(ev.Detail.Target, r, maxTarget)
	if err := checkFields(&e); err != nil {
		return Entry{}, fmt.Errorf("%s event: %w", ev.Type, err)
	}
	return e, nil
}

// clean makes s valid UTF-8, redacts it and bounds it.
func clean(s string, r Redactor, n int) string {
	if s == "" {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r != nil {
		s = strings.ToValidUTF8(r.Redact(s), "\uFFFD")
	}
	return truncate(s, n)
}

// truncate cuts s to at most n bytes at a rune boundary, ending in "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	cut := n - len(ell)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}

// checkFields validates what both Append and the reader require.
func checkFields(e *Entry) error {
	if !e.Type.Known() {
		return fmt.Errorf("unknown event type %q", e.Type)
	}
	switch e.Decision {
	case "", "ALLOW", "ESCALATE", "BLOCK":
	default:
		return fmt.Errorf("decision %q: want ALLOW, ESCALATE, BLOCK or empty", e.Decision)
	}
	if e.Tier < 0 || e.Tier > 3 {
		return fmt.Errorf("tier %d: want 0 to 3", e.Tier)
	}
	if e.ActionHash != "" && !validHash(e.ActionHash) {
		return errors.New("action_hash: want sha256:<64 lower-case hex>")
	}
	if !validText(e.Session, maxSession) || hasControl(e.Session) {
		return fmt.Errorf("session: want at most %d bytes of UTF-8 without control characters", maxSession)
	}
	if !validText(e.Reason, maxReason) || !validText(e.Detail.Message, maxMessage) || !validText(e.Detail.Path, maxPath) ||
		!validText(e.Detail.Target, maxTarget) {
		return errors.New("reason, message, path or target: too long or not UTF-8")
	}
	return checkIdents(e)
}

// checkIdents validates the identifier fields.
func checkIdents(e *Entry) error {
	for _, f := range []struct{ name, v string }{
		{"action", e.ActionType}, {"stage", e.Stage}, {"rule", e.Rule},
		{"detail.code", e.Detail.Code}, {"detail.ref", e.Detail.Ref},
	} {
		if !isIdent(f.v) {
			return fmt.Errorf("%s: want at most %d of [A-Za-z0-9._:/@+=-]", f.name, maxIdent)
		}
	}
	if len(e.Detail.Labels) > maxLabels {
		return fmt.Errorf("detail.labels: %d labels, want at most %d", len(e.Detail.Labels), maxLabels)
	}
	for _, l := range e.Detail.Labels {
		if l == "" || !isIdent(l) {
			return fmt.Errorf("detail.labels: want non-empty [A-Za-z0-9._:/@+=-], at most %d bytes", maxIdent)
		}
	}
	return nil
}

// isIdent reports whether s is at most maxIdent bytes of the identifier set.
func isIdent(s string) bool {
	if len(s) > maxIdent {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("._:/@+=-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// hasControl reports whether s holds a C0, DEL or C1 control character.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return true
		}
	}
	return false
}

// checkTime bounds entry times to years RFC 3339 spells in four digits.
func checkTime(t time.Time) error {
	if y := t.Year(); y < 1970 || y > 9999 {
		return fmt.Errorf("time year %d: want 1970 to 9999", y)
	}
	return nil
}
