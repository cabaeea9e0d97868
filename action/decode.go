package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxPayloadBytes bounds a payload; larger ones are refused before parsing.
const MaxPayloadBytes = 1 << 20

// Action is a decoded, typed proposal.
type Action struct {
	Type    Type
	Payload Payload
}

// Sink returns the action's sink category.
func (a *Action) Sink() Sink { return SinkOf(a.Type) }

// ErrUnknownType is returned for a type outside the catalog.
var ErrUnknownType = errors.New("unknown action type")

// Decode turns a type name and a raw JSON payload into a typed action.
// Unknown types, unknown fields, duplicated keys, wrong JSON types,
// trailing data and missing required fields are errors.
func Decode(t string, payload json.RawMessage) (*Action, error) {
	typ := Type(t)
	if len(payload) > MaxPayloadBytes {
		return nil, fmt.Errorf("payload is %d bytes, over the %d-byte limit", len(payload), MaxPayloadBytes)
	}
	var p Payload
	if k, ok := core[typ]; ok {
		if typ == ExecuteCommand {
			if fp, ok := fastCommand(payload); ok {
				if err := fp.validate(); err != nil {
					return nil, fmt.Errorf("%s: %w", t, err)
				}
				return &Action{Type: typ, Payload: fp}, nil
			}
		}
		p = k.new()
	} else if e, ok := extended[typ]; ok {
		p = newGeneric(e.fields)
	} else {
		return nil, fmt.Errorf("%w %q", ErrUnknownType, t)
	}
	body := bytes.TrimSpace(payload)
	if len(body) == 0 || bytes.Equal(body, []byte("null")) {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return nil, fmt.Errorf("%s: payload must be a JSON object", t)
	}
	if err := decodeInto(p, body); err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	return &Action{Type: typ, Payload: p}, nil
}

// decodeInto is the general strict decoder: no duplicated key, no
// unknown field, no trailing data, every required field present.
func decodeInto(p Payload, body []byte) error {
	if err := CheckPayloadBounds(body); err != nil {
		return err
	}
	if err := CheckDuplicateKeys(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return cleanJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after payload")
	}
	return p.validate()
}

// cleanJSONError rewords encoding/json's messages to name the field.
func cleanJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("payload field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	msg := err.Error()
	if len(msg) > 5 && msg[:5] == "json:" {
		msg = msg[6:]
	}
	return errors.New(msg)
}

// CheckDuplicateKeys refuses an object with the same key twice at any
// depth: parsers disagree on which copy wins, and a gate must not judge
// one value while an executor runs the other. It runs CheckBounds first,
// so every caller refuses deep nesting and invalid UTF-8 before decoding.
func CheckDuplicateKeys(b []byte) error {
	if err := CheckBounds(b); err != nil {
		return err
	}
	if !json.Valid(b) {
		return dupWalkSlow(b) // names what is wrong
	}
	var st []dupFrame
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			st = append(st, dupFrame{obj: true, wantKey: true})
		case '[':
			st = append(st, dupFrame{})
		case '}', ']':
			st = st[:len(st)-1]
		case ',':
			if n := len(st); n > 0 && st[n-1].obj {
				st[n-1].wantKey = true
			}
		case '"':
			j := stringEnd(b, i)
			if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
				k, err := jsonKey(b[i : j+1])
				if err != nil {
					return err
				}
				if st[n-1].seen(k) {
					return fmt.Errorf("duplicate key %q in payload%s", k, dupPath(st[:n-1]))
				}
				st[n-1].wantKey = false
			}
			i = j
		}
	}
	return nil
}

// dupFrame is one open object or array of CheckDuplicateKeys.
type dupFrame struct {
	obj, wantKey bool
	keys         []string
	set          map[string]struct{} // past 16 keys
	cur          string              // the key whose value is being read
}

// seen records k and reports whether the object had it already.
func (f *dupFrame) seen(k string) bool {
	f.cur = k
	if f.set != nil {
		if _, ok := f.set[k]; ok {
			return true
		}
		f.set[k] = struct{}{}
		return false
	}
	for _, x := range f.keys {
		if x == k {
			return true
		}
	}
	f.keys = append(f.keys, k)
	if len(f.keys) > 16 {
		f.set = make(map[string]struct{}, 2*len(f.keys))
		for _, x := range f.keys {
			f.set[x] = struct{}{}
		}
		f.keys = nil
	}
	return false
}

// dupPath renders where an object sits (".a.b[]"), as the slow walker did.
func dupPath(st []dupFrame) string {
	var b strings.Builder
	for _, f := range st {
		if f.obj {
			b.WriteString("." + f.cur)
		} else {
			b.WriteString("[]")
		}
	}
	return b.String()
}

// stringEnd returns the index of the quote closing the string at b[i]
// (valid JSON).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b) - 1
}

// jsonKey decodes a quoted key; escapes go through encoding/json.
func jsonKey(q []byte) (string, error) {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), nil
	}
	var k string
	if err := json.Unmarshal(q, &k); err != nil {
		return "", fmt.Errorf("invalid JSON key: %w", err)
	}
	return k, nil
}

// dupWalkSlow checks with encoding/json's tokenizer, for input that is not
// valid JSON: its error says what is wrong, or the strict decode that
// follows does (trailing data).
func dupWalkSlow(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var path []string // rendered only on error: no copy per key
	return dupWalk(dec, &path)
}

func dupWalk(dec *json.Decoder, path *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]struct{}{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("invalid JSON: %w", err)
			}
			k, _ := kt.(string)
			if _, dup := seen[k]; dup {
				return fmt.Errorf("duplicate key %q in payload%s", k, strings.Join(*path, ""))
			}
			seen[k] = struct{}{}
			*path = append(*path, "."+k)
			err = dupWalk(dec, path)
			*path = (*path)[:len(*path)-1]
			if err != nil {
				return err
			}
		}
	case '[':
		*path = append(*path, "[]")
		for dec.More() {
			if err := dupWalk(dec, path); err != nil {
				return err
			}
		}
		*path = (*path)[:len(*path)-1]
	}
	_, err = dec.Token() // closing delimiter
	if err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

// URLOf returns the URL a URL-bearing action talks to (http_request,
// browser_navigate, git_clone, and extended types with a "url" field).
func URLOf(a *Action) (string, bool) {
	switch p := a.Payload.(type) {
	case *HTTPRequestPayload:
		return p.URL, true
	case *BrowserNavigatePayload:
		return p.URL, true
	case *GitClonePayload:
		return p.URL, true
	case *GenericPayload:
		if u := p.Get("url"); u != "" {
			return u, true
		}
	}
	return "", false
}

// FileURLPath returns the path of a file URL in a URL-bearing action:
// fetching it is a read of that file. The URL is read by ParseFileURL;
// one whose path parsers disagree on is its WHATWG reading, and one
// that names no local path (another host, a bad escape) is the root, so
// it is never judged as less than it could be.
func FileURLPath(a *Action) (string, bool) {
	raw, ok := URLOf(a)
	if !ok {
		return "", false
	}
	p, file, err := ParseFileURL(raw)
	if !file {
		return "", false
	}
	if err != nil {
		var fe *FileURLError
		if errors.As(err, &fe) && fe.Path != "" {
			return fe.Path, true
		}
		return "/", true
	}
	return p, true
}

// ShellCode returns the shell code an action runs ("" if none):
// execute_command's command and a schedule's command.
func ShellCode(a *Action) string {
	switch p := a.Payload.(type) {
	case *ExecuteCommandPayload:
		return p.Command
	case *CreateSchedulePayload:
		return p.Command
	}
	return ""
}
