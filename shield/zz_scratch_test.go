package shield

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

func TestScratchMinLatency(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	b, _ := os.ReadFile("../../shared/corpora/nl2bash/all.cm")
	cmds := strings.Split(strings.TrimSpace(string(b)), "\n")
	g := newTestGate(t, "default")
	type r struct {
		c  string
		ns int64
	}
	var rs []r
	for _, c := range cmds {
		req := CommandRequest(testWS, c)
		m := int64(1 << 62)
		for k := 0; k < 5; k++ {
			v := g.Evaluate(context.Background(), req)
			m = min(m, v.NS)
		}
		rs = append(rs, r{c, m})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ns < rs[j].ns })
	p := func(q float64) int64 { return rs[int(q*float64(len(rs)-1))].ns }
	fmt.Printf("min-of-5: p50 %d p90 %d p99 %d max %d\n", p(.5), p(.9), p(.99), rs[len(rs)-1].ns)
	for _, x := range rs[len(rs)-60:] {
		fmt.Printf("%8d %s\n", x.ns, x.c)
	}
	var sb strings.Builder
	for _, x := range rs[len(rs)-250:] {
		sb.WriteString(x.c + "\n")
	}
	os.WriteFile("/tmp/tail.txt", []byte(sb.String()), 0o600)
}

func BenchmarkScratchTail(b *testing.B) {
	tb, _ := os.ReadFile("/tmp/tail.txt")
	cmds := strings.Split(strings.TrimSpace(string(tb)), "\n")
	_ = []string{
		`find . -iname "*.mov" -exec /path/to/myffmpeg.sh {} \;`,
		`find -name '*.[ch]' | xargs grep -E 'expr'`,
		`find / -name "*.md" -type f -exec sh -c 'markdown "$0" > "$0.html"' {} \;`,
		`find . -iname "*.jar" | xargs zipinfo`,
		`find lib etc debian -name "*.sh" -type f | xargs chmod +x`,
		`find / -iname "*.what_to_find" -type f -exec mv {} /new_directory \;`,
		`for filename in *.jpg; do mv "$filename" "prefix_$filename"; done;`,
		`find ~/ -name *.png -exec cp {} imagesdir \;`,
		`find . -iname *.js -type f -exec sed 's/^\xEF\xBB\xBF//' -i.bak {} \; -exec rm {}.bak \;`,
		`rsync --blocking-io *.cc *.h SConstruct rsync://localhost:40001/bledge_ce`,
	}
	g := newTestGate(b, "default")
	reqs := make([]Request, len(cmds))
	for i, c := range cmds {
		reqs[i] = CommandRequest(testWS, c)
	}
	for b.Loop() {
		for _, r := range reqs {
			g.Evaluate(context.Background(), r)
		}
	}
}

func TestScratchActivity(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	b, _ := os.ReadFile("../../shared/corpora/nl2bash/all.cm")
	cmds := strings.Split(strings.TrimSpace(string(b)), "\n")
	g := newTestGate(t, "default")
	for _, c := range cmds {
		g.Evaluate(context.Background(), CommandRequest(testWS, c))
	}
	es, _ := g.ifc.Store().ActivityUnder(context.Background(), "/", 0)
	fmt.Println("entries", len(es))
	for i, e := range es {
		if i%50 == 0 {
			fmt.Println(e.Path, e.Level, e.Source)
		}
	}
}
