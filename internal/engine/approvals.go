package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/parallax/parallax/approval"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// clientApprovals is the approval channel of the runtime's clients: an
// escalation is published to every subscriber as ApprovalNeeded, and the
// first AnswerApproval decides it (the approval broker takes the first
// answer; a late one is refused). A request nobody answers is denied at
// the broker's timeout; one whose proposal ends (the agent died) is
// cancelled with it.
type clientApprovals struct {
	hub *hub

	mu      sync.Mutex
	pending map[string]approval.Reply
}

var _ approval.Channel = (*clientApprovals)(nil)

func newClientApprovals(h *hub) *clientApprovals {
	return &clientApprovals{hub: h, pending: map[string]approval.Reply{}}
}

func (c *clientApprovals) Name() string { return "clients" }

// Send publishes the (already redacted) request.
func (c *clientApprovals) Send(_ context.Context, ask approval.Ask, reply approval.Reply) error {
	c.mu.Lock()
	c.pending[ask.ID] = reply
	c.mu.Unlock()
	var pattern string
	if ask.Pattern != nil {
		pattern = ask.Pattern.String()
	}
	c.hub.publish(&pb.Event{SessionId: ask.Session, Kind: &pb.Event_ApprovalNeeded{ApprovalNeeded: &pb.ApprovalNeeded{
		ApprovalId: ask.ID, ActionType: ask.ActionType, RedactedPayloadJson: ask.Payload, Reason: ask.Reason,
		DeadlineUnixMs: ask.Expires.UnixMilli(), Pattern: pattern}}})
	return nil
}

// Resolved forgets the request and tells every client, so the prompt
// comes down wherever it was shown.
func (c *clientApprovals) Resolved(_ context.Context, ask approval.Ask, res approval.Resolution) {
	c.mu.Lock()
	delete(c.pending, ask.ID)
	c.mu.Unlock()
	d := pb.Decision_DECISION_BLOCK
	if res.Decision == approval.Allow {
		d = pb.Decision_DECISION_ALLOW
	}
	c.hub.publish(&pb.Event{SessionId: ask.Session, Kind: &pb.Event_ApprovalResolved{ApprovalResolved: &pb.ApprovalResolved{
		ApprovalId: ask.ID, Decision: d, Code: res.Code, By: res.By}}})
}

// answer passes a client's answer to the broker; accepted is false when
// the request is unknown or was already decided.
func (c *clientApprovals) answer(id string, allow bool, grant approval.GrantKind, by string) (accepted bool, reason string) {
	c.mu.Lock()
	reply, ok := c.pending[id]
	c.mu.Unlock()
	if !ok {
		return false, "no pending approval " + id + " (answered, expired or unknown)"
	}
	d := approval.Deny
	if allow {
		d = approval.Allow
	} else {
		grant = approval.GrantNone // a deny remembers nothing
	}
	err := reply(approval.Response{Decision: d, Grant: grant, User: by})
	switch {
	case err == nil:
		return true, ""
	case errors.Is(err, approval.ErrResolved):
		return false, "another answer came first, or the request expired"
	}
	return false, err.Error()
}

func (c *clientApprovals) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// grantOf reads a client's grant: "" or "once", "session" (the same
// action in this session), "pattern" (the offered pattern).
func grantOf(s string) (approval.GrantKind, error) {
	switch s {
	case "", "once":
		return approval.GrantNone, nil
	case "session":
		return approval.GrantExact, nil
	case "pattern":
		return approval.GrantPattern, nil
	}
	return approval.GrantNone, fmt.Errorf("grant %q: want once, session or pattern", s)
}
