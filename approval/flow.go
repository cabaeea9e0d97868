package approval

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// pending is one request from registration to resolution. Fields after
// mu-guarded are read and written under Broker.mu; the rest is fixed at
// registration.
type pending struct {
	ask     Ask      // what channels see (redacted)
	raw     Ask      // what the caller asked (scope, raw session) with the broker's id
	offered *Pattern // the pattern offered, unredacted
	key     string
	done    chan struct{}
	sendCtx context.Context
	cancel  context.CancelFunc

	// mu-guarded
	started     bool // sent to channels
	stop        func() bool
	sentTo      []Channel
	outstanding int // channels whose Send has not failed
	joined      int // duplicate requests waiting on this one
	failed      []string
	resolved    bool
	out         outcome
}

// outcome is how a request ended.
type outcome struct {
	decision Decision
	code     string
	by, user string
	grant    GrantKind
	pattern  Pattern
	count    int // requests in the window (rate limit)
	at       time.Time
	err      error // returned by Request with the deny
}

// register creates the request, or joins a pending one for the same
// session, rule and action: a duplicate is not asked twice.
func (b *Broker) register(in *Ask, now time.Time) (*pending, bool, error) {
	key := in.Session + "\x00" + in.Rule + "\x00" + in.ActionHash
	b.mu.Lock()
	if p := b.byKey[key]; p != nil && !p.resolved {
		p.joined++
		b.mu.Unlock()
		return p, true, nil
	}
	b.mu.Unlock()
	id := b.newID()
	if !isIdent(id) || id == "" || len(id) > 100 {
		return nil, false, errors.New("the id source returned an id that is not an identifier")
	}
	raw := *in
	raw.ID, raw.Created, raw.Expires = id, now, now.Add(b.timeout)
	p := &pending{raw: raw, key: key, done: make(chan struct{})}
	p.offered = offerPattern(in.ActionType, in.Scope)
	if in.Session == "" {
		p.offered = nil // grants are per session
	}
	p.ask = b.display(&raw, p.offered)
	p.sendCtx, p.cancel = context.WithCancel(context.Background())
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed { // Close has taken its list of pending requests
		p.cancel()
		return nil, false, ErrClosed
	}
	if b.pending[id] != nil || b.recent[id] != nil {
		p.cancel()
		return nil, false, fmt.Errorf("the id source repeated id %s", id)
	}
	if q := b.byKey[key]; q != nil && !q.resolved {
		p.cancel()
		q.joined++
		return q, true, nil
	}
	b.pending[id], b.byKey[key] = p, p
	return p, false, nil
}

// admit counts the request against the hourly cap, records it, starts its
// timeout and sends it to every channel. Whatever stops it resolves it.
func (b *Broker) admit(ctx context.Context, p *pending, now time.Time) {
	n, ok, err := b.state.Reserve(ctx, now, RateWindow, b.limit)
	if err != nil {
		b.resolve(p, outcome{code: CodeError, err: fmt.Errorf("reserve approval request: %w", err)})
		return
	}
	if !ok {
		b.resolve(p, outcome{code: CodeRateLimited, count: n})
		return
	}
	b.mu.Lock()
	chans := append([]Channel(nil), b.channels...)
	b.mu.Unlock()
	if _, err := b.rec.Append(ctx, b.requestedEvent(p, n, chans)); err != nil {
		b.resolve(p, outcome{code: CodeError, err: fmt.Errorf("record approval request %s: %w", p.raw.ID, err)})
		return
	}
	if len(chans) == 0 {
		b.resolve(p, outcome{code: CodeUnavailable, err: errors.New("no approval channel is attached")})
		return
	}
	b.mu.Lock()
	if !p.resolved {
		p.started = true
		p.stop = b.clock.AfterFunc(b.timeout, func() { b.resolve(p, outcome{code: CodeTimeout}) })
	}
	b.mu.Unlock()
	b.fanOut(p, chans)
}

// fanOut sends the request to channels, each in its own goroutine.
func (b *Broker) fanOut(p *pending, chans []Channel) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.resolved {
		return
	}
	p.outstanding += len(chans)
	p.sentTo = append(p.sentTo, chans...)
	for _, ch := range chans {
		b.bg.Add(1)
		go func() {
			defer b.bg.Done()
			name := ch.Name()
			reply := func(r Response) error { return b.answer(p.raw.ID, name, r) }
			if err := ch.Send(p.sendCtx, p.ask, reply); err != nil {
				b.sendFailed(p, name)
			}
		}()
	}
}

// sendFailed notes a channel that could not show the request; when none
// could, the request is denied at once.
func (b *Broker) sendFailed(p *pending, name string) {
	b.mu.Lock()
	if p.resolved {
		b.mu.Unlock()
		return
	}
	p.outstanding--
	p.failed = append(p.failed, name)
	last := p.outstanding == 0
	b.mu.Unlock()
	if last {
		b.resolve(p, outcome{code: CodeUnavailable, err: fmt.Errorf("no approval channel could show request %s", p.raw.ID)})
	}
}

// resolve ends p with o unless it has ended; it reports whether o won.
func (b *Broker) resolve(p *pending, o outcome) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.resolved {
		return false
	}
	o.at = b.clock.Now()
	p.resolved, p.out = true, o
	delete(b.pending, p.raw.ID)
	if b.byKey[p.key] == p {
		delete(b.byKey, p.key)
	}
	b.recent[p.raw.ID] = p
	b.recentOrder = append(b.recentOrder, p.raw.ID)
	if len(b.recentOrder) > maxRecent {
		delete(b.recent, b.recentOrder[0])
		b.recentOrder = b.recentOrder[1:]
	}
	if p.stop != nil {
		p.stop()
	}
	p.cancel()
	close(p.done)
	return true
}

// answer is every channel's Reply: the first valid answer wins.
func (b *Broker) answer(id, by string, r Response) error {
	b.mu.Lock()
	p := b.pending[id]
	late := b.recent[id]
	b.mu.Unlock()
	if p == nil {
		if late != nil {
			b.recordLate(late, by, r)
			return fmt.Errorf("answer request %s: %w", id, ErrResolved)
		}
		return fmt.Errorf("answer request %s: %w", id, ErrUnknownAsk)
	}
	o, err := b.outcomeOf(p, by, r)
	if err != nil {
		return fmt.Errorf("answer request %s: %w", id, err)
	}
	if !b.resolve(p, o) {
		b.recordLate(p, by, r)
		return fmt.Errorf("answer request %s: %w", id, ErrResolved)
	}
	return nil
}

// outcomeOf checks a channel's response against what the request offers.
func (b *Broker) outcomeOf(p *pending, by string, r Response) (outcome, error) {
	if r.Decision != Allow && r.Decision != Deny {
		return outcome{}, fmt.Errorf("%w: unknown decision %d", ErrBadResponse, r.Decision)
	}
	user, ok := cleanUser(r.User)
	if !ok {
		return outcome{}, fmt.Errorf("%w: user must be at most %d printable characters", ErrBadResponse, maxUser)
	}
	o := outcome{decision: r.Decision, code: CodeDenied, by: by, user: redactText(b.dlp, user)}
	if r.Decision == Deny {
		return o, nil // a grant on a deny is ignored
	}
	o.code = CodeAllowed
	switch r.Grant {
	case GrantNone:
	case GrantExact:
		if p.raw.Session == "" {
			return outcome{}, fmt.Errorf("%w: no grant without a session", ErrBadResponse)
		}
	case GrantPattern:
		pat, err := choosePattern(&p.raw, p.offered, r.Pattern)
		if err != nil {
			return outcome{}, err
		}
		o.pattern = pat
	default:
		return outcome{}, fmt.Errorf("%w: unknown grant kind %d", ErrBadResponse, r.Grant)
	}
	o.grant = r.Grant
	return o, nil
}

// await waits for the request to end and finishes it. A joined caller
// that gives up denies its own call only; the owner giving up cancels the
// request.
func (b *Broker) await(ctx context.Context, p *pending, owner bool) (Answer, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		if !owner {
			o := outcome{code: CodeCancelled, at: b.clock.Now(), err: ctx.Err()}
			return b.finish(ctx, p, o, false)
		}
		b.resolve(p, outcome{code: CodeCancelled, err: ctx.Err()})
		<-p.done
	}
	b.mu.Lock()
	o := p.out
	b.mu.Unlock()
	return b.finish(ctx, p, o, owner)
}

// finish records the outcome (durably, before the caller acts on it),
// stores the grant the human chose and tells the channels.
func (b *Broker) finish(ctx context.Context, p *pending, o outcome, owner bool) (Answer, error) {
	actx := context.WithoutCancel(ctx)
	ans := Answer{AskID: p.raw.ID, Decision: o.decision, Code: o.code, By: o.by, User: o.user, At: o.at}
	var g *Grant
	if owner && o.decision == Allow && o.grant != GrantNone {
		g = b.newGrant(p, o)
		ans.Grant, ans.GrantID = g.Kind, g.ID
	}
	ans.Reason = b.reason(p, o, g)
	if o.code != CodeAllowed {
		ans.Decision = Deny // only a human's allow allows
	}
	if _, err := b.rec.Append(actx, b.finalEvent(p, ans, o, g)); err != nil {
		ans = Answer{AskID: p.raw.ID, Decision: Deny, Code: CodeError, At: o.at,
			Reason: "the approval outcome could not be recorded; denied"}
		return ans, fmt.Errorf("record approval outcome %s: %w", p.raw.ID, err)
	}
	if g != nil {
		if err := b.state.AddGrant(actx, *g); err != nil {
			ans.Grant, ans.GrantID = GrantNone, ""
			ans.Reason += " (the grant could not be stored: later requests will be asked)"
		}
	}
	if owner {
		b.notify(p, ans)
	}
	return ans, o.err
}

// notify tells every channel that showed the request how it ended.
func (b *Broker) notify(p *pending, ans Answer) {
	res := Resolution{ID: p.raw.ID, Decision: ans.Decision, Code: ans.Code, By: ans.By, At: ans.At}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range p.sentTo {
		b.bg.Add(1)
		go func() {
			defer b.bg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			defer cancel()
			ch.Resolved(ctx, p.ask, res)
		}()
	}
}

// newGrant builds the grant an allow with a grant kind creates.
func (b *Broker) newGrant(p *pending, o outcome) *Grant {
	g := &Grant{ID: "grant-" + b.newID(), Session: p.raw.Session, Rule: p.raw.Rule, Kind: o.grant,
		By: o.by, AskID: p.raw.ID, Created: o.at, Expires: o.at.Add(b.grantTTL)}
	if o.grant == GrantExact {
		g.ActionHash = p.raw.ActionHash
	} else {
		g.Pattern = o.pattern
	}
	return g
}

// findGrant returns the first live grant of the session that covers in.
func (b *Broker) findGrant(ctx context.Context, in *Ask, now time.Time) (*Grant, error) {
	if in.Session == "" {
		return nil, nil
	}
	gs, err := b.state.Grants(ctx, in.Session, now)
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	for i := range gs {
		if gs[i].Covers(in, now) {
			return &gs[i], nil
		}
	}
	return nil, nil
}

// granted allows a request a grant covers, without asking, once recorded.
func (b *Broker) granted(ctx context.Context, in *Ask, g *Grant, now time.Time) (Answer, error) {
	ans := Answer{Decision: Allow, Code: CodeGranted, By: g.By, Grant: g.Kind, GrantID: g.ID, At: now,
		Reason: "allowed by " + g.describe() + " approved on " + g.By + " for this session"}
	if _, err := b.rec.Append(ctx, b.grantEvent(in, g, ans.Reason)); err != nil {
		return refused(now, CodeError, "the approval outcome could not be recorded; denied"),
			fmt.Errorf("record grant use %s: %w", g.ID, err)
	}
	return ans, nil
}
