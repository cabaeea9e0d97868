// Package verdict holds the decision types every Shield stage speaks: the
// three-valued Decision, the named Stage, and the Verdict written to callers.
//
// It is a leaf: it imports nothing of ours. Decisions are ordered by
// severity (ALLOW < ESCALATE < BLOCK) so that combining the outcomes of
// several checks is a max, and an unknown or zero value is never ALLOW.
package verdict

import (
	"encoding/json"
	"fmt"
)

// Decision is the outcome of a check. The zero value is Block, so a
// Decision that was never set fails closed.
type Decision uint8

const (
	// Block refuses the action.
	Block Decision = iota
	// Escalate hands the action to a higher tier (judge or human).
	Escalate
	// Allow lets the action run.
	Allow
)

// String returns ALLOW, ESCALATE or BLOCK.
func (d Decision) String() string {
	switch d {
	case Allow:
		return "ALLOW"
	case Escalate:
		return "ESCALATE"
	case Block:
		return "BLOCK"
	}
	return "BLOCK"
}

// Severity orders decisions: Allow 0 < Escalate 1 < Block 2.
func (d Decision) Severity() int {
	switch d {
	case Allow:
		return 0
	case Escalate:
		return 1
	default:
		return 2
	}
}

// Worst returns the more severe of two decisions.
func Worst(a, b Decision) Decision {
	if b.Severity() > a.Severity() {
		return b
	}
	return a
}

// Parse reads ALLOW, ESCALATE or BLOCK.
func Parse(s string) (Decision, error) {
	switch s {
	case "ALLOW":
		return Allow, nil
	case "ESCALATE":
		return Escalate, nil
	case "BLOCK":
		return Block, nil
	}
	return Block, fmt.Errorf("unknown decision %q (want ALLOW, ESCALATE or BLOCK)", s)
}

// MarshalJSON writes the decision as its name.
func (d Decision) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a decision name.
func (d *Decision) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Stage names the pipeline step that decided.
type Stage string

// The stages of DESIGN §1, in pipeline order.
const (
	StageDecode    Stage = "decode"
	StageVerify    Stage = "verify"
	StageGuard     Stage = "guard"
	StageFastPath  Stage = "fastpath"
	StagePolicy    Stage = "policy"
	StageHeuristic Stage = "heuristic"
	StageIFC       Stage = "ifc"
	StageJudge     Stage = "judge"
	StageHuman     Stage = "human"
)

// Verdict is what the gate answers for one action.
type Verdict struct {
	Decision Decision `json:"decision"`
	Stage    Stage    `json:"stage"`
	Tier     int      `json:"tier"`
	Rule     string   `json:"rule"`
	Reason   string   `json:"reason"`
	Hash     string   `json:"hash,omitempty"`
	NS       int64    `json:"ns"`
}
