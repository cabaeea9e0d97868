package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/sandbox"
)

// BenchmarkCommandSandbox runs /bin/true and `go test` of a small module
// plainly and through the production hook (plan from the analysis, the
// secret walk, overlays, pids cgroup, the isolated wrapper), and reports
// the median and p95 of each:
//
//	go test -run='^$' -bench=CommandSandbox -benchtime=20x -count=3 ./internal/engine/
func BenchmarkCommandSandbox(b *testing.B) {
	if err := sandbox.Available(); err != nil {
		b.Skip(err)
	}
	ws, home := b.TempDir(), b.TempDir()
	writeFile(b, filepath.Join(ws, ".parallax", "api.token"), "t\n")
	writeFile(b, filepath.Join(ws, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	writeFile(b, filepath.Join(ws, "m.go"), "package m\n\nfunc Add(a, b int) int { return a + b }\n")
	writeFile(b, filepath.Join(ws, "m_test.go"), "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n")
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	caches := []string{filepath.Join(home, ".cache", "go-build"), filepath.Join(home, "go", "pkg")}
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: ws, Home: home, Self: self, Caches: caches,
		Unreadable: guard.New(ws, home).Unreadable(), TempRoot: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go toolchain")
	}
	env := []string{"HOME=" + home, "PATH=" + filepath.Dir(gobin) + ":/usr/bin:/bin", "GOTOOLCHAIN=local", "GOPROXY=off",
		"GOFLAGS=-count=1"}
	for _, c := range []struct{ name, decided, script string }{
		{"true", "true", "true"},
		{"gotest", "go test ./...", "go test ./..."},
	} {
		for _, sandboxed := range []bool{false, true} {
			name := c.name + "/plain"
			if sandboxed {
				name = c.name + "/sandboxed"
			}
			b.Run(name, func(b *testing.B) {
				var d []time.Duration
				for b.Loop() {
					start := time.Now()
					cmd := exec.Command("/bin/sh", "-c", c.script)
					cmd.Dir, cmd.Env = ws, env
					var done func() SandboxEnd
					if sandboxed {
						act := &action.Action{Type: action.ExecuteCommand, Payload: &action.ExecuteCommandPayload{Command: c.decided}}
						wrap, dn, err := hook(act)
						if err != nil {
							b.Fatal(err)
						}
						done = dn
						if err := wrap(cmd); err != nil {
							b.Fatal(err)
						}
					}
					out, err := cmd.CombinedOutput()
					if done != nil {
						done()
					}
					if err != nil {
						b.Fatalf("%v: %s", err, out)
					}
					d = append(d, time.Since(start))
				}
				s := slices.Clone(d)
				slices.Sort(s)
				b.ReportMetric(float64(s[len(s)/2]), "median-ns")
				b.ReportMetric(float64(s[(len(s)-1)*95/100]), "p95-ns")
			})
		}
	}
}
