package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef-test-secret")

// post is one POST the receiver got.
type post struct {
	event  string
	sig    string
	body   []byte
	sigErr error
}

// receiver is a webhook receiver on loopback: it records every POST,
// checks its signature, and answers with status.
type receiver struct {
	srv    *httptest.Server
	posts  chan post
	mu     sync.Mutex
	status int
	onAsk  func(ask Ask) // called while handling an approval.requested POST
}

func newReceiver(t testing.TB, now func() time.Time) *receiver {
	t.Helper()
	rc := &receiver{posts: make(chan post, 64), status: http.StatusNoContent}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p := post{event: r.Header.Get(EventHeader), sig: r.Header.Get(SignatureHeader), body: body}
		p.sigErr = VerifySignature(testSecret, p.sig, body, now(), DefaultTolerance)
		rc.mu.Lock()
		status, onAsk := rc.status, rc.onAsk
		rc.mu.Unlock()
		if p.event == "approval.requested" && onAsk != nil {
			var m struct{ Ask Ask }
			if err := json.Unmarshal(body, &m); err == nil {
				onAsk(m.Ask)
			}
		}
		rc.posts <- p
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) next(t testing.TB) post {
	t.Helper()
	select {
	case p := <-rc.posts:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver got no POST")
	}
	return post{}
}

// hookRig is a Webhook channel posting to a receiver, with its callback
// handler served on loopback.
type hookRig struct {
	hook     *Webhook
	rc       *receiver
	callback *httptest.Server
}

func newHookRig(t testing.TB, now func() time.Time) *hookRig {
	t.Helper()
	rc := newReceiver(t, now)
	hook, err := NewWebhook(WebhookConfig{URL: rc.srv.URL + "/hooks/approval", Secret: testSecret, Now: now})
	if err != nil {
		t.Fatalf("new webhook: %v", err)
	}
	cb := httptest.NewServer(hook.Handler())
	t.Cleanup(cb.Close)
	return &hookRig{hook: hook, rc: rc, callback: cb}
}

// answer posts a signed answer body to the callback and returns the
// status and the response's "status" field.
func (h *hookRig) answer(t testing.TB, body string, at time.Time, secret []byte) (int, string) {
	t.Helper()
	return postCallback(t, h.callback.URL, []byte(body), Sign(secret, at, []byte(body)))
}

func postCallback(t testing.TB, url string, body []byte, sig string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if sig != "" {
		req.Header.Set(SignatureHeader, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post answer: %v", err)
	}
	defer resp.Body.Close()
	var out struct{ Status string }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Status
}

func TestWebhookAnswer(t *testing.T) {
	clock := newFakeClock()
	h := newHookRig(t, clock.Now)
	r := newRig(t, Config{Channels: []Channel{h.hook}})
	res := start(r.b, context.Background(), cmdAsk("s1", "write_outside", "w", "cp", "/home/dev/other/a"))
	p := h.rc.next(t)
	if p.event != "approval.requested" || p.sigErr != nil {
		t.Fatalf("request POST: event %q, signature %v", p.event, p.sigErr)
	}
	var got struct {
		Event string `json:"event"`
		Ask   Ask    `json:"ask"`
	}
	if err := json.Unmarshal(p.body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Ask.ID != "id-1" || got.Ask.ActionType != "execute_command" || got.Ask.Pattern == nil || got.Ask.Pattern.PathPrefix != "/home/dev/other" {
		t.Fatalf("ask posted: %+v", got.Ask)
	}
	code, status := h.answer(t, `{"id":"id-1","decision":"allow","grant":"pattern","user":"alice"}`, t0, testSecret)
	if code != http.StatusOK || status != "accepted" {
		t.Fatalf("answer: got %d %s, want 200 accepted", code, status)
	}
	ans := waitResult(t, res)
	if ans.ans.Decision != Allow || ans.ans.By != "webhook" || ans.ans.User != "alice" || ans.ans.Grant != GrantPattern {
		t.Fatalf("got %+v", ans.ans)
	}
	if p := h.rc.next(t); p.event != "approval.resolved" || p.sigErr != nil || !strings.Contains(string(p.body), `"decision":"allow"`) {
		t.Fatalf("resolution POST: event %q body %s signature %v", p.event, p.body, p.sigErr)
	}
	code, status = h.answer(t, `{"id":"id-1","decision":"deny"}`, t0, testSecret)
	if code != http.StatusConflict || status != "late" {
		t.Fatalf("late answer: got %d %s, want 409 late", code, status)
	}
}

func TestWebhookCallbackRefusals(t *testing.T) {
	clock := newFakeClock()
	h := newHookRig(t, clock.Now)
	r := newRig(t, Config{Channels: []Channel{h.hook}})
	a := cmdAsk("s1", "sudo", "refuse", "sudo")
	a.Scope.Opaque = true
	res := start(r.b, context.Background(), a)
	h.rc.next(t)
	good := `{"id":"id-1","decision":"deny"}`
	tests := []struct {
		name   string
		body   string
		sig    string // "" means: sign body with testSecret at t0
		code   int
		status string
	}{
		{"no signature", good, "-", http.StatusUnauthorized, "bad_signature"},
		{"wrong secret", good, Sign([]byte("another-secret-of-at-least-32-bytes!!"), t0, []byte(good)), http.StatusUnauthorized, "bad_signature"},
		{"tampered body", `{"id":"id-1","decision":"allow"}`, Sign(testSecret, t0, []byte(good)), http.StatusUnauthorized, "bad_signature"},
		{"stale", good, Sign(testSecret, t0.Add(-6*time.Minute), []byte(good)), http.StatusUnauthorized, "bad_signature"},
		{"from the future", good, Sign(testSecret, t0.Add(6*time.Minute), []byte(good)), http.StatusUnauthorized, "bad_signature"},
		{"garbled signature", good, "t=1,v1=zz", http.StatusUnauthorized, "bad_signature"},
		{"unknown field", `{"id":"id-1","decision":"allow","admin":true}`, "", http.StatusBadRequest, "bad_body"},
		{"duplicate key", `{"id":"id-1","decision":"deny","decision":"allow"}`, "", http.StatusBadRequest, "bad_body"},
		{"trailing data", good + `{}`, "", http.StatusBadRequest, "bad_body"},
		{"no decision", `{"id":"id-1"}`, "", http.StatusBadRequest, "bad_body"},
		{"bad decision", `{"id":"id-1","decision":"yes"}`, "", http.StatusBadRequest, "bad_body"},
		{"bad grant", `{"id":"id-1","decision":"allow","grant":"forever"}`, "", http.StatusBadRequest, "bad_body"},
		{"not an object", `["id-1"]`, "", http.StatusBadRequest, "bad_body"},
		{"unknown id", `{"id":"id-99","decision":"allow"}`, "", http.StatusNotFound, "unknown"},
		{"pattern not offered", `{"id":"id-1","decision":"allow","grant":"pattern"}`, "", http.StatusUnprocessableEntity, "not_accepted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sig := tc.sig
			switch sig {
			case "":
				sig = Sign(testSecret, t0, []byte(tc.body))
			case "-":
				sig = ""
			}
			code, status := postCallback(t, h.callback.URL, []byte(tc.body), sig)
			if code != tc.code || status != tc.status {
				t.Fatalf("got %d %s, want %d %s", code, status, tc.code, tc.status)
			}
		})
	}
	select {
	case got := <-res:
		t.Fatalf("a refused answer decided the request: %+v", got.ans)
	default:
	}
	if code, _ := h.answer(t, good, t0, testSecret); code != http.StatusOK {
		t.Fatalf("good answer after the refusals: %d", code)
	}
	if got := waitResult(t, res); got.ans.Decision != Deny || got.ans.By != "webhook" {
		t.Fatalf("got %+v, want deny on webhook", got.ans)
	}
}

func TestWebhookHTTPLimits(t *testing.T) {
	h := newHookRig(t, newFakeClock().Now)
	resp, err := http.Get(h.callback.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: got %d, want 405", resp.StatusCode)
	}
	big := bytes.Repeat([]byte("x"), maxCallbackBody+1)
	if code, _ := postCallback(t, h.callback.URL, big, Sign(testSecret, t0, big)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("big body: got %d, want 413", code)
	}
}

func TestWebhookSendFails(t *testing.T) {
	clock := newFakeClock()
	h := newHookRig(t, clock.Now)
	h.rc.mu.Lock()
	h.rc.status = http.StatusInternalServerError
	h.rc.mu.Unlock()
	r := newRig(t, Config{Channels: []Channel{h.hook}})
	got, err := r.b.Request(context.Background(), cmdAsk("s1", "sudo", "down", "sudo"))
	if got.Decision != Deny || got.Code != CodeUnavailable || err == nil {
		t.Fatalf("got %+v, %v; want deny approval_unavailable", got, err)
	}
	// The failed request's callback is disarmed.
	if code, _ := h.answer(t, `{"id":"id-1","decision":"allow"}`, t0, testSecret); code != http.StatusNotFound {
		t.Errorf("answer to an undelivered request: got %d, want 404", code)
	}
}

func TestWebhookNoRedirect(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	hook, err := NewWebhook(WebhookConfig{URL: redirect.URL, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	err = hook.Send(context.Background(), Ask{ID: "x"}, func(Response) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "status 307") {
		t.Fatalf("send through a redirect: got %v, want status 307", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the redirect target got %d requests, want 0", n)
	}
}

func TestWebhookConfig(t *testing.T) {
	tests := []struct {
		name, url string
		secret    []byte
		wantErr   string // "" means accepted
	}{
		{"https", "https://hooks.example.com/x", testSecret, ""},
		{"http loopback v4", "http://127.0.0.1:9/x", testSecret, ""},
		{"http loopback v6", "http://[::1]:9/x", testSecret, ""},
		{"http localhost", "http://localhost:9/x", testSecret, ""},
		{"http remote", "http://hooks.example.com/x", testSecret, "only to a loopback host"},
		{"user info", "https://user:pw@hooks.example.com/x", testSecret, "user information"},
		{"ftp", "ftp://hooks.example.com/x", testSecret, "want https"},
		{"relative", "/hooks", testSecret, "absolute"},
		{"short secret", "https://hooks.example.com/x", []byte("short"), "at least 32 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewWebhook(WebhookConfig{URL: tc.url, Secret: tc.secret})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "/x")) {
				t.Errorf("error echoes the URL's path or credentials: %v", err)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	body := []byte(`{"id":"a","decision":"allow"}`)
	sig := Sign(testSecret, t0, body)
	tests := []struct {
		name string
		sig  string
		body []byte
		now  time.Time
		ok   bool
	}{
		{"good", sig, body, t0, true},
		{"within tolerance", sig, body, t0.Add(DefaultTolerance), true},
		{"past tolerance", sig, body, t0.Add(DefaultTolerance + time.Second), false},
		{"flipped body byte", sig, []byte(`{"id":"a","decision":"allow "}`), t0, false},
		{"flipped signature digit", sig[:len(sig)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", sig[len(sig)-1])+1)%16]), body, t0, false},
		{"time changed", strings.Replace(sig, "t=", "t=1", 1), body, t0, false},
		{"empty", "", body, t0, false},
		{"no v1", "t=1", body, t0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifySignature(testSecret, tc.sig, tc.body, tc.now, DefaultTolerance)
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("got %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
