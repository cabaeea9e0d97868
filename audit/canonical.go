package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Version is the entry format version ("v") this package writes and reads.
const Version = 1

// Genesis is the "prev" of the first entry.
const Genesis = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// hashPrefix starts every hash value.
const hashPrefix = "sha256:"

// hashMember is what the line carries after the canonical bytes.
const hashMember = `,"hash":"`

// hashLen is len(`sha256:`) + 64 hex digits.
const hashLen = len(hashPrefix) + 64

// encodeCanonical appends the canonical encoding of e without its hash:
// the bytes the hash is computed over (doc.go, "Canonical encoding").
func encodeCanonical(buf []byte, e *Entry) []byte {
	buf = append(buf, `{"v":`...)
	buf = strconv.AppendInt(buf, int64(e.Version), 10)
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendUint(buf, e.Seq, 10)
	buf = appendMember(buf, "time", e.Time.UTC().Format(time.RFC3339Nano))
	buf = appendMember(buf, "type", string(e.Type))
	buf = appendOpt(buf, "session", e.Session)
	buf = appendOpt(buf, "action", e.ActionType)
	buf = appendOpt(buf, "action_hash", e.ActionHash)
	buf = appendOpt(buf, "decision", e.Decision)
	buf = appendOpt(buf, "stage", e.Stage)
	buf = appendInt(buf, "tier", int64(e.Tier))
	buf = appendOpt(buf, "rule", e.Rule)
	buf = appendOpt(buf, "reason", e.Reason)
	if !e.Detail.empty() {
		buf = append(buf, `,"detail":`...)
		buf = encodeDetail(buf, &e.Detail)
	}
	buf = appendMember(buf, "prev", e.Prev)
	return append(buf, '}')
}

// encodeDetail appends the detail object; its first member has no comma.
func encodeDetail(buf []byte, d *Detail) []byte {
	start := len(buf)
	buf = append(buf, '{')
	buf = appendOpt(buf, "code", d.Code)
	buf = appendOpt(buf, "message", d.Message)
	buf = appendOpt(buf, "path", d.Path)
	buf = appendOpt(buf, "target", d.Target)
	buf = appendOpt(buf, "ref", d.Ref)
	if len(d.Labels) > 0 {
		buf = append(buf, `,"labels":[`...)
		for i, l := range d.Labels {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, l)
		}
		buf = append(buf, ']')
	}
	buf = appendInt(buf, "offset", d.Offset)
	buf = appendInt(buf, "length", d.Length)
	buf = appendInt(buf, "count", d.Count)
	buf = appendInt(buf, "exit_code", d.ExitCode)
	buf = appendInt(buf, "duration_ms", d.DurationMS)
	buf = appendInt(buf, "bytes_up", d.BytesUp)
	buf = appendInt(buf, "bytes_down", d.BytesDown)
	if buf[start+1] == ',' { // drop the leading comma of the first member
		buf = append(buf[:start+1], buf[start+2:]...)
	}
	return append(buf, '}')
}

func appendMember(buf []byte, key, v string) []byte {
	buf = append(buf, ',', '"')
	buf = append(buf, key...)
	buf = append(buf, '"', ':')
	return appendString(buf, v)
}

func appendOpt(buf []byte, key, v string) []byte {
	if v == "" {
		return buf
	}
	return appendMember(buf, key, v)
}

func appendInt(buf []byte, key string, v int64) []byte {
	if v == 0 {
		return buf
	}
	buf = append(buf, ',', '"')
	buf = append(buf, key...)
	buf = append(buf, '"', ':')
	return strconv.AppendInt(buf, v, 10)
}

// appendString writes s as a JSON string: '"' and '\' are escaped with a
// backslash, bytes below 0x20 as \u00xx (lower-case hex), everything else
// verbatim. s must be valid UTF-8 (sanitize ensures it).
func appendString(buf []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// sumHex returns "sha256:<hex>" of b.
func sumHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hashPrefix + hex.EncodeToString(sum[:])
}

// encodeLine appends the full line for e (canonical bytes, hash member,
// newline) and sets e.Hash.
func encodeLine(buf []byte, e *Entry) []byte {
	start := len(buf)
	buf = encodeCanonical(buf, e)
	e.Hash = sumHex(buf[start:])
	buf = buf[:len(buf)-1] // reopen the object
	buf = append(buf, hashMember...)
	buf = append(buf, e.Hash...)
	return append(buf, '"', '}', '\n')
}

// Line returns the entry as it is stored: canonical bytes, hash member
// and newline. The hash is recomputed from the fields.
func (e Entry) Line() []byte { return encodeLine(nil, &e) }

// MarshalJSON returns the entry's line without the newline. (json.Marshal
// then escapes <, > and &; Line gives the exact stored bytes.)
func (e Entry) MarshalJSON() ([]byte, error) {
	line := encodeLine(nil, &e)
	return line[:len(line)-1], nil
}

// wireEntry is the strict decoding target of a line.
type wireEntry struct {
	V          *int      `json:"v"`
	Seq        uint64    `json:"seq"`
	Time       string    `json:"time"`
	Type       EventType `json:"type"`
	Session    string    `json:"session"`
	Action     string    `json:"action"`
	ActionHash string    `json:"action_hash"`
	Decision   string    `json:"decision"`
	Stage      string    `json:"stage"`
	Tier       int       `json:"tier"`
	Rule       string    `json:"rule"`
	Reason     string    `json:"reason"`
	Detail     *Detail   `json:"detail"`
	Prev       string    `json:"prev"`
	Hash       string    `json:"hash"`
}

// lineError is what parseLine finds wrong; the caller adds the location.
type lineError struct {
	code Code
	msg  string
}

// parseLine decodes one line (without its newline) into an entry and
// checks that it is in canonical form and that its hash is right. The
// fast path accepts canonical lines; the rest goes through parseStrict,
// which names the problem.
func parseLine(line []byte) (Entry, *lineError) {
	if e, ok := parseFast(line); ok {
		return e, nil
	}
	return parseStrict(line)
}

// parseStrict decodes with encoding/json, re-encodes and compares.
func parseStrict(line []byte) (Entry, *lineError) {
	var w wireEntry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Entry{}, &lineError{CodeBadJSON, err.Error()}
	}
	if rest := line[dec.InputOffset():]; len(rest) > 0 {
		if len(bytes.TrimSpace(rest)) == 0 {
			return Entry{}, &lineError{CodeNotCanonical, "white space after the entry"}
		}
		return Entry{}, &lineError{CodeBadJSON, "data after the entry"}
	}
	e, lerr := fromWire(&w)
	if lerr != nil {
		return Entry{}, lerr
	}
	canon := encodeCanonical(make([]byte, 0, len(line)), &e)
	body := canon[:len(canon)-1]
	if !bytes.HasPrefix(line, body) || string(line[len(body):]) != hashMember+w.Hash+`"}` {
		return Entry{}, &lineError{CodeNotCanonical, "entry is not in canonical form (field order, spelling or escaping differ)"}
	}
	if got := sumHex(canon); got != w.Hash {
		return Entry{}, &lineError{CodeHashMismatch, fmt.Sprintf("content hashes to %s, entry says %s", got, w.Hash)}
	}
	e.Hash = w.Hash
	return e, nil
}

// fromWire validates the decoded fields and builds the entry.
func fromWire(w *wireEntry) (Entry, *lineError) {
	bad := func(f string, a ...any) (Entry, *lineError) {
		return Entry{}, &lineError{CodeBadField, fmt.Sprintf(f, a...)}
	}
	if w.V == nil || *w.V != Version {
		return bad("unsupported or missing version \"v\" (want %d)", Version)
	}
	if w.Seq == 0 {
		return bad("missing or zero seq")
	}
	t, err := time.Parse(time.RFC3339Nano, w.Time)
	if err != nil {
		return bad("time %q: not RFC 3339", w.Time)
	}
	if err := checkTime(t); err != nil {
		return bad("%v", err)
	}
	if !w.Type.Known() {
		return bad("unknown event type %q", w.Type)
	}
	if !validHash(w.Prev) || !validHash(w.Hash) {
		return bad("prev and hash must be sha256:<64 lower-case hex>")
	}
	e := Entry{
		Version: Version, Seq: w.Seq, Time: t.UTC(), Type: w.Type, Session: w.Session,
		ActionType: w.Action, ActionHash: w.ActionHash, Decision: w.Decision, Stage: w.Stage,
		Tier: w.Tier, Rule: w.Rule, Reason: w.Reason, Prev: w.Prev,
	}
	if w.Detail != nil {
		e.Detail = *w.Detail
	}
	if err := checkFields(&e); err != nil {
		return bad("%v", err)
	}
	return e, nil
}

// validHash reports whether s is "sha256:" and 64 lower-case hex digits.
func validHash(s string) bool {
	if len(s) != hashLen || s[:len(hashPrefix)] != hashPrefix {
		return false
	}
	for i := len(hashPrefix); i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// validText reports whether s is valid UTF-8 of at most n bytes.
func validText(s string, n int) bool { return len(s) <= n && utf8.ValidString(s) }
