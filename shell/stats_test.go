package shell

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCorpusLatency prints the analyser's latency percentiles over the
// corpus (PX_STATS=1).
func TestCorpusLatency(t *testing.T) {
	if os.Getenv("PX_STATS") == "" {
		t.Skip("set PX_STATS=1")
	}
	lines := loadCorpus(t)
	for _, l := range lines {
		Analyze(l, corpusOpt) // warm up pools
	}
	ds := make([]time.Duration, len(lines))
	for i, l := range lines {
		start := time.Now()
		Analyze(l, corpusOpt)
		ds[i] = time.Since(start)
	}
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return ds[idx[i]] < ds[idx[j]] })
	n := len(idx)
	t.Logf("p50 %v p90 %v p99 %v max %v", ds[idx[n/2]], ds[idx[n*9/10]], ds[idx[n*99/100]], ds[idx[n-1]])
	for _, i := range idx[n-5:] {
		t.Logf("%v %s", ds[i], lines[i])
	}
}

// TestSlowInputs times the fuzzer's cached inputs (PX_FUZZDIR=dir).
func TestSlowInputs(t *testing.T) {
	dir := os.Getenv("PX_FUZZDIR")
	if dir == "" {
		t.Skip("set PX_FUZZDIR")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		_, q, _ := strings.Cut(s, "string(")
		q = strings.TrimSuffix(strings.TrimSpace(q), ")")
		cmd, err := strconv.Unquote(q)
		if err != nil {
			continue
		}
		start := time.Now()
		Analyze(cmd, tOpt)
		if d := time.Since(start); d > 20*time.Millisecond {
			t.Logf("%v %s %q", d, e.Name(), cmd)
		}
	}
}

// TestCorpusStats prints which tags make corpus commands undecidable
// (PX_STATS=1 go test ./shell -run CorpusStats -v). It asserts nothing.
func TestCorpusStats(t *testing.T) {
	if os.Getenv("PX_STATS") == "" {
		t.Skip("set PX_STATS=1")
	}
	lines := loadCorpus(t)
	count := map[string]int{}
	ex := map[string]string{}
	for _, l := range lines {
		e := Analyze(l, corpusOpt)
		seen := map[string]bool{}
		for _, tg := range e.Tags {
			if tg.Kind != TagOpaque && tg.Kind != TagDynamicCommand && tg.Kind != TagEval {
				continue
			}
			d := tg.Detail
			if i := strings.IndexByte(d, ':'); i > 0 {
				d = d[:i]
			}
			k := tg.Kind.String() + " " + tg.Program + " " + d
			if seen[k] {
				continue
			}
			seen[k] = true
			count[k]++
			if _, ok := ex[k]; !ok {
				ex[k] = l
			}
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return count[keys[i]] > count[keys[j]] })
	for i, k := range keys {
		if i > 60 {
			break
		}
		t.Logf("%5d %-60s e.g. %s", count[k], k, ex[k])
	}
	if want := os.Getenv("PX_STATS_KEY"); want != "" {
		n := 0
		for _, l := range lines {
			e := Analyze(l, corpusOpt)
			for _, tg := range e.Tags {
				if strings.HasPrefix(tg.Kind.String()+" "+tg.Program+" "+tg.Detail, want) && n < 25 {
					t.Logf("EX %s", l)
					n++
					break
				}
			}
		}
	}
}
