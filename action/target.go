package action

import (
	"encoding/json"
	"strings"
)

// targetFields are the payload fields that say what an action acts on,
// in the order they are chosen: a command, a URL, a path, a copy's source
// and destination, an MCP server's tool, a message's recipient, a query.
var targetFields = [...]string{"command", "url", "path", "source", "destination", "server", "tool", "agent", "to", "key", "query"}

// Target is what an action with this JSON payload acts on, in one line
// for people (the audit listing, a client's summary of a call): its first
// two target fields joined by " → ", blanks collapsed. "" when the payload
// names none or does not decode. It is not redacted: callers that keep or
// show it pass it through DLP.
func Target(payload []byte) string {
	if len(payload) == 0 || len(payload) > 1<<20 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(payload, &m) != nil {
		return ""
	}
	var parts []string
	for _, f := range targetFields {
		var v string
		if raw, ok := m[f]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
			parts = append(parts, v)
		}
		if len(parts) == 2 {
			break
		}
	}
	t := strings.Join(parts, " → ")
	if len(t) > 600 {
		t = t[:600]
	}
	return strings.Join(strings.Fields(t), " ")
}
