package judge

import (
	"crypto/subtle"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/parallax/parallax/verdict"
)

// Reasons an answer is refused (all end as BLOCK).
var (
	errCanary    = errors.New("the answer does not open with the canary")
	errMalformed = errors.New("the answer is not in the required form")
)

// maxAnswer bounds what is parsed of an answer; maxReasonLen what is kept
// of its reason.
const (
	maxAnswer    = 4096
	maxReasonLen = 300
)

// answer is a parsed reply.
type answer struct {
	decision   verdict.Decision
	confidence float64 // -1 when the profile does not ask for one
	reason     string
}

// parseAnswer checks the canary on the first line (constant time) and
// reads exactly one decision, an optional confidence and one reason.
// Anything more, less or different is an error.
func parseAnswer(text, canary string, wantConfidence bool) (answer, error) {
	if len(text) > maxAnswer {
		return answer{}, errMalformed
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	want := 3
	if wantConfidence {
		want = 4
	}
	if len(lines) == 0 {
		return answer{}, errCanary
	}
	got, ok := strings.CutPrefix(lines[0], "CANARY:")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(canary)) != 1 {
		return answer{}, errCanary
	}
	if len(lines) != want {
		return answer{}, errMalformed
	}
	a := answer{confidence: -1}
	d, ok := strings.CutPrefix(lines[1], "DECISION:")
	if !ok {
		return answer{}, errMalformed
	}
	switch strings.TrimSpace(d) {
	case "ALLOW":
		a.decision = verdict.Allow
	case "BLOCK":
		a.decision = verdict.Block
	case "ESCALATE":
		a.decision = verdict.Escalate
	default:
		return answer{}, errMalformed
	}
	next := 2
	if wantConfidence {
		c, ok := strings.CutPrefix(lines[2], "CONFIDENCE:")
		if !ok {
			return answer{}, errMalformed
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
		// Written so that NaN fails it: NaN < 0 and NaN > 1 are both
		// false, and a NaN confidence would pass every later threshold.
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !(f >= 0 && f <= 1) {
			return answer{}, errMalformed
		}
		a.confidence, next = f, 3
	}
	r, ok := strings.CutPrefix(lines[next], "REASON:")
	if r = strings.TrimSpace(r); !ok || r == "" {
		return answer{}, errMalformed
	}
	if len(r) > maxReasonLen {
		r = r[:maxReasonLen] + "..."
	}
	a.reason = oneLine(r)
	return a, nil
}
