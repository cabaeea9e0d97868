package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/parallax/parallax/action"
)

// Webhook bounds.
const (
	maxCallbackBody = 64 << 10
	maxWebhookIDs   = 1024 // request ids remembered for callbacks, oldest dropped first
	webhookTimeout  = 10 * time.Second
)

// WebhookConfig configures a Webhook channel.
type WebhookConfig struct {
	// Name is the channel's name; empty means "webhook".
	Name string
	// URL receives the POSTs. It must be https, or http to a loopback
	// host; it may not carry user information.
	URL string
	// Secret signs what is sent and verifies the answers; at least
	// MinSecretLen bytes. It never appears in errors.
	Secret []byte
	// Client posts; nil means a client with a 10 s timeout that does not
	// follow redirects (a signed request is never re-sent elsewhere).
	Client *http.Client
	// Now is the clock for signatures; nil means time.Now.
	Now func() time.Time
	// Tolerance is how old (or how far ahead) a signed answer may be; 0
	// means DefaultTolerance.
	Tolerance time.Duration
}

// Webhook is a channel that POSTs each request as signed JSON to a URL
// and takes answers on its callback Handler.
//
// Outgoing: POST URL, Content-Type application/json, EventHeader, and
// SignatureHeader over the body; the body is {"event":"approval.requested",
// "ask":{…Ask…}} or {"event":"approval.resolved","resolution":{…}}. Any
// 2xx status is delivery; anything else fails the Send.
//
// Incoming (Handler): POST with SignatureHeader and the body
// {"id":"…","decision":"allow"|"deny","grant":"none"|"exact"|"pattern",
// "pattern":{…}?,"user":"…"?}; strict JSON. Answers: 200 accepted, 409
// late (the request had ended), 404 unknown id, 422 not an answer the
// request offers, 401 bad signature, 400 bad body, 405, 413.
type Webhook struct {
	name   string
	url    string
	origin string // scheme://host, the only part of URL errors name
	secret []byte
	client *http.Client
	now    func() time.Time
	tol    time.Duration

	mu      sync.Mutex
	replies map[string]Reply
	order   []string
}

var _ Channel = (*Webhook)(nil)

// NewWebhook checks cfg and returns the channel.
func NewWebhook(cfg WebhookConfig) (*Webhook, error) {
	origin, err := checkWebhookURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if len(cfg.Secret) < MinSecretLen {
		return nil, fmt.Errorf("webhook %s: the secret must be at least %d bytes", origin, MinSecretLen)
	}
	w := &Webhook{name: cfg.Name, url: cfg.URL, origin: origin, secret: bytes.Clone(cfg.Secret),
		client: cfg.Client, now: cfg.Now, tol: cfg.Tolerance, replies: map[string]Reply{}}
	if w.name == "" {
		w.name = "webhook"
	}
	if w.client == nil {
		w.client = &http.Client{Timeout: webhookTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if w.now == nil {
		w.now = time.Now
	}
	if w.tol <= 0 {
		w.tol = DefaultTolerance
	}
	return w, nil
}

// checkWebhookURL accepts https, or http to a loopback host, without
// user information, and returns scheme://host.
func checkWebhookURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", errors.New("webhook URL: want an absolute http(s) URL")
	}
	origin := u.Scheme + "://" + u.Host
	if u.User != nil {
		return "", fmt.Errorf("webhook %s: the URL may not carry user information", origin)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopbackHost(u.Hostname()) {
			return "", fmt.Errorf("webhook %s: plain http only to a loopback host; use https", origin)
		}
	default:
		return "", fmt.Errorf("webhook %s: want https (or http to loopback)", origin)
	}
	return origin, nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Name implements Channel.
func (w *Webhook) Name() string { return w.name }

// Send implements Channel: it POSTs the request. The callback is armed
// before the POST, so a receiver may answer while it handles it.
func (w *Webhook) Send(ctx context.Context, ask Ask, reply Reply) error {
	w.remember(ask.ID, reply)
	err := w.post(ctx, "approval.requested", map[string]any{"event": "approval.requested", "ask": ask})
	if err != nil {
		if ctx.Err() == nil {
			// Not delivered. (A cancelled context means the request
			// ended meanwhile: the callback stays armed for late answers.)
			w.forget(ask.ID)
		}
		return fmt.Errorf("webhook %s: send request %s: %w", w.name, ask.ID, err)
	}
	return nil
}

// Resolved implements Channel: it POSTs the resolution. Its callback
// stays armed (bounded), so a late answer is told it was late.
func (w *Webhook) Resolved(ctx context.Context, _ Ask, res Resolution) {
	_ = w.post(ctx, "approval.resolved", map[string]any{"event": "approval.resolved", "resolution": res})
}

// post sends one signed JSON body. Errors name the origin, never the
// path (which may hold a token) or the secret.
func (w *Webhook) post(ctx context.Context, event string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", event, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("post to %s: cannot build the request", w.origin)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(EventHeader, event)
	req.Header.Set(SignatureHeader, Sign(w.secret, w.now(), body))
	resp, err := w.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("post to %s: %w", w.origin, ctx.Err())
		}
		return fmt.Errorf("post to %s: delivery failed", w.origin)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("post to %s: status %d", w.origin, resp.StatusCode)
	}
	return nil
}

func (w *Webhook) remember(id string, r Reply) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.replies[id]; !ok {
		w.order = append(w.order, id)
	}
	w.replies[id] = r
	if len(w.order) > maxWebhookIDs {
		delete(w.replies, w.order[0])
		w.order = w.order[1:]
	}
}

func (w *Webhook) forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.replies, id) // its place in order ages out
}

func (w *Webhook) reply(id string) Reply {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.replies[id]
}

// callback is the body of an answer.
type callback struct {
	ID       string    `json:"id"`
	Decision *Decision `json:"decision"`
	Grant    GrantKind `json:"grant"`
	Pattern  *Pattern  `json:"pattern"`
	User     string    `json:"user"`
}

// decodeCallback reads an answer strictly: one object, known fields, no
// duplicated keys, an id and a decision.
func decodeCallback(body []byte) (string, Response, error) {
	if err := action.CheckDuplicateKeys(body); err != nil {
		return "", Response{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var c callback
	if err := dec.Decode(&c); err != nil {
		return "", Response{}, fmt.Errorf("decode answer: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", Response{}, errors.New("decode answer: trailing data after the object")
	}
	if c.ID == "" || !isIdent(c.ID) {
		return "", Response{}, errors.New("decode answer: id missing or not an identifier")
	}
	if c.Decision == nil {
		return "", Response{}, errors.New("decode answer: decision missing")
	}
	return c.ID, Response{Decision: *c.Decision, Grant: c.Grant, Pattern: c.Pattern, User: c.User}, nil
}

// Handler is the callback endpoint for answers; mount it where the
// receiver posts them (for example /v1/approvals/webhook).
func (w *Webhook) Handler() http.Handler { return http.HandlerFunc(w.serve) }

func (w *Webhook) serve(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		writeStatus(rw, http.StatusMethodNotAllowed, "method_not_allowed", "POST only")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, maxCallbackBody))
	if err != nil {
		writeStatus(rw, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over %d bytes or unreadable", maxCallbackBody))
		return
	}
	if err := VerifySignature(w.secret, r.Header.Get(SignatureHeader), body, w.now(), w.tol); err != nil {
		writeStatus(rw, http.StatusUnauthorized, "bad_signature", "missing, stale or wrong signature")
		return
	}
	id, resp, err := decodeCallback(body)
	if err != nil {
		writeStatus(rw, http.StatusBadRequest, "bad_body", err.Error())
		return
	}
	reply := w.reply(id)
	if reply == nil {
		writeStatus(rw, http.StatusNotFound, "unknown", "no request with that id was sent here")
		return
	}
	switch err := reply(resp); {
	case err == nil:
		writeStatus(rw, http.StatusOK, "accepted", "")
	case errors.Is(err, ErrResolved):
		writeStatus(rw, http.StatusConflict, "late", "the request had already ended; the answer was ignored")
	case errors.Is(err, ErrBadResponse):
		writeStatus(rw, http.StatusUnprocessableEntity, "not_accepted", err.Error())
	case errors.Is(err, ErrUnknownAsk):
		writeStatus(rw, http.StatusNotFound, "unknown", "no request with that id is known")
	default:
		writeStatus(rw, http.StatusInternalServerError, "error", "the answer could not be taken")
	}
}

// writeStatus answers {"status":…,"error":…}.
func writeStatus(rw http.ResponseWriter, code int, status, msg string) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(code)
	out := map[string]string{"status": status}
	if msg != "" {
		out["error"] = msg
	}
	_ = json.NewEncoder(rw).Encode(out)
}
