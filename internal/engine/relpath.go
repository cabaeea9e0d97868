package engine

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/action"
)

// resolveRelative makes the relative path fields of a proposal absolute
// under the workspace: the agent is told its relative paths are taken
// from there, and the gate judges absolute paths only. "~" forms are the
// gate's to expand. A payload that does not decode, or has nothing
// relative, is returned as it is (the gate then refuses it with its own
// reason); nothing else in it changes.
func resolveRelative(typ string, payload json.RawMessage, workspace string) json.RawMessage {
	act, err := action.Decode(typ, payload)
	if err != nil {
		return payload
	}
	changed := false
	for _, pf := range act.Payload.PathFields() {
		p := *pf.Path
		if p == "" || filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") {
			continue
		}
		*pf.Path = filepath.Join(workspace, p)
		changed = true
	}
	if !changed {
		return payload
	}
	out, err := json.Marshal(act.Payload)
	if err != nil {
		return payload
	}
	return out
}
