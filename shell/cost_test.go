package shell

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/benchscript"
)

// analyseState analyses cmd like Analyze and returns the analyzer as it
// stands at the end (not recycled), for tests of its state.
func analyseState(cmd string) (*analyzer, *Effects) {
	eff := new(Effects)
	a := analyzerPool.New().(*analyzer)
	a.start(eff, corpusOpt)
	a.shellCode(cmd, nil, "")
	return a, eff
}

// TestVariableSourcesStayASet forbids a variable's data sources from
// growing with the number of times it is joined or reassigned from
// itself: x=$x$x, an if whose branches assign it, or a loop, repeated k
// times, held 2^k copies of the same source (a 900-line script took a
// minute, x=$x$x thirty times never ended).
func TestVariableSourcesStayASet(t *testing.T) {
	const k = 6
	for name, rep := range map[string]string{
		"self concatenation": "x=$x$x\n",
		"if join":            "if [ -f c ]; then x=$x$y; else y=$y$x; fi\n",
		"and-or join":        "[ -f c ] && x=$x$y || y=$x$y\n",
		"case join":          "case $1 in a) x=$x$y;; *) y=$y$x;; esac\n",
		"loop":               "for i in 1 2; do x=$x$y; y=$y$x; done\n",
		"read loop":          "while read -r l; do x=\"$x $l $y\"; done < c\n",
	} {
		t.Run(name, func(t *testing.T) {
			a, _ := analyseState("x=$(cat a); y=$(cat b)\n" + strings.Repeat(rep, k))
			for _, v := range []string{"x", "y"} {
				_, srcs, _ := a.getVar(v)
				if len(srcs) > 3 {
					t.Errorf("$%s holds %d sources after %d rounds, want at most 3 (a, b, c): %v", v, len(srcs), k, srcs[:3])
				}
				for i := range srcs {
					if slices.Contains(srcs[:i], srcs[i]) {
						t.Fatalf("$%s holds %v twice", v, srcs[i])
					}
				}
			}
		})
	}
}

// TestWordSizeIsBounded forbids a value that doubles at each assignment
// from being built past the bound: v1="$v0; $v0" fourteen times is 114 KB
// of code for eval (thirty times, 7 GB). Past the bound the value is
// unknown and the analysis says so; the gate blocks what exceeds a bound.
func TestWordSizeIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("v0='cat a'\n")
	for i := 1; i <= 14; i++ {
		fmt.Fprintf(&b, "v%d=\"$v%d; $v%d\"\n", i, i-1, i-1)
	}
	b.WriteString("eval \"$v14\"\n")
	a, eff := analyseState(b.String())
	if !slices.Contains(eff.Tags, Tag{Kind: TagLimitExceeded, Detail: "word size"}) {
		t.Errorf("tags %v: want a word size limit", eff.Tags)
	}
	for _, v := range a.vars {
		if len(v.w.Value) > maxDecoded {
			t.Errorf("$%s holds %d bytes, want at most %d", v.name, len(v.w.Value), maxDecoded)
		}
	}
}

// TestScriptWalkIsLinear forbids the walk of a realistic script from
// growing faster than the script: the nodes visited for 200 lines are at
// most 1.5 times ten times those of 20 lines, and no bound is hit.
func TestScriptWalkIsLinear(t *testing.T) {
	nodes := map[int]int{}
	for _, n := range []int{20, 200} {
		a, eff := analyseState(benchscript.Script(n))
		for _, tg := range eff.Tags {
			if tg.Kind == TagLimitExceeded {
				t.Fatalf("%d lines: %v, want the script analysed whole", n, tg)
			}
		}
		if len(eff.Execs) < n/2 {
			t.Fatalf("%d lines: %d programs run, want at least %d", n, len(eff.Execs), n/2)
		}
		nodes[n] = a.nodes
	}
	if nodes[200] > 15*nodes[20] {
		t.Errorf("nodes walked: %d for 20 lines, %d for 200, want at most 15 times as many", nodes[20], nodes[200])
	}
}

// TestReplacementIsBoundedBeforeItIsBuilt forbids ${x//a/$x} from
// allocating its result before its size is checked: over a 32 KB x of
// a's the result is 1 GB. The analysis of the whole command must
// allocate less than 64 MB.
func TestReplacementIsBoundedBeforeItIsBuilt(t *testing.T) {
	cmd := "x=a" + strings.Repeat("; x=$x$x", 15) + "; y=${x//a/$x}; echo ${#y}"
	Analyze("x=a; y=${x//a/b}", corpusOpt) // warm the pools
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Analyze(cmd, corpusOpt)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("analysis allocated %d MB, want under 64", n>>20)
	}
}
