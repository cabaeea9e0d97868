package shield

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of the plan check.
const (
	// RuleBadPlan: a request's resolved paths do not belong to its action.
	RuleBadPlan = "bad_plan"
	// RulePathResolved: a path leads out of the workspace for a write, or
	// to a path the guard protects.
	RulePathResolved = "path_resolved_elsewhere"
)

// ResolvedPath is one path of an action as the executor will touch it,
// planned before the decision: the payload field, the path the payload
// names (normalised), where it leads (symlinks resolved), the access the
// action makes and the identity of what is there (device, inode and type
// of each existing component, in the executor's words). The gate judges
// Resolved as well as Path, and the verdict's hash covers both and the
// identity, so a path that resolves differently when the call runs no
// longer matches what was decided.
type ResolvedPath struct {
	Field    string        `json:"field"`
	Path     string        `json:"path"`
	Resolved string        `json:"resolved"`
	Access   action.Access `json:"access,omitempty"`
	Identity string        `json:"identity,omitempty"`
}

// PlanHash is the hash of an action (action.Hash) bound to its plan: the
// action's own hash when there is no plan, else the SHA-256 of the
// action's hash and every path of the plan in order.
func PlanHash(actionHash string, plan []ResolvedPath) string {
	if len(plan) == 0 {
		return actionHash
	}
	h := sha256.New()
	h.Write([]byte("parallax plan v1\x00"))
	h.Write([]byte(actionHash))
	for _, rp := range plan {
		for _, s := range []string{rp.Field, rp.Path, rp.Resolved, rp.Access.String(), rp.Identity} {
			h.Write([]byte{0})
			h.Write([]byte(s))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// judgePlan checks a request's plan against its action and adds every
// path that leads elsewhere to what the later stages judge. A plan entry
// must name a path field of the action with the path the action names;
// a write or delete whose name is in the workspace may not lead out of
// it.
func (g *Gate) judgePlan(st *state) (verdict.Verdict, bool) {
	plan := st.req.Resolved
	if len(plan) == 0 {
		return verdict.Verdict{}, false
	}
	fields := st.act.Payload.PathFields()
	if len(plan) > len(fields) {
		return block(verdict.StageVerify, 0, RuleBadPlan, "the plan names more paths than the action")
	}
	var realWS string
	for _, rp := range plan {
		var named *action.PathField
		for i := range fields {
			if fields[i].Name == rp.Field {
				named = &fields[i]
				break
			}
		}
		if named == nil || *named.Path != rp.Path {
			return block(verdict.StageVerify, 0, RuleBadPlan, "the plan's "+clipField(rp.Field)+" is not a path the action names")
		}
		if rp.Access != named.Access {
			return block(verdict.StageVerify, 0, RuleBadPlan, "the plan's "+clipField(rp.Field)+" has another access than the action's")
		}
		if v, done := g.judgeIdentity(st, rp); done {
			return v, done
		}
		if rp.Resolved == "" || rp.Resolved == rp.Path {
			continue
		}
		if !filepath.IsAbs(rp.Resolved) || filepath.Clean(rp.Resolved) != rp.Resolved {
			return block(verdict.StageVerify, 0, RuleBadPlan, "the plan's "+clipField(rp.Field)+" does not resolve to a clean absolute path")
		}
		if rp.Access&(action.AccessWrite|action.AccessDelete) != 0 {
			if realWS == "" {
				if realWS, _ = filepath.EvalSymlinks(g.ws); realWS == "" {
					realWS = g.ws
				}
			}
			inside := func(p string) bool { return within(p, g.ws) || within(p, realWS) }
			if inside(rp.Path) && !inside(rp.Resolved) {
				return block(verdict.StageGuard, 0, RulePathResolved, clipField(rp.Field)+
					" names a file in the workspace but leads outside it (a symbolic link); refused")
			}
		}
		_, mkdir := st.act.Payload.(*action.CreateDirectoryPayload)
		st.paths = append(st.paths, policy.PathRef{Path: rp.Resolved, Access: rp.Access, Mkdir: mkdir})
	}
	st.resolved = elsewhere(plan)
	st.hash = PlanHash(st.hash, plan)
	return verdict.Verdict{}, false
}

// elsewhere lists the plan's paths that lead elsewhere than named, as
// path fields for the information-flow tracker.
func elsewhere(plan []ResolvedPath) []action.PathField {
	var out []action.PathField
	for _, rp := range plan {
		if rp.Resolved != "" && rp.Resolved != rp.Path {
			resolved := rp.Resolved
			out = append(out, action.PathField{Name: rp.Field, Path: &resolved, Access: rp.Access})
		}
	}
	return out
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

func clipField(s string) string {
	if len(s) > 32 {
		s = s[:32]
	}
	return strings.ToValidUTF8(s, "?")
}

// judgeIdentity judges the file a plan entry ends at by its identity (the
// last "dev:ino:type" of the chain, a regular file): a restricted file
// under another name (a hard link) is judged as that file
// (guard.CheckFileID).
func (g *Gate) judgeIdentity(st *state, rp ResolvedPath) (verdict.Verdict, bool) {
	id, ok := planFileID(rp.Identity)
	if !ok || g.guard == nil {
		return verdict.Verdict{}, false
	}
	p := rp.Resolved
	if p == "" {
		p = rp.Path
	}
	f, hit := g.guard.CheckFileID(p, id, rp.Access)
	switch {
	case !hit || f.Decision == verdict.Allow:
		return verdict.Verdict{}, false
	case f.Decision == verdict.Escalate:
		st.escalate(verdict.StageGuard, 2, f.Rule, f.Reason)
		return verdict.Verdict{}, false
	}
	return block(verdict.StageGuard, 0, f.Rule, f.Reason)
}

// planFileID parses the last component of a plan identity
// ("dev:ino:type/…"), when it is a regular file (type 0).
func planFileID(s string) (guard.FileID, bool) {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[2] != "0" {
		return guard.FileID{}, false
	}
	dev, err1 := strconv.ParseUint(parts[0], 10, 64)
	ino, err2 := strconv.ParseUint(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return guard.FileID{}, false
	}
	return guard.FileID{Dev: dev, Ino: ino}, true
}
