package shield

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/verdict"
)

func TestZZTail(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	guard.ShareFilesystemReads()
	cmds := nl2bash(t)
	g := newTestGate(t, "default")
	ctx := context.Background()
	type row struct {
		c string
		d time.Duration
	}
	rows := make([]row, len(cmds))
	for i, c := range cmds {
		r := CommandRequest(testWS, c)
		best := time.Hour
		for k := 0; k < 5; k++ {
			if d := time.Duration(g.Fresh().Evaluate(ctx, r).NS); d < best {
				best = d
			}
		}
		rows[i] = row{c, best}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].d > rows[b].d })
	n := len(rows)
	t.Logf("p50 %v p90 %v p95 %v p99 %v", rows[n/2].d, rows[n/10].d, rows[n/20].d, rows[n/100].d)
	var sb strings.Builder
	for _, r := range rows[:n/50] {
		sb.WriteString(r.c + "\n")
	}
	os.WriteFile("/tmp/tail.cm", []byte(sb.String()), 0o644)
	var sb2 strings.Builder
	for _, r := range rows[:30] {
		sb2.WriteString(r.d.String() + "  " + r.c + "\n")
	}
	t.Log("\n" + sb2.String())
}

func TestZZStages(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	guard.ShareFilesystemReads()
	b, _ := os.ReadFile(os.Getenv("ZZFILE"))
	cmds := strings.Split(strings.TrimSpace(string(b)), "\n")
	g := newTestGate(t, "default")
	per := make([][]time.Duration, len(g.stages))
	orig := g.stages
	g.stages = make([]stage, len(orig))
	for i, s := range orig {
		i, s := i, s
		g.stages[i] = stage{s.name, func(g *Gate, st *state) (v verdict.Verdict, d bool) {
			t0 := time.Now()
			v, d = s.run(g, st)
			per[i] = append(per[i], time.Since(t0))
			return
		}}
	}
	ctx := context.Background()
	for k := 0; k < 3; k++ {
		for _, c := range cmds {
			g.Fresh().Evaluate(ctx, CommandRequest(testWS, c))
		}
	}
	for i, s := range orig {
		x := per[i]
		if len(x) == 0 {
			continue
		}
		sort.Slice(x, func(a, b int) bool { return x[a] < x[b] })
		t.Logf("%d %-10s p50 %v p90 %v p99 %v", i, s.name, x[len(x)/2], x[len(x)*9/10], x[len(x)*99/100])
	}
}

func BenchmarkZZFile(b *testing.B) {
	guard.ShareFilesystemReads()
	bs, _ := os.ReadFile(os.Getenv("ZZFILE"))
	cmds := strings.Split(strings.TrimSpace(string(bs)), "\n")
	g := newTestGate(b, "default")
	reqs := make([]Request, len(cmds))
	for i, c := range cmds {
		reqs[i] = CommandRequest(testWS, c)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		g.Evaluate(ctx, reqs[i%len(reqs)])
		i++
	}
}
