package shield

import (
	"context"
	"fmt"
	"testing"

	"github.com/parallax/parallax/internal/benchscript"
)

// BenchmarkGateScript judges realistic scripts of 20, 60 and 200 lines
// as one execute_command each; ns/line stays about the same when the
// gate's cost is linear in the script's size:
//
//	go test ./shield -run='^$' -bench=GateScript -benchmem
func BenchmarkGateScript(b *testing.B) {
	g := newTestGate(b, "default")
	for _, n := range []int{20, 60, 200} {
		r := CommandRequest(benchscript.Script(n))
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Fresh().Evaluate(context.Background(), r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}
