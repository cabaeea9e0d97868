package shell

import (
	"fmt"
	"testing"

	"github.com/parallax/parallax/internal/benchscript"
)

// BenchmarkAnalyzeScript analyses realistic scripts of 20, 60, 200 and
// 1000 lines; ns/line stays about the same when the cost is linear (before
// the sources of a variable were a set, 800 lines took 4 s and 900 lines
// 55 s):
//
//	go test ./shell -run='^$' -bench=AnalyzeScript -benchmem
func BenchmarkAnalyzeScript(b *testing.B) {
	for _, n := range []int{20, 60, 200, 1000} {
		s := benchscript.Script(n)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Analyze(s, corpusOpt)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}
