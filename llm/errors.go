package llm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Kind is a stable reason code for a failed call. Callers switch on it;
// audit records and tests use the strings.
type Kind string

// Failure kinds.
const (
	KindConfig       Kind = "config"             // the model is not usable as configured (missing key, bad base URL)
	KindInvalid      Kind = "invalid_request"    // the request was rejected before sending
	KindRateLimited  Kind = "rate_limited"       // HTTP 429
	KindServer       Kind = "server_error"       // HTTP 5xx (529 overloaded included)
	KindAuth         Kind = "auth"               // HTTP 401/403
	KindRejected     Kind = "rejected"           // any other 3xx/4xx
	KindTimeout      Kind = "timeout"            // an attempt exceeded the model's timeout
	KindCanceled     Kind = "canceled"           // the caller's context ended
	KindTransport    Kind = "transport"          // connection refused, reset, cut before an answer
	KindMalformed    Kind = "malformed_response" // the answer does not parse or is incomplete
	KindStreamBroken Kind = "stream_broken"      // a stream failed after it had delivered events
)

// Error is a failed call. Its message names the model, the provider and
// what went wrong; it never contains the API key (only the name of the
// environment variable that holds it).
type Error struct {
	Kind     Kind
	Model    string // pool entry name
	Provider ProviderKind
	// StatusCode is the HTTP status of the last attempt, 0 without one.
	StatusCode int
	// RetryAfter is what the server asked to wait, 0 when it did not say.
	RetryAfter time.Duration
	// Retryable reports whether sending the same request again may succeed.
	Retryable bool
	// Attempts is how many requests were sent.
	Attempts int
	// Detail is a short, sanitised explanation.
	Detail string
	err    error // context errors and sentinels only, for errors.Is
}

// Error renders "llm MODEL (PROVIDER): KIND: detail [after N attempts]".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("llm ")
	b.WriteString(strconv.Quote(e.Model))
	if e.Provider != "" {
		b.WriteString(" (" + string(e.Provider) + ")")
	}
	b.WriteString(": " + string(e.Kind))
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap exposes context errors (context.Canceled,
// context.DeadlineExceeded) and this package's sentinels.
func (e *Error) Unwrap() error { return e.err }

// ErrMissingKey is wrapped by errors for an API key environment
// variable that is unset or empty.
var ErrMissingKey = errors.New("api key environment variable is not set")

// ErrNotLoopback is wrapped by errors for an unauthenticated endpoint
// that is, or resolves to, something other than loopback.
var ErrNotLoopback = errors.New("unauthenticated endpoint is not loopback")

// maxDetail bounds the length of Error.Detail.
const maxDetail = 300

// sanitize makes server-provided text safe to put in an error: the
// secret (if any) removed, control characters dropped, length bounded.
func sanitize(s, secret string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, s)
	// Redact after dropping control characters (which could otherwise
	// split the key and join it back) and before cutting (which could
	// leave a prefix of it).
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	s = strings.TrimSpace(s)
	if len(s) > maxDetail {
		cut := maxDetail
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// statusKind maps an HTTP status to a kind and whether it is retried.
func statusKind(code int) (Kind, bool) {
	switch {
	case code == 429:
		return KindRateLimited, true
	case code == 408:
		return KindTimeout, true
	case code == 401 || code == 403:
		return KindAuth, false
	case code >= 500:
		return KindServer, true
	}
	return KindRejected, false
}
