package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
	"unicode/utf8"
)

// parseFast reads a line that is in canonical form, without encoding/json:
// it walks the members in their fixed order and accepts exactly the
// canonical spelling, so the hash is computed over the line's own bytes.
// Anything else returns ok=false and parseLine falls back to the strict
// decoder, which says what is wrong. FuzzParseAgree checks that the two
// accept the same lines and read them the same.
func parseFast(line []byte) (e Entry, ok bool) {
	s := fastScanner{b: line}
	var ts string
	if !s.lit(`{"v":1,"seq":`) || !s.uint(&e.Seq) || !s.lit(`,"time":`) || !s.str(&ts) ||
		!s.lit(`,"type":`) || !s.str((*string)(&e.Type)) {
		return Entry{}, false
	}
	s.optStr(`,"session":`, &e.Session)
	s.optStr(`,"action":`, &e.ActionType)
	s.optStr(`,"action_hash":`, &e.ActionHash)
	s.optStr(`,"decision":`, &e.Decision)
	s.optStr(`,"stage":`, &e.Stage)
	var tier int64
	s.optInt(`,"tier":`, &tier)
	s.optStr(`,"rule":`, &e.Rule)
	s.optStr(`,"reason":`, &e.Reason)
	if s.peek(`,"detail":{`) {
		s.detail(&e.Detail)
	}
	end := 0
	if !s.lit(`,"prev":`) || !s.str(&e.Prev) {
		return Entry{}, false
	}
	end = s.i
	if !s.lit(`,"hash":`) || !s.str(&e.Hash) || !s.lit("}") || s.i != len(line) || !s.ok() {
		return Entry{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	var tb [48]byte
	if err != nil || string(t.UTC().AppendFormat(tb[:0], time.RFC3339Nano)) != ts || checkTime(t) != nil {
		return Entry{}, false
	}
	e.Version, e.Time, e.Tier = Version, t.UTC(), int(tier)
	if e.Seq == 0 || tier > 3 || !validHash(e.Prev) || !validHash(e.Hash) || checkFields(&e) != nil {
		return Entry{}, false
	}
	if !hashMatches(line[:end], e.Hash) {
		return Entry{}, false
	}
	return e, true
}

// hashMatches reports whether SHA-256(body + "}") is the valid hash h.
func hashMatches(body []byte, h string) bool {
	var want, got [sha256.Size]byte
	if _, err := hex.Decode(want[:], []byte(h[len(hashPrefix):])); err != nil {
		return false
	}
	d := sha256.New()
	d.Write(body)
	d.Write([]byte{'}'})
	return [sha256.Size]byte(d.Sum(got[:0])) == want
}

// fastScanner walks a line; the first mismatch makes every later step fail.
// first is set at the start of an object, whose first member has no comma.
type fastScanner struct {
	b     []byte
	i     int
	bad   bool
	first bool
}

func (s *fastScanner) ok() bool { return !s.bad }

// peek reports whether lit comes next, without consuming it.
func (s *fastScanner) peek(lit string) bool {
	return !s.bad && len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit
}

// lit consumes lit or fails.
func (s *fastScanner) lit(lit string) bool {
	if !s.peek(lit) {
		s.bad = true
		return false
	}
	s.i += len(lit)
	return true
}

// uint reads a canonical non-negative integer: 0, or no leading zero.
func (s *fastScanner) uint(v *uint64) bool {
	start, n := s.i, uint64(0)
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if n > (1<<64-1-d)/10 {
			s.bad = true
			return false
		}
		n = n*10 + d
		s.i++
	}
	if s.i == start || (s.b[start] == '0' && s.i-start > 1) {
		s.bad = true
		return false
	}
	*v = n
	return !s.bad
}

// member consumes key (",name:" or, first in an object, "name:") if it
// comes next.
func (s *fastScanner) member(key string) bool {
	if s.first {
		key = key[1:]
	}
	if !s.peek(key) {
		return false
	}
	s.i += len(key)
	s.first = false
	return true
}

// optInt reads `key` and a non-zero int64 if key comes next.
func (s *fastScanner) optInt(key string, v *int64) {
	if !s.member(key) {
		return
	}
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	var u uint64
	if !s.uint(&u) || u == 0 || u > 1<<63-1 {
		s.bad = true
		return
	}
	*v = int64(u)
	if neg {
		*v = -*v
	}
}

// optStr reads `key` and a non-empty string if key comes next.
func (s *fastScanner) optStr(key string, v *string) {
	if !s.member(key) {
		return
	}
	if s.str(v) && *v == "" {
		s.bad = true
	}
}

// str reads a canonically escaped string of valid UTF-8.
func (s *fastScanner) str(v *string) bool {
	if !s.lit(`"`) {
		return false
	}
	var out []byte
	run := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"' && out == nil: // no escapes: one allocation
			raw := s.b[run:s.i]
			s.i++
			if !utf8.Valid(raw) {
				s.bad = true
				return false
			}
			*v = string(raw)
			return true
		case c == '"':
			out = append(out, s.b[run:s.i]...)
			s.i++
			if !utf8.Valid(out) {
				s.bad = true
				return false
			}
			*v = string(out)
			return true
		case c < 0x20:
			s.bad = true
			return false
		case c == '\\':
			out = append(out, s.b[run:s.i]...)
			r, ok := s.escape()
			if !ok {
				return false
			}
			out = append(out, r)
			run = s.i
		default:
			s.i++
		}
	}
	s.bad = true
	return false
}

// escape reads \" \\ or \u00xx (lower-case hex, below 0x20).
func (s *fastScanner) escape() (byte, bool) {
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 2 && (rest[1] == '"' || rest[1] == '\\'):
		s.i += 2
		return rest[1], true
	case len(rest) >= 6 && string(rest[1:4]) == "u00" && (rest[4] == '0' || rest[4] == '1') && isLowerHex(rest[5]):
		s.i += 6
		return (rest[4]-'0')<<4 | unhex(rest[5]), true
	}
	s.bad = true
	return 0, false
}

func isLowerHex(c byte) bool { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// detail reads the detail object.
func (s *fastScanner) detail(d *Detail) {
	s.i += len(`,"detail":{`)
	s.first = true
	s.optStr(`,"code":`, &d.Code)
	s.optStr(`,"message":`, &d.Message)
	s.optStr(`,"path":`, &d.Path)
	s.optStr(`,"target":`, &d.Target)
	s.optStr(`,"ref":`, &d.Ref)
	if s.member(`,"labels":[`) {
		for first := true; s.ok() && (first || s.peek(",")); first = false {
			if !first {
				s.i++
			}
			var l string
			s.str(&l)
			d.Labels = append(d.Labels, l)
		}
		s.lit("]")
	}
	s.optInt(`,"offset":`, &d.Offset)
	s.optInt(`,"length":`, &d.Length)
	s.optInt(`,"count":`, &d.Count)
	s.optInt(`,"exit_code":`, &d.ExitCode)
	s.optInt(`,"duration_ms":`, &d.DurationMS)
	s.optInt(`,"bytes_up":`, &d.BytesUp)
	s.optInt(`,"bytes_down":`, &d.BytesDown)
	if s.first || d.empty() { // "{}" is not canonical
		s.bad = true
	}
	s.first = false
	s.lit("}")
}
