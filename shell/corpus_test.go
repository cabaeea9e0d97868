package shell

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

const corpusFile = "../../shared/corpora/nl2bash/all.cm"

// loadCorpus reads the nl2bash corpus, one command per line. The
// commands are only ever analysed, never run.
func loadCorpus(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(corpusFile)
	if err != nil {
		tb.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

var corpusOpt = Options{Cwd: "/home/dev/project", Home: "/home/dev"}

// TestCorpusNL2Bash analyses every corpus command: no internal error
// (a recovered panic shows as an "internal error" tag) and bounded
// output. Time is not asserted (a shared or loaded machine makes any bound
// flaky): the slowest command is logged, and BenchmarkAnalyzeNL2Bash measures it.
func TestCorpusNL2Bash(t *testing.T) {
	lines := loadCorpus(t)
	internal := 0
	var slowest time.Duration
	var slowCmd string
	for _, l := range lines {
		start := time.Now()
		e := Analyze(l, corpusOpt)
		if d := time.Since(start); d > slowest {
			slowest, slowCmd = d, l
		}
		for _, tg := range e.Tags {
			if tg.Kind == TagOpaque && tg.Detail == "internal error" {
				internal++
				if internal < 20 {
					t.Errorf("internal error on %q", l)
				}
			}
		}
		if len(e.Paths)+len(e.Execs)+len(e.Tags)+len(e.Network)+len(e.Flows) > 10000 {
			t.Errorf("%q: effects too large", l)
		}
	}
	if internal > 0 {
		t.Errorf("%d internal errors", internal)
	}
	t.Logf("%d commands; slowest %v: %q", len(lines), slowest, slowCmd)
}

// BenchmarkAnalyzeNL2Bash reports the time per command over the corpus.
//
//	go test ./shell -run=^$ -bench=AnalyzeNL2Bash -benchmem
func BenchmarkAnalyzeNL2Bash(b *testing.B) {
	lines := loadCorpus(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, l := range lines {
			Analyze(l, corpusOpt)
		}
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(lines)), "ns/cmd")
}
