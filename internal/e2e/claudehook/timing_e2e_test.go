package claudehook

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e/claudecli"
)

// TimingEnv turns on TestHookOverheadInCLI: the number of scripted Bash
// calls per run. TimingRunsEnv is the number of runs per hook (default 5).
const (
	TimingEnv     = "PARALLAX_CC_E2E_TIMING"
	TimingRunsEnv = "PARALLAX_CC_E2E_TIMING_RUNS"
)

// TestHookOverheadInCLI measures whole `claude -p` runs making N Bash
// calls, with the Parallax hook and with a do-nothing hook (`true`),
// alternating, and logs the medians. It asserts nothing about time.
//
//	PARALLAX_CC_E2E_TIMING=20 go test -count=1 -run TestHookOverheadInCLI -v ./internal/e2e/claudehook/
func TestHookOverheadInCLI(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(TimingEnv))
	if err != nil || n <= 0 {
		t.Skipf("set %s=N (Bash calls per run) to measure", TimingEnv)
	}
	runs := 5
	if r, err := strconv.Atoi(os.Getenv(TimingRunsEnv)); err == nil && r > 0 {
		runs = r
	}
	var script []claudecli.Turn
	for i := range n {
		script = append(script, bash(fmt.Sprintf("toolu_%d", i), fmt.Sprintf("echo step-%d", i)))
	}
	envs := map[string]*env{"parallax": newEnv(t, hookParallax, nil), "true": newEnv(t, hookTrue, nil)}
	times := map[string][]time.Duration{}
	for range runs {
		for _, name := range []string{"parallax", "true"} {
			e := envs[name]
			res, _ := e.run(script...)
			for i := range n {
				if r := e.result(fmt.Sprintf("toolu_%d", i)); r.IsError {
					t.Fatalf("%s hook: call %d refused: %+v", name, i, r)
				}
			}
			times[name] = append(times[name], res.Elapsed)
		}
	}
	med, low := map[string]time.Duration{}, map[string]time.Duration{}
	for name, d := range times {
		slices.Sort(d)
		med[name], low[name] = d[len(d)/2], d[0]
		t.Logf("%-8s hook: %d runs of %d Bash calls: median %v (min %v, max %v)", name, runs, n, med[name], d[0], d[len(d)-1])
	}
	t.Logf("difference of medians: %v per run, %v per Bash call (a PreToolUse and a PostToolUse hook process each)",
		med["parallax"]-med["true"], (med["parallax"]-med["true"])/time.Duration(n))
	t.Logf("difference of minimums: %v per Bash call", (low["parallax"]-low["true"])/time.Duration(n))
}
