package approval

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries the HMAC of a webhook body, both ways: on the
// requests Parallax sends and on the answers it accepts.
const SignatureHeader = "X-Parallax-Signature"

// EventHeader names what a webhook POST carries: "approval.requested" or
// "approval.resolved".
const EventHeader = "X-Parallax-Event"

// MinSecretLen is the shortest shared webhook secret accepted.
const MinSecretLen = 32

// DefaultTolerance is how far a signature's time may be from now.
const DefaultTolerance = 5 * time.Minute

// ErrBadSignature is returned when a signature is missing, malformed,
// stale or does not match. The error says which, never the expected value.
var ErrBadSignature = errors.New("bad webhook signature")

// Sign returns the SignatureHeader value for body sent at t:
//
//	t=<unix seconds>,v1=<hex of HMAC-SHA256(secret, "<unix seconds>." + body)>
//
// The time is signed with the body, so a captured answer cannot be
// replayed outside the tolerance window.
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// VerifySignature checks a SignatureHeader value against body: well
// formed, signed within tolerance of now, and the MAC equal (compared in
// constant time).
func VerifySignature(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, sig, ok := parseSignature(header)
	if !ok {
		return fmt.Errorf("%w: want t=<unix seconds>,v1=<64 hex>", ErrBadSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: bad time", ErrBadSignature)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: signed %s from now, outside %s", ErrBadSignature, d.Round(time.Second), tolerance)
	}
	if !hmac.Equal(sig, mac(secret, ts, body)) {
		return fmt.Errorf("%w: mismatch", ErrBadSignature)
	}
	return nil
}

// parseSignature splits "t=…,v1=…".
func parseSignature(h string) (ts string, sig []byte, ok bool) {
	t, v, found := strings.Cut(h, ",")
	if !found {
		return "", nil, false
	}
	ts, ok1 := strings.CutPrefix(strings.TrimSpace(t), "t=")
	hx, ok2 := strings.CutPrefix(strings.TrimSpace(v), "v1=")
	if !ok1 || !ok2 || len(hx) != 2*sha256.Size || ts == "" || len(ts) > 19 {
		return "", nil, false
	}
	sig, err := hex.DecodeString(hx)
	if err != nil {
		return "", nil, false
	}
	return ts, sig, true
}
