package heuristic

import (
	"os"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	cmds := os.Getenv("PROBE")
	if cmds == "" {
		t.Skip()
	}
	for _, c := range strings.Split(cmds, "\n") {
		if c == "" {
			continue
		}
		in := prepare(t, sh(c))
		t.Logf("%s\n   %s", c, describe(in))
	}
}

func TestCorpusProbe(t *testing.T) {
	path := os.Getenv("CORPUS")
	if path == "" {
		t.Skip()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	samples := map[string][]string{}
	total, fired := 0, 0
	for _, c := range strings.Split(string(b), "\n") {
		if c == "" {
			continue
		}
		total++
		in := prepare(t, sh(c))
		f, ok := Evaluate(in)
		if !ok {
			continue
		}
		fired++
		counts[f.Rule.ID]++
		if len(samples[f.Rule.ID]) < 12 {
			samples[f.Rule.ID] = append(samples[f.Rule.ID], c+"   => "+f.Detail)
		}
	}
	t.Logf("total %d fired %d", total, fired)
	for id, n := range counts {
		t.Logf("%s: %d", id, n)
		for _, s := range samples[id] {
			t.Logf("     %s", s)
		}
	}
}
