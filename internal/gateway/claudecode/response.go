package claudecode

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// ResponseText is the text of a tool_response that the agent sees: every
// string value in it, in a stable order (object keys sorted), joined by
// newlines. A response that is a JSON string is that string; one that is
// not JSON at all is taken as it is. Binary blobs are left out (values of
// a "base64" key, and "data" of an object whose "type" is image, audio or
// base64): they are not text a DLP scanner can judge, and what the agent
// reads as text is all here.
//
// Taking every string, rather than picking fields per tool, means a tool
// whose response shape changes cannot hide a secret from classification;
// at worst the session is tainted by text the agent did not read (Edit's
// originalFile, which it had to Read first).
func ResponseText(resp json.RawMessage) string {
	body := bytes.TrimSpace(resp)
	if len(body) == 0 || bytes.Equal(body, []byte("null")) {
		return ""
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return string(body)
	}
	var sb strings.Builder
	collectText(&sb, v)
	return sb.String()
}

func collectText(sb *strings.Builder, v any) {
	switch t := v.(type) {
	case string:
		if t == "" {
			return
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(t)
	case []any:
		for _, e := range t {
			collectText(sb, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		blob := isBlob(t)
		for _, k := range keys {
			if k == "base64" || (blob && k == "data") {
				continue
			}
			collectText(sb, t[k])
		}
	}
}

// isBlob reports whether an object is a binary content block.
func isBlob(m map[string]any) bool {
	typ, _ := m["type"].(string)
	switch typ {
	case "image", "audio", "base64":
		return true
	}
	return false
}
