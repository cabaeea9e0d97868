package action

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Hash returns "sha256:<hex>" over the canonical form of {type, payload}.
//
// Typed payloads are Go structs: encoding/json writes their fields in a
// fixed order, maps with sorted keys and integers as digits, so their
// encoding is already canonical. Free-form JSON (mcp_call arguments) is
// re-encoded with sorted keys and one spelling per number.
func Hash(a *Action) (string, error) {
	if p, ok := a.Payload.(*ExecuteCommandPayload); ok && p.TimeoutSeconds == 0 {
		if h, ok := hashCommand(a.Type, p.Command); ok {
			return h, nil
		}
	}
	return hashSlow(a)
}

// hashSlow is Hash through encoding/json, for every payload.
func hashSlow(a *Action) (string, error) {
	var buf bytes.Buffer
	buf.Grow(256)
	buf.WriteString(`{"payload":`)
	if p, ok := a.Payload.(*MCPCallPayload); ok {
		if err := writeMCP(&buf, p); err != nil {
			return "", fmt.Errorf("hash %s: %w", a.Type, err)
		}
	} else {
		raw, err := json.Marshal(a.Payload)
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", a.Type, err)
		}
		buf.Write(raw)
	}
	buf.WriteString(`,"type":`)
	writeString(&buf, string(a.Type))
	buf.WriteByte('}')
	sum := sha256.Sum256(buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// writeMCP writes an mcp_call payload with its arguments canonical.
func writeMCP(buf *bytes.Buffer, p *MCPCallPayload) error {
	var args any = map[string]any{}
	if len(p.Arguments) > 0 {
		dec := json.NewDecoder(bytes.NewReader(p.Arguments))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return err
		}
	}
	buf.WriteString(`{"arguments":`)
	if err := writeCanonical(buf, args); err != nil {
		return err
	}
	buf.WriteString(`,"server":`)
	writeString(buf, p.Server)
	buf.WriteString(`,"tool":`)
	writeString(buf, p.Tool)
	buf.WriteByte('}')
	return nil
}

// writeCanonical encodes v with sorted keys, no white space, and numbers
// in one spelling (integers as digits, others in shortest exponent form).
func writeCanonical(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case string:
		writeString(buf, t)
	case json.Number:
		s, err := canonicalNumber(t)
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, t[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("unexpected JSON value %T", v)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // strings always marshal
	buf.Write(b)
}

// canonicalNumber maps 1, 1.0, 1e0 and 10e-1 to "1", and every other
// spelling of the same float64 to one form. Numbers beyond float64 keep
// their literal spelling (no big-number arithmetic on attacker input).
func canonicalNumber(n json.Number) (string, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return string(n), nil
		}
		return "", fmt.Errorf("bad number %q", n)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), nil
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// ErrHashMismatch is returned when an action changed between proposal and
// execution.
var ErrHashMismatch = errors.New("action changed since it was evaluated")

// Verify recomputes the hash of a and compares it, in constant time, with
// the hash recorded at proposal. Execution must not proceed on error.
func Verify(a *Action, proposed string) error {
	h, err := Hash(a)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(h), []byte(proposed)) != 1 {
		return fmt.Errorf("%w: evaluated %s, executing %s", ErrHashMismatch, proposed, h)
	}
	return nil
}

// hashCommand is Hash for the commonest action, a plain command, without
// reflection: the bytes hashed are those json.Marshal writes (checked
// against it in TestHashCommandAgrees and FuzzHashCommand). ok is false
// for a command it does not spell the same way for sure (control
// characters other than tab and newlines, bytes beyond ASCII).
func hashCommand(t Type, cmd string) (string, bool) {
	var arr [384]byte
	b := append(arr[:0], `{"payload":{"command":`...)
	b, ok := appendJSONASCII(b, cmd)
	if !ok {
		return "", false
	}
	b = append(b, `},"type":`...)
	if b, ok = appendJSONASCII(b, string(t)); !ok {
		return "", false
	}
	b = append(b, '}')
	sum := sha256.Sum256(b)
	var out [7 + 2*sha256.Size]byte
	copy(out[:], "sha256:")
	hex.Encode(out[7:], sum[:])
	return string(out[:]), true
}

// appendJSONASCII appends s as encoding/json writes a string (HTML
// characters escaped) when s is printable ASCII, tabs and newlines.
func appendJSONASCII(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '<':
			b = append(b, `\u003c`...)
		case c == '>':
			b = append(b, `\u003e`...)
		case c == '&':
			b = append(b, `\u0026`...)
		case c < 0x20 || c >= 0x7f:
			return b, false
		default:
			b = append(b, c)
		}
	}
	return append(b, '"'), true
}
