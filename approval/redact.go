package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/dlp"
)

// redactedAll is what is shown when redaction cannot be shown to have
// removed every secret: nothing of the payload.
const redactedAll = `"[REDACTED:dlp]"`

// redactText masks every secret DLP finds in s.
func redactText(d *dlp.Detector, s string) string {
	if s == "" {
		return ""
	}
	out, _ := d.Redact(s)
	return out
}

// RedactPayload is what a channel is shown of a raw action payload (see
// redactPayload): the engine shows its clients' ToolProposed events the
// same way it shows approvals.
func RedactPayload(d *dlp.Detector, raw json.RawMessage) json.RawMessage {
	return redactPayload(d, raw)
}

// redactPayload returns the JSON to show for a raw payload. It decodes the
// payload (so a secret spelled with JSON escapes such as \u0070 is seen as
// it will be rendered), masks secrets in every string and key, re-encodes,
// masks again over the whole text (for secrets known by their context,
// such as "password": "…", or spread over a number), and then checks
// that a fresh scan of the result finds nothing left to mask. If the
// masked text is no longer valid JSON it is shown as one JSON string; if
// anything is left, nothing of the payload is shown.
func redactPayload(d *dlp.Detector, raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`)
	}
	if action.CheckBounds(raw) != nil {
		// The gate refuses such payloads before any approval; should one
		// get here, nothing of it is walked or shown.
		return json.RawMessage(redactedAll)
	}
	v, err := decodeJSON(raw)
	var text string
	if err != nil {
		text = string(raw)
	} else if text, err = encodeJSON(redactValue(d, v)); err != nil {
		return json.RawMessage(redactedAll)
	}
	masked, _ := d.Redact(text)
	if !json.Valid([]byte(masked)) {
		q, err := encodeJSON(masked)
		if err != nil {
			return json.RawMessage(redactedAll)
		}
		masked = q
	}
	if leaks(d, masked) {
		return json.RawMessage(redactedAll)
	}
	return json.RawMessage(masked)
}

// decodeJSON reads exactly one JSON value, numbers kept as written.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// encodeJSON writes v compactly without HTML escapes, so strings hold
// their characters as a reader will see them.
func encodeJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// redactValue masks secrets in every string and object key of v. Keys
// that become equal after masking are told apart with a suffix.
func redactValue(d *dlp.Detector, v any) any {
	switch x := v.(type) {
	case string:
		return redactText(d, x)
	case []any:
		for i := range x {
			x[i] = redactValue(d, x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			rk := redactText(d, k)
			for n := 2; ; n++ {
				if _, dup := out[rk]; !dup {
					break
				}
				rk = redactText(d, k) + "#" + strconv.Itoa(n)
			}
			out[rk] = redactValue(d, e)
		}
		return out
	}
	return v
}

// leaks reports whether a scan of the shown JSON, or of any string in it
// as a reader would decode it, still finds something to mask.
func leaks(d *dlp.Detector, shown string) bool {
	if masks(d.Scan(shown)) {
		return true
	}
	v, err := decodeJSON([]byte(shown))
	if err != nil {
		return true
	}
	return leaksIn(d, v)
}

func leaksIn(d *dlp.Detector, v any) bool {
	switch x := v.(type) {
	case string:
		return masks(d.Scan(x))
	case []any:
		for _, e := range x {
			if leaksIn(d, e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if masks(d.Scan(k)) || leaksIn(d, e) {
				return true
			}
		}
	}
	return false
}

// masks reports whether a scan found anything Redact would mask.
func masks(r dlp.Result) bool {
	for _, f := range r.Findings {
		if f.Action != dlp.Monitor {
			return true
		}
	}
	return false
}
