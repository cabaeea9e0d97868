package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// TestMeasureRuntime prints what the runtime costs, with real processes
// and the scripted model:
//
//	PARALLAX_MEASURE=300 go test ./internal/engine -run TestMeasureRuntime -count=1 -v
//
// agent start (spawn → Hello → sandbox report → Welcome) over several
// spawns, the idle agent's RSS, and per tool call: proposal received →
// executor entered, and proposal received → verdict and result sent,
// p50 and p99 over PARALLAX_MEASURE calls (list_directory, 10 per model
// answer). PARALLAX_MEASURE_SANDBOX=on runs the agent in its kernel
// sandbox: its start then includes applying it and the probes.
func TestMeasureRuntime(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PARALLAX_MEASURE"))
	if n <= 0 {
		t.Skip("set PARALLAX_MEASURE=CALLS to measure")
	}
	mode := ""
	if os.Getenv("PARALLAX_MEASURE_SANDBOX") == "on" {
		mode = "on"
	}
	const perAnswer = 10
	rounds := (n + perAnswer - 1) / perAnswer
	var script strings.Builder
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n", agent: "  max_tool_rounds: 500\n  restart_budget: 20\n", mode: mode})
	for range rounds {
		script.WriteString("  - tool_calls: [")
		for i := range perAnswer {
			if i > 0 {
				script.WriteString(", ")
			}
			fmt.Fprintf(&script, "{name: list_directory, input: {path: %q}}", e.root)
		}
		script.WriteString("]\n")
	}
	script.WriteString("  - text: done\n")
	writeFile(t, scriptPath(t, e), "turns:\n"+script.String())

	var mu sync.Mutex
	var starts, toExec, total []time.Duration
	var entered time.Time
	welcomed := make(chan struct{}, 32)
	e.rt.onWelcome = func(d time.Duration) {
		mu.Lock()
		starts = append(starts, d)
		mu.Unlock()
		welcomed <- struct{}{}
	}
	e.rt.onProposal = func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		total = append(total, d)
		toExec = append(toExec, entered.Sub(time.Now().Add(-d)))
	}
	inner := e.rt.pipe.cfg.Executors[action.ListDirectory]
	e.rt.pipe.cfg.Executors[action.ListDirectory] = timedExecutor{inner: inner.(*filesExecutor), enter: func() {
		mu.Lock()
		entered = time.Now()
		mu.Unlock()
	}}
	e.start(t)
	ctx := context.Background()
	waitFor(t, welcomed, "agent welcome")
	for range 5 { // more spawns for the start time
		st, err := e.client.Status(ctx, &pb.StatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(int(st.GetAgentPid()), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, welcomed, "agent welcome")
	}
	waitAgent(t, e)
	st, err := e.client.Status(ctx, &pb.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	idle := rss(t, int(st.GetAgentPid()))
	began := time.Now()
	_, evs := e.turn(t, "", "list it many times", false)
	turn := time.Since(began)
	if evs[len(evs)-1].GetResponseComplete() == nil {
		t.Fatalf("the turn ended with %v", evs[len(evs)-1])
	}
	after := rss(t, int(st.GetAgentPid()))
	e.stop(t)
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("agent start (spawn → welcome), %d spawns: p50 %v, max %v\n", len(starts), pct(starts, 50), pct(starts, 100))
	fmt.Printf("idle agent RSS: %d KiB (after %d calls: %d KiB)\n", idle, len(total), after)
	fmt.Printf("per call, proposal received → executor entered: p50 %v, p99 %v (n=%d)\n", pct(toExec, 50), pct(toExec, 99), len(toExec))
	fmt.Printf("per call, proposal received → verdict and result sent: p50 %v, p99 %v\n", pct(total, 50), pct(total, 99))
	fmt.Printf("whole turn: %v for %d calls and %d model answers through the engine: %v per call\n", turn, len(total), rounds+1, turn/time.Duration(max(len(total), 1)))
}

// timedExecutor notes when the files executor is entered, after the
// pipeline prepared it.
type timedExecutor struct {
	inner *filesExecutor
	enter func()
}

func (x timedExecutor) Prepare(ctx context.Context, act *action.Action) (Plan, error) {
	return x.inner.Prepare(ctx, act)
}

func (x timedExecutor) Execute(ctx context.Context, c Call) (Result, error) {
	x.enter()
	return x.inner.Execute(ctx, c)
}

// waitAgent waits until a welcomed agent is there.
func waitAgent(t *testing.T, e *rtEnv) {
	t.Helper()
	if _, err := e.rt.waitAgent(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

// rss reads VmRSS of pid in KiB.
func rss(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
