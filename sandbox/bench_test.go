//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// Figures for the agent's start and a command's sandbox overhead:
//
//	go test -run='^$' -bench=. -benchtime=20x ./sandbox/
//
// Each reports the median of its runs as median-ns/op next to the mean.

// BenchmarkAgentSandbox starts an agent child that applies its sandbox
// and runs every probe; apply-ns and probes-ns are timed inside the
// child, ns/op is the whole child process.
func BenchmarkAgentSandbox(b *testing.B) {
	requireLandlock(b)
	f := newAgentFixture(b)
	in := agentChildInput{Apply: true, Forbidden: []string{f.workspace, f.home}, Targets: f.targets}
	var apply, probes, total []time.Duration
	for b.Loop() {
		start := time.Now()
		out := runAgentChild(b, in, "x")
		total = append(total, time.Since(start))
		if out.ApplyErr != "" || !out.Report.OK() {
			b.Fatalf("agent sandbox not OK: %s %s", out.ApplyErr, out.Report.Failures())
		}
		apply = append(apply, time.Duration(out.ApplyNs))
		probes = append(probes, time.Duration(out.ProbesNs))
	}
	b.ReportMetric(float64(median(apply)), "apply-median-ns")
	b.ReportMetric(float64(median(probes)), "probes-median-ns")
	b.ReportMetric(float64(median(total)), "process-median-ns")
}

// BenchmarkCommandStart runs /bin/true plainly, under a command sandbox
// (re-exec, Landlock rules around a denied dir, seccomp, exec) and under
// one that also hides the workspace's .parallax (what the engine runs).
func BenchmarkCommandStart(b *testing.B) {
	requireLandlock(b)
	root := b.TempDir()
	for _, d := range []string{"ws/.parallax", "tmp", "home/.ssh"} {
		if err := os.MkdirAll(root+"/"+d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	spec := CommandSpec{Workspace: root + "/ws", TempDir: root + "/tmp", ReadDeny: []string{root + "/home/.ssh"}}
	hidden := spec
	hidden.Hide = []string{root + "/ws/.parallax"}
	isolated := hidden // what the engine runs: every namespace, /proc, private /tmp, masks, limits
	isolated.ReadDeny, isolated.Isolate, isolated.Home = nil, true, root+"/home"
	isolated.Hide = []string{root + "/ws/.parallax", root + "/home/.ssh"}
	runs := []struct {
		name string
		cmd  func() (*exec.Cmd, error)
	}{
		{"plain", func() (*exec.Cmd, error) { return exec.Command("/bin/true"), nil }},
		{"sandboxed", func() (*exec.Cmd, error) {
			return spec.Command(context.Background(), os.Args[0], []string{"/bin/true"})
		}},
		{"hidden", func() (*exec.Cmd, error) { // plus user and mount namespace, mask, capability drop
			return hidden.Command(context.Background(), os.Args[0], []string{"/bin/true"})
		}},
		{"isolated", func() (*exec.Cmd, error) {
			return isolated.Command(context.Background(), os.Args[0], []string{"/bin/true"})
		}},
	}
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				start := time.Now()
				cmd, err := r.cmd()
				if err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				d = append(d, time.Since(start))
			}
			b.ReportMetric(float64(median(d)), "median-ns")
			b.ReportMetric(float64(percentile(d, 95)), "p95-ns")
		})
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}
