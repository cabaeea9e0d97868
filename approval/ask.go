package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// Decision is a human's answer. The zero value is Deny, so an answer that
// was never set fails closed.
type Decision uint8

// The two answers.
const (
	Deny Decision = iota
	Allow
)

// String returns "allow" or "deny".
func (d Decision) String() string {
	if d == Allow {
		return "allow"
	}
	return "deny"
}

// MarshalText writes "allow" or "deny".
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads exactly "allow" or "deny".
func (d *Decision) UnmarshalText(b []byte) error {
	switch string(b) {
	case "allow":
		*d = Allow
	case "deny":
		*d = Deny
	default:
		return fmt.Errorf("decision %q: want allow or deny", b)
	}
	return nil
}

// GrantKind says what an approval is remembered for.
type GrantKind uint8

// Grant kinds. The zero value remembers nothing.
const (
	// GrantNone allows this one request only.
	GrantNone GrantKind = iota
	// GrantExact allows the same action (same hash), escalated by the
	// same rule, in the same session, until the grant expires.
	GrantExact
	// GrantPattern allows actions matching the ask's Pattern, escalated
	// by the same rule, in the same session, until the grant expires.
	GrantPattern
)

// String returns "none", "exact" or "pattern".
func (g GrantKind) String() string {
	switch g {
	case GrantExact:
		return "exact"
	case GrantPattern:
		return "pattern"
	}
	return "none"
}

// MarshalText writes the kind's name.
func (g GrantKind) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText reads "none", "exact" or "pattern".
func (g *GrantKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "none":
		*g = GrantNone
	case "exact":
		*g = GrantExact
	case "pattern":
		*g = GrantPattern
	default:
		return fmt.Errorf("grant %q: want none, exact or pattern", b)
	}
	return nil
}

// Reason codes of an Answer. They are a public contract: the audit chain,
// the UI and tests use them.
const (
	CodeAllowed     = "approval_allowed"      // a human allowed it
	CodeDenied      = "approval_denied"       // a human denied it
	CodeGranted     = "approval_grant"        // a session grant covered it; nobody was asked
	CodeTimeout     = "approval_timeout"      // nobody answered in time
	CodeRateLimited = "approval_rate_limited" // the hourly cap was reached; nobody was asked
	CodeUnavailable = "approval_unavailable"  // no channel could show the request
	CodeCancelled   = "approval_cancelled"    // the caller gave up or the broker closed
	CodeError       = "approval_error"        // malformed request or an internal failure
	CodeLateAnswer  = "approval_late_answer"  // an answer after the request was resolved (audit only)
)

// Errors a Reply returns. Channels show them to whoever answered.
var (
	// ErrResolved: the request was already answered, timed out or
	// cancelled; the answer was ignored (and audited as late).
	ErrResolved = errors.New("approval request already resolved")
	// ErrUnknownAsk: no request with that id is known.
	ErrUnknownAsk = errors.New("unknown approval request")
	// ErrBadResponse: the answer is not one the request offers (a
	// pattern grant where no pattern is offered, a pattern that does not
	// cover the action, a grant without a session).
	ErrBadResponse = errors.New("answer not accepted")
	// ErrClosed: the broker or the channel is closed.
	ErrClosed = errors.New("approval broker closed")
)

// Ask is one approval request. The caller fills Session, ActionType,
// ActionHash, Payload (the raw payload: the broker redacts it), Reason,
// Rule, Stage and Scope. The broker sets ID, Pattern, Created and Expires
// and hands channels a copy whose every text field went through DLP
// redaction and whose Scope is empty.
type Ask struct {
	ID         string          `json:"id"`
	Session    string          `json:"session,omitempty"`
	ActionType string          `json:"action"`
	ActionHash string          `json:"action_hash"`
	Payload    json.RawMessage `json:"payload"`
	Reason     string          `json:"reason"`
	Rule       string          `json:"rule"`
	Stage      string          `json:"stage"`
	// Scope is what the action touches (see ScopeOf); it decides which
	// pattern can be offered and which grants cover the action. It is
	// never sent to channels.
	Scope Scope `json:"-"`
	// Pattern is what a pattern grant would cover; nil when the action
	// admits none (see Pattern).
	Pattern *Pattern `json:"pattern,omitempty"`
	// Grants lists the grant kinds the request offers besides "none".
	Grants  []GrantKind `json:"grants,omitempty"`
	Created time.Time   `json:"created"`
	Expires time.Time   `json:"expires"`
}

// Offers reports whether the request offers grant kind g.
func (a *Ask) Offers(g GrantKind) bool {
	if g == GrantNone {
		return true
	}
	for _, k := range a.Grants {
		if k == g {
			return true
		}
	}
	return false
}

// Response is what a channel reports a human answered.
type Response struct {
	Decision Decision
	Grant    GrantKind // ignored when Decision is Deny
	// Pattern, with Grant == GrantPattern, replaces the offered pattern's
	// path prefix with one the human chose; everything else must equal
	// the offered pattern and the prefix must still cover the action.
	// Nil takes the offered pattern as it is.
	Pattern *Pattern
	// User names who answered, when the channel knows (free text, at
	// most 64 printable characters; it is redacted before it is recorded).
	User string
}

// Reply is how a channel answers one request. It returns nil when the
// answer decided the request, ErrResolved when it came too late,
// ErrUnknownAsk or an ErrBadResponse.
type Reply func(Response) error

// Answer is the outcome of Request.
type Answer struct {
	AskID    string // empty when nobody was asked (grant, rate limit, malformed)
	Decision Decision
	Code     string // one of the Code constants
	Reason   string // one sentence, no secrets
	By       string // the channel that answered, when one did
	User     string // who answered on it, when known (redacted)
	Grant    GrantKind
	GrantID  string // the grant created by this answer, or the one that covered it
	At       time.Time
}

// Verdict turns the answer into the gate's verdict for an action with the
// given hash: ALLOW or BLOCK, stage human, tier 3, rule = Code.
func (a Answer) Verdict(hash string) verdict.Verdict {
	d := verdict.Block
	if a.Decision == Allow {
		d = verdict.Allow
	}
	return verdict.Verdict{Decision: d, Stage: verdict.StageHuman, Tier: 3, Rule: a.Code,
		Reason: a.Reason, Hash: hash}
}

// Resolution tells channels how a request they showed ended.
type Resolution struct {
	ID       string    `json:"id"`
	Decision Decision  `json:"decision"`
	Code     string    `json:"code"`
	By       string    `json:"by,omitempty"`
	At       time.Time `json:"at"`
}

// Channel is a place where a human can answer: a terminal, a webhook, the
// web UI. Send shows the request and returns once it is delivered (not
// answered); the channel later calls reply with the human's answer.
// Resolved tells the channel the request ended (answered here or
// elsewhere, timed out, cancelled) so it can take the prompt down.
type Channel interface {
	Name() string
	Send(ctx context.Context, ask Ask, reply Reply) error
	Resolved(ctx context.Context, ask Ask, res Resolution)
}

// Recorder is the audit chain (*audit.Log). Append returns once the entry
// is durable.
type Recorder interface {
	Append(ctx context.Context, e audit.Event) (audit.Entry, error)
}

var _ Recorder = (*audit.Log)(nil)

// Clock is the broker's time: Now stamps requests and grants, AfterFunc
// runs the timeouts. Tests replace it.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed, unless
	// stop is called first; stop reports whether it prevented the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the wall clock.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
