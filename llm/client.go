package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// backend speaks one provider's protocol for one attempt. Errors are
// raw (SDK or transport); the client classifies them.
type backend interface {
	complete(ctx context.Context, req *Request) (*Response, error)
	stream(ctx context.Context, req *Request) (eventSource, error)
}

// eventSource is a backend's stream: events in this package's terms.
// next returns errIncomplete when the stream ends without its terminal
// event.
type eventSource interface {
	next() (Event, error)
	close() error
}

var (
	// errMalformed marks an answer that arrived but cannot be used.
	errMalformed = errors.New("malformed answer")
	// errIncomplete marks a stream that ended before its terminal event.
	errIncomplete = errors.New("stream ended before its final event")
	// errInvalid marks a request a backend could not translate.
	errInvalid = errors.New("invalid request")
)

// malformed wraps errMalformed with a description.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// wireError is an error the provider reported inside a successful
// response (an SSE error event). typ is the provider's error type.
type wireError struct {
	typ, msg string
}

func (e *wireError) Error() string { return e.typ + ": " + e.msg }

// kind maps the provider's error type to a Kind.
func (e *wireError) kind() (Kind, bool) {
	switch e.typ {
	case "overloaded_error", "api_error", "server_error", "internal_error", "UNAVAILABLE", "INTERNAL":
		return KindServer, true
	case "rate_limit_error", "rate_limit_exceeded", "RESOURCE_EXHAUSTED":
		return KindRateLimited, true
	}
	return KindRejected, false
}

// client is the Provider for one pool entry: it validates requests, runs
// attempts with a timeout, classifies failures and retries.
type client struct {
	ref     ModelRef
	keyEnv  string
	timeout time.Duration
	defMax  int
	b       backend
	opts    *Options
	redact  func(string) string
}

var _ Provider = (*client)(nil)

// String names the entry; the key is never part of a client's printed form.
func (c *client) String() string { return "llm.Provider(" + c.ref.Name + ")" }

// GoString is String, so %#v does not walk the fields either.
func (c *client) GoString() string { return c.String() }

func (c *client) prepare(req *Request) error {
	if err := req.Validate(); err != nil {
		return &Error{Kind: KindInvalid, Model: c.ref.Name, Provider: c.ref.Provider, Detail: err.Error()}
	}
	if req.Model == "" {
		req.Model = c.ref.Model
	}
	if !modelNameRE().MatchString(req.Model) {
		return &Error{Kind: KindInvalid, Model: c.ref.Name, Provider: c.ref.Provider,
			Detail: "model override must be 1-128 characters of letters, digits and ._:/@-"}
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = c.defMax
	}
	return nil
}

// Complete sends req, retrying as the policy allows.
func (c *client) Complete(ctx context.Context, req Request) (*Response, error) {
	if err := c.prepare(&req); err != nil {
		return nil, err
	}
	start := c.opts.Clock.Now()
	for attempt := 1; ; attempt++ {
		resp, e := c.completeOnce(ctx, &req)
		if e == nil {
			resp.Attempts = attempt
			return resp, nil
		}
		e.Attempts = attempt
		if err := c.pause(ctx, e, attempt, start); err != nil {
			return nil, err
		}
	}
}

func (c *client) completeOnce(ctx context.Context, req *Request) (*Response, *Error) {
	obs := &observer{}
	actx, cancel := context.WithTimeout(withObserver(ctx, obs), c.timeout)
	defer cancel()
	resp, err := c.b.complete(actx, req)
	if err != nil {
		// Our attempt deadline, or the SDK's own per-request one (set to
		// the same timeout) while the caller's context is still alive.
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) ||
			(ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded))
		return nil, c.classify(ctx, timedOut, obs, err)
	}
	c.opts.Logger.LogAttrs(ctx, slog.LevelDebug, "llm call", slog.String("model", c.ref.Name),
		slog.Int64("input_tokens", resp.Usage.InputTokens), slog.Int64("output_tokens", resp.Usage.OutputTokens))
	return resp, nil
}

// pause decides whether failed attempt n is retried; it returns the
// error to give up with, or nil after waiting.
func (c *client) pause(ctx context.Context, e *Error, n int, start time.Time) error {
	p := c.opts.Retry
	if !e.Retryable || n >= p.MaxAttempts {
		return e
	}
	d := p.backoff(n, c.opts.Jitter())
	if e.RetryAfter > d {
		d = e.RetryAfter
	}
	if c.opts.Clock.Now().Add(d).Sub(start) > p.MaxElapsed {
		e.Detail += fmt.Sprintf("; next retry in %s would exceed the %s budget", d, p.MaxElapsed)
		return e
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return e
	}
	c.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "llm retry",
		slog.String("model", c.ref.Name), slog.String("kind", string(e.Kind)),
		slog.Int("status", e.StatusCode), slog.Int("attempt", n), slog.Duration("delay", d))
	if err := c.opts.Clock.Sleep(ctx, d); err != nil {
		return c.canceled(ctx, n)
	}
	return nil
}

func (c *client) canceled(ctx context.Context, attempts int) *Error {
	return &Error{Kind: KindCanceled, Model: c.ref.Name, Provider: c.ref.Provider,
		Attempts: attempts, Detail: ctx.Err().Error(), err: ctx.Err()}
}

// classify turns what one attempt saw into an *Error. The observer is
// the source of truth for HTTP facts; err decides the rest.
func (c *client) classify(ctx context.Context, timedOut bool, obs *observer, err error) *Error {
	st := obs.snapshot()
	e := &Error{Model: c.ref.Name, Provider: c.ref.Provider, StatusCode: st.status}
	var we *wireError
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Detail, e.err = KindCanceled, ctx.Err().Error(), ctx.Err()
	case timedOut:
		e.Kind, e.Retryable = KindTimeout, true
		e.Detail = fmt.Sprintf("no answer within %s", c.timeout)
	case errors.Is(err, errInvalid):
		e.Kind, e.Detail = KindInvalid, c.redact(err.Error())
	case errors.Is(err, ErrNotLoopback):
		e.Kind, e.err, e.Detail = KindConfig, ErrNotLoopback, c.redact(err.Error())
	case st.tooLarge:
		e.Kind, e.Detail = KindMalformed, "response larger than the size limit"
	case st.status >= 300:
		e.Kind, e.Retryable = statusKind(st.status)
		detail, delay := parseErrorBody(st.body)
		if e.Kind == KindRejected && bytes.Contains(st.body, []byte(`"API_KEY_INVALID"`)) {
			e.Kind = KindAuth // Gemini answers a bad key with 400
		}
		e.RetryAfter = max(retryAfter(st.header, c.opts.Clock.Now()), delay)
		e.Detail = fmt.Sprintf("status %d: %s", st.status, c.redact(detail))
		if e.Kind == KindAuth && c.keyEnv != "" {
			e.Detail += " (check the key in $" + c.keyEnv + ")"
		}
	case errors.As(err, &we):
		e.Kind, e.Retryable = we.kind()
		e.Detail = "error event: " + c.redact(we.Error())
	case errors.Is(err, errMalformed):
		e.Kind, e.Detail = KindMalformed, c.redact(err.Error())
	case st.status != 0 && st.readErr == nil && !errors.Is(err, errIncomplete):
		// An answer arrived and was read without a transport error, yet
		// it could not be decoded.
		e.Kind, e.Detail = KindMalformed, c.redact(err.Error())
	default:
		e.Kind, e.Retryable = KindTransport, true
		e.Detail = c.redact(err.Error())
	}
	return e
}
