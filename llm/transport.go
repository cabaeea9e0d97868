package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxErrorBody bounds how much of an error response is kept.
const maxErrorBody = 64 << 10

// DefaultMaxResponseBytes bounds one response body.
const DefaultMaxResponseBytes = 32 << 20

// errTooLarge is the read error of a body over the limit.
var errTooLarge = errors.New("response body over the size limit")

// observer records what the transport saw for one attempt, whatever the
// SDK on top makes of it: the status, the headers that say when to
// retry, the start of an error body, and whether reading the body broke.
// The SDKs' own errors differ per provider; the observer is what errors
// are classified from.
type observer struct {
	mu       sync.Mutex
	status   int
	header   http.Header
	body     []byte
	readErr  error
	tooLarge bool
}

type observation struct {
	status   int
	header   http.Header
	body     []byte
	readErr  error
	tooLarge bool
}

func (o *observer) snapshot() observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return observation{status: o.status, header: o.header, body: o.body, readErr: o.readErr, tooLarge: o.tooLarge}
}

type observerKey struct{}

func withObserver(ctx context.Context, o *observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// observingTransport feeds the attempt's observer and bounds bodies.
type observingTransport struct {
	base    http.RoundTripper
	maxBody int64
}

// RoundTrip sends req; an error status has its body read (bounded) and
// recorded, a success has its body wrapped to record read failures and
// to stop at the size limit.
func (t *observingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	o, _ := req.Context().Value(observerKey{}).(*observer)
	if o == nil {
		o = &observer{}
	}
	o.mu.Lock()
	o.status, o.header = resp.StatusCode, resp.Header.Clone()
	o.mu.Unlock()
	if resp.StatusCode >= 300 {
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = resp.Body.Close() // the body was read; a close error changes nothing
		o.mu.Lock()
		o.body, o.readErr = body, rerr
		o.mu.Unlock()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		return resp, nil
	}
	resp.Body = &observedBody{rc: resp.Body, o: o, left: t.maxBody}
	return resp, nil
}

// observedBody records the first read error other than io.EOF and fails
// reads beyond the size limit.
type observedBody struct {
	rc   io.ReadCloser
	o    *observer
	left int64
}

func (b *observedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.fail(errTooLarge, true)
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		b.fail(err, false)
	}
	return n, err
}

func (b *observedBody) fail(err error, tooLarge bool) {
	b.o.mu.Lock()
	defer b.o.mu.Unlock()
	if b.o.readErr == nil {
		b.o.readErr = err
	}
	b.o.tooLarge = b.o.tooLarge || tooLarge
}

func (b *observedBody) Close() error { return b.rc.Close() }

// newHTTPClient builds the client of one pool entry: its own connection
// pool, no redirects (a key must not follow one to another host), no
// proxy for loopback, and a dialer that only reaches loopback when the
// endpoint is a loopback one.
func newHTTPClient(ep endpoint, maxBody int64) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if ep.loopback {
		dialer.Control = loopbackOnly
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if ep.loopback {
		tr.Proxy = nil
	}
	return &http.Client{
		Transport: &observingTransport{base: tr, maxBody: maxBody},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
