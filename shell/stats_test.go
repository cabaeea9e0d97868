package shell

import (
	"os"
	"sort"
	"strings"
	"testing"
)

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
