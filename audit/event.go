package audit

import (
	"time"

	"github.com/parallax/parallax/verdict"
)

// EventType names what an entry records. The names are the seeds' audit
// event types, so tools written for them read ours.
type EventType string

// The event types. The list is closed: Append refuses, and Verify reports,
// a type outside it.
const (
	ActionProposed          EventType = "ActionProposed"
	ActionEvaluated         EventType = "ActionEvaluated"
	ActionApproved          EventType = "ActionApproved"
	ActionBlocked           EventType = "ActionBlocked"
	ActionExecuted          EventType = "ActionExecuted"
	ActionFailed            EventType = "ActionFailed"
	ShieldError             EventType = "ShieldError"
	CanaryVerified          EventType = "CanaryVerified"
	CanaryMissing           EventType = "CanaryMissing"
	RateLimitHit            EventType = "RateLimitHit"
	BudgetExhausted         EventType = "BudgetExhausted"
	SelfProtection          EventType = "SelfProtection"
	TransactionBegin        EventType = "TransactionBegin"
	TransactionCommit       EventType = "TransactionCommit"
	TransactionRollback     EventType = "TransactionRollback"
	IntegrityViolation      EventType = "IntegrityViolation"
	SessionStarted          EventType = "SessionStarted"
	SessionEnded            EventType = "SessionEnded"
	ConfigChanged           EventType = "ConfigChanged"
	IFCClassified           EventType = "IFCClassified"
	ChronicleSnapshot       EventType = "ChronicleSnapshot"
	ChronicleSnapshotFailed EventType = "ChronicleSnapshotFailed"
	SandboxCanaryResult     EventType = "SandboxCanaryResult"

	// Ours, beyond the seeds: an ESCALATE verdict handed to a judge or a
	// human, the approval request sent for it, and its timeout (a deny).
	ActionEscalated   EventType = "ActionEscalated"
	ApprovalRequested EventType = "ApprovalRequested"
	ApprovalTimeout   EventType = "ApprovalTimeout"
	// IFCLabelDropped: an activity-table label removed because its file
	// is gone (parallax ifc sweep).
	IFCLabelDropped EventType = "IFCLabelDropped"
	// ActionStarted: the engine re-verified an allowed action's hash and
	// hands it to its executor (ActionExecuted or ActionFailed follow).
	ActionStarted EventType = "ActionStarted"
	// LLMUsage: one LLM call brokered for an agent (model, tokens, cost;
	// never content).
	LLMUsage EventType = "LLMUsage"
	// EgressConnection: one connection a sandboxed command asked its
	// egress proxy for (host and port in Message, the address dialled in
	// Ref, allowed or the refusal's reason in Code, bytes each way).
	EgressConnection EventType = "EgressConnection"
)

// eventTypes is the closed list, in documentation order.
var eventTypes = []EventType{
	ActionProposed, ActionEvaluated, ActionApproved, ActionBlocked,
	ActionExecuted, ActionFailed, ShieldError, CanaryVerified, CanaryMissing,
	RateLimitHit, BudgetExhausted, SelfProtection, TransactionBegin,
	TransactionCommit, TransactionRollback, IntegrityViolation,
	SessionStarted, SessionEnded, ConfigChanged, IFCClassified,
	ChronicleSnapshot, ChronicleSnapshotFailed, SandboxCanaryResult,
	ActionEscalated, ApprovalRequested, ApprovalTimeout, IFCLabelDropped,
	ActionStarted, LLMUsage, EgressConnection,
}

// EventTypes returns every known event type.
func EventTypes() []EventType { return append([]EventType(nil), eventTypes...) }

// Known reports whether t is one of the event types.
func (t EventType) Known() bool {
	for _, k := range eventTypes {
		if k == t {
			return true
		}
	}
	return false
}

// Event is what a caller records. Append fills in the sequence number,
// the time, the previous hash and the hash.
type Event struct {
	Type    EventType
	Session string
	// ActionType and ActionHash identify the action ("sha256:…", see
	// action.Hash); both may be empty for events that are not about one.
	ActionType string
	ActionHash string
	// Decision, Stage, Tier, Rule and Reason carry a verdict (see FromVerdict).
	// Decision is empty, "ALLOW", "ESCALATE" or "BLOCK".
	Decision string
	Stage    string
	Tier     int
	Rule     string
	Reason   string
	Detail   Detail
}

// Detail is the small typed payload of an entry. Zero fields are omitted
// from the encoding. Message, Path and Target pass through the Redactor; Code,
// Ref and Labels are identifiers and must match [A-Za-z0-9._:/@+=-].
type Detail struct {
	Code       string   `json:"code,omitempty"`        // stable reason code, e.g. torn_tail
	Message    string   `json:"message,omitempty"`     // free text, redacted
	Path       string   `json:"path,omitempty"`        // file involved, redacted
	Target     string   `json:"target,omitempty"`      // what a decided action acts on (command, path, URL, tool), one line, redacted
	Ref        string   `json:"ref,omitempty"`         // snapshot, transaction or torn-bytes id
	Labels     []string `json:"labels,omitempty"`      // IFC / DLP labels
	Offset     int64    `json:"offset,omitempty"`      // byte offset (torn tail)
	Length     int64    `json:"length,omitempty"`      // byte length (torn tail)
	Count      int64    `json:"count,omitempty"`       // a counter (rate limit, budget)
	ExitCode   int64    `json:"exit_code,omitempty"`   // an executed command's status
	DurationMS int64    `json:"duration_ms,omitempty"` // how long something took
	BytesUp    int64    `json:"bytes_up,omitempty"`    // sent to a remote host
	BytesDown  int64    `json:"bytes_down,omitempty"`  // received from it
}

// empty reports whether d has nothing to encode.
func (d *Detail) empty() bool {
	return d.Code == "" && d.Message == "" && d.Path == "" && d.Target == "" && d.Ref == "" &&
		len(d.Labels) == 0 && d.Offset == 0 && d.Length == 0 && d.Count == 0 &&
		d.ExitCode == 0 && d.DurationMS == 0 && d.BytesUp == 0 && d.BytesDown == 0
}

// Entry is one committed line of the log.
type Entry struct {
	Version    int       `json:"v"`
	Seq        uint64    `json:"seq"`
	Time       time.Time `json:"time"`
	Type       EventType `json:"type"`
	Session    string    `json:"session,omitempty"`
	ActionType string    `json:"action,omitempty"`
	ActionHash string    `json:"action_hash,omitempty"`
	Decision   string    `json:"decision,omitempty"`
	Stage      string    `json:"stage,omitempty"`
	Tier       int       `json:"tier,omitempty"`
	Rule       string    `json:"rule,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Detail     Detail    `json:"detail,omitzero"`
	Prev       string    `json:"prev"`
	Hash       string    `json:"hash"`
}

// FromVerdict builds the event recording v for an action.
func FromVerdict(t EventType, session, actionType string, v verdict.Verdict) Event {
	return Event{
		Type:       t,
		Session:    session,
		ActionType: actionType,
		ActionHash: v.Hash,
		Decision:   v.Decision.String(),
		Stage:      string(v.Stage),
		Tier:       v.Tier,
		Rule:       v.Rule,
		Reason:     v.Reason,
	}
}
