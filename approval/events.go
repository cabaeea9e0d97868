package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// Limits on what a caller or a channel hands the broker.
const (
	maxIdent   = 128
	maxSession = 256
	maxReason  = 2048
	maxUser    = 64
	maxPayload = 1 << 20
)

// checkAsk validates a caller's request: identifiers where the audit chain
// wants identifiers, a well-formed action hash, bounded text.
func checkAsk(a *Ask) error {
	if a.ActionType == "" || !isIdent(a.ActionType) {
		return fmt.Errorf("action type %q: want 1-%d of [A-Za-z0-9._:/@+=-]", a.ActionType, maxIdent)
	}
	if !isIdent(a.Rule) || !isIdent(a.Stage) {
		return fmt.Errorf("rule or stage of %s: want at most %d of [A-Za-z0-9._:/@+=-]", a.ActionType, maxIdent)
	}
	if !validHash(a.ActionHash) {
		return fmt.Errorf("action hash of %s: want sha256:<64 lower-case hex>", a.ActionType)
	}
	if len(a.Session) > maxSession || !utf8.ValidString(a.Session) || strings.ContainsFunc(a.Session, unicode.IsControl) {
		return fmt.Errorf("session of %s: want at most %d bytes of UTF-8 without control characters", a.ActionType, maxSession)
	}
	if len(a.Payload) > maxPayload {
		return fmt.Errorf("payload of %s: %d bytes, over %d", a.ActionType, len(a.Payload), maxPayload)
	}
	return nil
}

// isIdent reports whether s (possibly empty) is at most maxIdent bytes of
// [A-Za-z0-9._:/@+=-], the audit chain's identifier alphabet.
func isIdent(s string) bool {
	if len(s) > maxIdent {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:/@+=-", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

func validHash(h string) bool {
	hex, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// cleanUser checks who-answered text: printable, bounded.
func cleanUser(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxUser || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "", false
		}
	}
	return s, true
}

// display builds the copy of a request channels see: every text field
// redacted, the scope left out.
func (b *Broker) display(raw *Ask, offered *Pattern) Ask {
	d := b.dlp
	out := Ask{ID: raw.ID, Session: redactText(d, raw.Session), ActionType: redactText(d, raw.ActionType),
		ActionHash: raw.ActionHash, Payload: redactPayload(d, raw.Payload), Reason: redactText(d, raw.Reason),
		Rule: redactText(d, raw.Rule), Stage: redactText(d, raw.Stage), Created: raw.Created, Expires: raw.Expires}
	if len(out.Reason) > maxReason {
		out.Reason = out.Reason[:maxReason]
		out.Reason = strings.ToValidUTF8(out.Reason, "") + "…"
	}
	if raw.Session != "" {
		out.Grants = []GrantKind{GrantExact}
	}
	if offered != nil {
		p := Pattern{ActionType: offered.ActionType, Program: redactText(d, offered.Program),
			PathPrefix: redactText(d, offered.PathPrefix), Host: redactText(d, offered.Host)}
		out.Pattern = &p
		out.Grants = append(out.Grants, GrantPattern)
	}
	return out
}

// event fills what every approval event shares: the action, stage human,
// tier 3.
func event(t audit.EventType, a *Ask, decision, rule, reason string, d audit.Detail) audit.Event {
	return audit.Event{Type: t, Session: a.Session, ActionType: a.ActionType, ActionHash: a.ActionHash,
		Decision: decision, Stage: string(verdict.StageHuman), Tier: 3, Rule: rule, Reason: reason, Detail: d}
}

// requestedEvent records a request put to humans: the escalating rule and
// stage, the redacted reason, the channels and the window count.
func (b *Broker) requestedEvent(p *pending, n int, chans []Channel) audit.Event {
	names := make([]string, 0, len(chans))
	for _, c := range chans {
		names = append(names, c.Name())
	}
	e := event(audit.ApprovalRequested, &p.raw, "ESCALATE", p.raw.Rule, p.ask.Reason,
		audit.Detail{Ref: p.raw.ID, Labels: names, Count: int64(n)})
	e.Stage = p.raw.Stage
	return e
}

// eventType maps an outcome code to its audit event.
func eventType(code string) audit.EventType {
	switch code {
	case CodeAllowed, CodeGranted:
		return audit.ActionApproved
	case CodeTimeout:
		return audit.ApprovalTimeout
	case CodeRateLimited:
		return audit.RateLimitHit
	}
	return audit.ActionBlocked
}

// finalEvent records how a request ended.
func (b *Broker) finalEvent(p *pending, ans Answer, o outcome, g *Grant) audit.Event {
	d := audit.Detail{Ref: p.raw.ID, Count: int64(o.count)}
	if g != nil {
		d.Code = g.Kind.String()
		d.Message = g.describe()
	}
	b.mu.Lock()
	if len(p.failed) > 0 {
		d.Labels = append([]string(nil), p.failed...) // channels that could not show it
	}
	b.mu.Unlock()
	if o.code == CodeTimeout {
		d.DurationMS = b.timeout.Milliseconds()
	}
	dec := "BLOCK"
	if ans.Decision == Allow {
		dec = "ALLOW"
	}
	return event(eventType(ans.Code), &p.raw, dec, ans.Code, ans.Reason, d)
}

// grantEvent records an action a grant allowed without asking.
func (b *Broker) grantEvent(in *Ask, g *Grant, reason string) audit.Event {
	return event(audit.ActionApproved, in, "ALLOW", CodeGranted, reason,
		audit.Detail{Ref: g.ID, Code: g.Kind.String()})
}

// recordLate records an answer that came after the request ended. The
// closed event list has no type of its own for it: it is an
// ApprovalRequested entry (the exchange it belongs to) with no decision
// and the code approval_late_answer. A failure to record it changes
// nothing: the answer was ignored either way.
func (b *Broker) recordLate(p *pending, by string, r Response) {
	b.mu.Lock()
	o := p.out
	b.mu.Unlock()
	msg := fmt.Sprintf("late %s from %s ignored; the request had ended: %s", r.Decision, by, o.code)
	if o.by != "" {
		msg += " on " + o.by
	}
	e := event(audit.ApprovalRequested, &p.raw, "", CodeLateAnswer, "a late answer was ignored",
		audit.Detail{Ref: p.raw.ID, Code: CodeLateAnswer, Message: msg})
	_, _ = b.rec.Append(context.Background(), e)
}

// reason is the one-sentence reason of an outcome.
func (b *Broker) reason(p *pending, o outcome, g *Grant) string {
	who := o.by
	if o.user != "" {
		who += " by " + o.user
	}
	switch o.code {
	case CodeAllowed:
		if g != nil {
			return "approved on " + who + "; " + g.describe() + " remembered for this session"
		}
		return "approved on " + who
	case CodeDenied:
		return "denied on " + who
	case CodeTimeout:
		return fmt.Sprintf("approval timed out: no answer within %s; denied", b.timeout)
	case CodeRateLimited:
		return fmt.Sprintf("approval cap reached: %d requests in the last hour; denied without asking", o.count)
	case CodeUnavailable:
		return "no approval channel could show the request; denied"
	case CodeCancelled:
		if errors.Is(o.err, ErrClosed) {
			return "the approval broker closed before an answer; denied"
		}
		return "the approval request was cancelled before an answer; denied"
	}
	return "the approval request failed; denied"
}
