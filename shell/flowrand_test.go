package shell

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e"
)

var (
	flowrandN    = flag.Int("flowrand.n", 500, "random programs TestFlowRandomAgainstBash runs")
	flowrandSeed = flag.Uint64("flowrand.seed", 1, "seed of TestFlowRandomAgainstBash's programs")
	flowrandMax  = flag.Int("flowrand.reports", 5, "failing programs TestFlowRandomAgainstBash shrinks and reports")
)

// TestFlowRandomAgainstBash holds the analysis to bash on random programs
// (flowgen_test.go): every file named mark that bash creates must be a
// write the analysis names (the path or a glob matching it), unless the
// analysis is unknown (opaque or a dynamic command). A failing program is
// shrunk to a minimal one before it is reported. How often the analysis
// is unknown where bash touched one path is logged, not asserted:
//
//	go test ./shell -run FlowRandom -v -flowrand.n 5000 | grep precision
func TestFlowRandomAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	e2e.Need(t, err, "bash")
	env := newFlowEnv(t, bash)
	maxReports := *flowrandMax
	var st flowStats
	failed := 0
	for i := range *flowrandN {
		g := &flowGen{r: rand.New(rand.NewPCG(*flowrandSeed, uint64(i)))}
		p := g.program()
		r := env.check(t, p.String())
		st.add(r)
		if r.problem == "" {
			continue
		}
		failed++
		if failed > maxReports {
			continue
		}
		small := shrinkFlow(p, func(q *gprog) bool { return env.check(t, q.String()).problem != "" })
		r = env.check(t, small.String())
		t.Errorf("program %d (seed %d) shrunk to:\n%s%s", i, *flowrandSeed, small, r.problem)
	}
	if failed > maxReports {
		t.Errorf("%d more programs failed", failed-maxReports)
	}
	t.Logf("%d programs: %d made no mark, %d one, %d several", *flowrandN, st.none, st.one, st.many)
	if st.one > 0 {
		t.Logf("precision: unknown in %d of %d programs whose bash run made one mark (%.1f%%)",
			st.oneUnknown, st.one, 100*float64(st.oneUnknown)/float64(st.one))
	}
}

// flowStats counts the outcomes of the programs.
type flowStats struct {
	none, one, many, oneUnknown int
}

func (s *flowStats) add(r flowResult) {
	switch len(r.made) {
	case 0:
		s.none++
	case 1:
		s.one++
		if r.unknown {
			s.oneUnknown++
		}
	default:
		s.many++
	}
}

// flowEnv runs programs in bash, each in a fresh directory tree.
type flowEnv struct {
	bash string
	base string // parent of the per-program roots
	shim string // directory of the touch guard, first in PATH
	path string
	drop bool // run bash as nobody (the test runs as root)
	n    int
}

// touchGuard stands first in PATH for touch: it refuses, and notes in
// $FLOWROOT/escaped, any path outside the temporary root, so that a
// generator bug cannot write elsewhere.
const touchGuard = `#!/bin/sh
for f do
	case $f in /*) p=$f ;; *) p=$PWD/$f ;; esac
	case $p in
	*/../*|*/..) ;;
	"$FLOWROOT"/*) continue ;;
	esac
	echo "$p" >> "$FLOWROOT/escaped"
	exit 1
done
exec %s "$@"
`

func newFlowEnv(t *testing.T, bash string) *flowEnv {
	t.Helper()
	touch, err := exec.LookPath("touch")
	e2e.Need(t, err, "touch")
	base := t.TempDir()
	e := &flowEnv{bash: bash, base: base, shim: filepath.Join(base, "bin")}
	if err := os.Mkdir(e.shim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.shim, "touch"), fmt.Appendf(nil, touchGuard, touch), 0o755); err != nil {
		t.Fatal(err)
	}
	e.path = e.shim + string(os.PathListSeparator) + os.Getenv("PATH")
	if _, err := exec.LookPath("setpriv"); err == nil && os.Geteuid() == 0 {
		// As nobody, a bug in a program cannot write outside the root:
		// the directories leading to it must let nobody in.
		for _, d := range []string{filepath.Dir(base), base} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		e.drop = true
	}
	return e
}

// flowResult is what one program did and what the analysis said.
type flowResult struct {
	made    []string // marks bash created, relative to the root
	unknown bool     // the analysis is unknown (opaque, dynamic command)
	problem string   // why the analysis is wrong; "" when it is sound
}

// check runs prog in bash in a fresh tree and holds the analysis to it.
func (e *flowEnv) check(t *testing.T, prog string) flowResult {
	t.Helper()
	e.n++
	root := filepath.Join(e.base, fmt.Sprintf("r%d", e.n))
	defer os.RemoveAll(root)
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{root, ws, filepath.Join(ws, "build"), filepath.Join(ws, "sub"), home, filepath.Join(home, "build")} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil { // past the umask: nobody writes here
			t.Fatal(err)
		}
	}
	for f, text := range map[string]string{"list": "build\nsub\n", "a.txt": "", "b.txt": "", "inc.sh": "d=sub\n"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := e.run(prog, root, ws, home)
	if errors.Is(err, context.DeadlineExceeded) {
		return flowResult{problem: "bash did not finish: the generator made a program that does not end\n" + out}
	}
	if b, err := os.ReadFile(filepath.Join(root, "escaped")); err == nil {
		return flowResult{problem: "bash wrote outside the root: the generator is wrong: " + string(b)}
	}
	var r flowResult
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "mark" {
			r.made = append(r.made, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	eff := Analyze(prog, Options{Cwd: ws, Home: home})
	r.unknown = eff.Has(TagOpaque) || eff.Has(TagDynamicCommand)
	for _, f := range r.made {
		if !namesWrite(eff, f) && !r.unknown {
			r.problem += fmt.Sprintf("bash wrote %s; the analysis names %v and is not unknown (tags %v)\n",
				rel(root, f), relAll(root, writes(eff)), eff.Tags)
		}
	}
	slices.Sort(r.made)
	return r
}

// run runs prog in bash with the workspace as its directory. The
// deadline only tells a program that never ends (a generator bug) from
// one that does: every program ends within milliseconds.
func (e *flowEnv) run(prog, root, ws, home string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{e.bash, "--noprofile", "--norc", "-c", prog}
	if e.drop {
		args = append([]string{"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + e.path, "FLOWROOT=" + root, "LC_ALL=C"}
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // a failing command is part of the program
	return out.String(), ctx.Err()
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func relAll(root string, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = rel(root, p)
	}
	return out
}

// shrinkFlow deletes statements from p while it still fails.
func shrinkFlow(p *gprog, fails func(*gprog) bool) *gprog {
	for {
		smaller := false
		for _, n := range p.nodes() {
			if q := p.without(n); fails(q) {
				p, smaller = q, true
				break
			}
		}
		if !smaller {
			return p
		}
	}
}
