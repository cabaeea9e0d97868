package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
)

// BenchmarkHandleOverhead measures the engine's overhead per tool call:
// from the proposal received by Handle to the moment the executor is
// entered (decode, the real gate with its durable audit entry, the
// executor lookup, the hash re-check, the durable ActionStarted entry),
// on a real workspace with a no-op executor. It reports the median and
// the 99th percentile over the run:
//
//	go test -run '^$' -bench HandleOverhead -benchtime 3000x ./internal/engine
func BenchmarkHandleOverhead(b *testing.B) {
	cases := []struct {
		name, typ string
		payload   func(e *env) any
	}{
		{"read_file", "read_file", func(e *env) any { return map[string]any{"path": filepath.Join(e.root, "main.go")} }},
		{"execute_command", "execute_command", func(e *env) any { return map[string]any{"command": "cd " + e.root + " && go test ./..."} }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var entered time.Time
			noop := ExecutorFunc(func(context.Context, Call) (Result, error) {
				entered = time.Now()
				return Result{Output: "ok"}, nil
			})
			e := newEnv(b, envOptions{executors: map[action.Type]Executor{action.Type(c.typ): noop}})
			raw, err := json.Marshal(c.payload(e))
			if err != nil {
				b.Fatal(err)
			}
			pr := Proposal{Session: "bench", CallID: "c", Type: c.typ, Payload: raw}
			ctx := context.Background()
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				out := e.p.Handle(ctx, pr)
				if !out.Executed {
					b.Fatalf("not executed: %+v", out.Verdict)
				}
				lat = append(lat, entered.Sub(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs/call")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs/call")
		})
	}
}
