package shield

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/parallax/parallax/verdict"
)

// CommandRequest wraps a raw shell command as an execute_command request,
// as an agent sends it: the gate analyses it in its own workspace. (A
// "cd <ws> &&" prefix would change what the command means: "cd ws && a;
// b" runs b even when the cd fails.)
func CommandRequest(cmd string) Request {
	payload, _ := json.Marshal(map[string]string{"command": cmd}) // strings always marshal
	return Request{Type: "execute_command", Payload: payload}
}

// Sample is one evaluated command with its verdict.
type Sample struct {
	Command string
	Verdict verdict.Verdict
}

// Stats summarises a run over many commands.
type Stats struct {
	N                        int
	Allow, Escalate, Block   int
	P50, P90, P99, Max       time.Duration // from the verdicts' ns field
	Wall                     time.Duration
	PerSecond                float64
	ByRule                   map[string]int // decision/rule → count
	Blocked, Escalated       []Sample
	Slowest                  []Sample // the 20 slowest, slowest first
	DecidedShare, AllowShare float64
}

// fresh gives a *Gate a fresh session memory: unrelated commands are not
// one history whose file labels would carry from one to the next.
func fresh(ev Evaluator) Evaluator {
	if g, ok := ev.(*Gate); ok {
		return g.Fresh()
	}
	return ev
}

// RunCommands evaluates each command in the evaluator's workspace, on one goroutine, and
// summarises decisions and latency; each is judged on its own (fresh).
// progress, when set, is called every 1000 commands.
func RunCommands(ctx context.Context, ev Evaluator, cmds []string, progress func(done int)) Stats {
	st := Stats{N: len(cmds), ByRule: map[string]int{}}
	ns := make([]int64, 0, len(cmds))
	reqs := make([]Request, len(cmds))
	for i, c := range cmds {
		reqs[i] = CommandRequest(c)
	}
	start := time.Now()
	for i, r := range reqs {
		v := fresh(ev).Evaluate(ctx, r)
		ns = append(ns, v.NS)
		st.ByRule[v.Decision.String()+" "+v.Rule]++
		switch v.Decision {
		case verdict.Allow:
			st.Allow++
		case verdict.Escalate:
			st.Escalate++
			st.Escalated = append(st.Escalated, Sample{cmds[i], v})
		case verdict.Block:
			st.Block++
			st.Blocked = append(st.Blocked, Sample{cmds[i], v})
		}
		if progress != nil && (i+1)%1000 == 0 {
			progress(i + 1)
		}
	}
	st.Wall = time.Since(start)
	st.Slowest = slowest(cmds, reqs, ev, ctx)
	if st.N == 0 {
		return st
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	pct := func(p float64) time.Duration { return time.Duration(ns[int(p*float64(len(ns)-1))]) }
	st.P50, st.P90, st.P99, st.Max = pct(0.50), pct(0.90), pct(0.99), time.Duration(ns[len(ns)-1])
	st.PerSecond = float64(st.N) / st.Wall.Seconds()
	st.DecidedShare = float64(st.Allow+st.Block) / float64(st.N)
	st.AllowShare = float64(st.Allow) / float64(st.N)
	return st
}

// slowest re-times every command once more and keeps the 20 slowest.
func slowest(cmds []string, reqs []Request, ev Evaluator, ctx context.Context) []Sample {
	out := make([]Sample, 0, 21)
	for i, r := range reqs {
		v := fresh(ev).Evaluate(ctx, r)
		if len(out) == 20 && v.NS <= out[19].Verdict.NS {
			continue
		}
		out = append(out, Sample{cmds[i], v})
		sort.Slice(out, func(a, b int) bool { return out[a].Verdict.NS > out[b].Verdict.NS })
		if len(out) > 20 {
			out = out[:20]
		}
	}
	return out
}

// Fastest evaluates each command n times in a row and returns the
// percentiles of each command's fastest ns: the gate's own cost, with the
// interruptions of a shared machine (which stretch a single pass) taken
// out. p holds the fractions asked for (0.5 for the median).
func Fastest(ctx context.Context, ev Evaluator, cmds []string, n int, p ...float64) []time.Duration {
	best := make([]int64, len(cmds))
	for i, c := range cmds {
		r := CommandRequest(c)
		for k := 0; k < n; k++ {
			if ns := fresh(ev).Evaluate(ctx, r).NS; k == 0 || ns < best[i] {
				best[i] = ns
			}
		}
	}
	sort.Slice(best, func(i, j int) bool { return best[i] < best[j] })
	out := make([]time.Duration, len(p))
	for j, f := range p {
		if len(best) > 0 {
			out[j] = time.Duration(best[int(f*float64(len(best)-1))])
		}
	}
	return out
}

// Stalls measures how often this machine takes the CPU away from a
// running thread: it reads the clock in a tight loop for d and counts,
// per threshold, the gaps between two readings at least that long, as a
// rate per second. An evaluation that such a gap hits takes that much
// longer, so the rates put a single pass's tail in context. now is the
// clock (time.Now outside tests).
func Stalls(now func() time.Time, d time.Duration, thresholds ...time.Duration) []float64 {
	counts := make([]int, len(thresholds))
	start := now()
	last := start
	for {
		t := now()
		gap := t.Sub(last)
		last = t
		for i, th := range thresholds {
			if gap >= th {
				counts[i]++
			}
		}
		if t.Sub(start) >= d {
			break
		}
	}
	secs := last.Sub(start).Seconds()
	out := make([]float64, len(thresholds))
	for i, n := range counts {
		if secs > 0 {
			out[i] = float64(n) / secs
		}
	}
	return out
}
