//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/e2e"
	"golang.org/x/sys/unix"
)

// requireLandlock skips only where the kernel has no Landlock at all
// (fails under PARALLAX_E2E=require).
func requireLandlock(t testing.TB) {
	t.Helper()
	e2e.Need(t, Support().Usable(), "kernel cannot sandbox")
}

// agentFixture is a fake workspace and home with one file each, a temp
// dir for the write probe, and a loopback listener playing the engine.
type agentFixture struct {
	workspace, home, tmp string
	targets              ProbeTargets
}

func newAgentFixture(t testing.TB) agentFixture {
	t.Helper()
	root := t.TempDir()
	f := agentFixture{
		workspace: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"),
	}
	for _, d := range []string{f.workspace, f.home, f.tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(f.workspace, "main.go"), filepath.Join(f.home, ".bashrc")} {
		if err := os.WriteFile(p, []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.targets = ProbeTargets{
		WorkspaceFile: filepath.Join(f.workspace, "main.go"),
		HomeFile:      filepath.Join(f.home, ".bashrc"),
		TempDir:       f.tmp,
		EngineAddr:    listenLoopback(t),
	}
	return f
}

// runAgentChild starts the test binary as an agent child with one end
// of a unix socketpair on fd 3, as the engine will, writes msg on it,
// and decodes what the child printed. The child answers "ack: "+msg on
// the socket; the answer is checked here.
func runAgentChild(t testing.TB, in agentChildInput, msg string) agentChildOutput {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	engine, agent := os.NewFile(uintptr(fds[0]), "engine"), os.NewFile(uintptr(fds[1]), "agent")
	defer engine.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=agent", "PARALLAX_SANDBOX_TEST_INPUT="+string(raw))
	cmd.ExtraFiles = []*os.File{agent}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	agent.Close()
	if _, err := engine.WriteString(msg); err != nil {
		t.Fatal(err)
	}
	if err := unix.Shutdown(fds[0], unix.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent child: %v\nstderr: %s", err, stderr.String())
	}
	var out agentChildOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("decode child output %q: %v (stderr: %s)", stdout.String(), err, stderr.String())
	}
	answer, err := io.ReadAll(engine)
	if err != nil {
		t.Fatal(err)
	}
	if string(answer) != "ack: "+msg {
		t.Errorf("agent answered %q on its socket, want %q", answer, "ack: "+msg)
	}
	return out
}

func TestAgentSandboxBlocksEveryProbe(t *testing.T) {
	requireLandlock(t)
	cases := []struct {
		name        string
		apply       bool
		wantBlocked bool
	}{
		{"sandboxed", true, true},
		// The negative control: the same probes, unsandboxed, succeed,
		// so a blocked probe above means the sandbox blocked it.
		{"unsandboxed control", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newAgentFixture(t)
			out := runAgentChild(t, agentChildInput{
				Apply: tc.apply, Forbidden: []string{f.workspace, f.home}, Targets: f.targets,
			}, "hello from the engine")
			if out.ApplyErr != "" {
				t.Fatalf("ApplyAgent: %s", out.ApplyErr)
			}
			if out.FromSocket != "hello from the engine" || out.Threads != 8 || out.Alloc != 8 {
				t.Errorf("child stopped working: socket %q, threads %d, alloc %d", out.FromSocket, out.Threads, out.Alloc)
			}
			if len(out.Probes) != len(ProbeNames()) {
				t.Fatalf("got %d probes, want %d", len(out.Probes), len(ProbeNames()))
			}
			t.Logf("report: %+v", out.Report)
			wantSignal := "<nil>"
			if tc.apply && out.Report.Scoped {
				wantSignal = unix.EPERM.Error()
			}
			if out.SignalParent != wantSignal {
				t.Errorf("kill(parent, 0): got %s, want %s", out.SignalParent, wantSignal)
			}
			for i, p := range out.Probes {
				if p.Name != ProbeNames()[i] {
					t.Errorf("probe %d: got %s, want %s", i, p.Name, ProbeNames()[i])
				}
				if p.Blocked != tc.wantBlocked {
					t.Errorf("probe %s: blocked %v, want %v (%s)", p.Name, p.Blocked, tc.wantBlocked, p.Detail)
				}
			}
			if got := out.Report.OK(); got != tc.wantBlocked {
				t.Errorf("Report.OK() = %v, want %v (failures: %s)", got, tc.wantBlocked, out.Report.Failures())
			}
			entries, err := os.ReadDir(f.tmp)
			if err != nil || len(entries) != 0 {
				t.Errorf("write probe left %v (%v)", entries, err)
			}
		})
	}
}

func TestApplyAgentRefusesOverlaps(t *testing.T) {
	requireLandlock(t)
	f := newAgentFixture(t)
	cases := []struct {
		name     string
		readOnly []string
		want     string
	}{
		{"parent of the workspace", []string{filepath.Dir(f.workspace)}, "overlaps forbidden"},
		{"file in the home", []string{f.targets.HomeFile}, "overlaps forbidden"},
		{"relative path", []string{"etc/localtime"}, "not absolute"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := runAgentChild(t, agentChildInput{
				Apply: true, ReadOnly: tc.readOnly, Forbidden: []string{f.workspace, f.home}, Targets: f.targets,
			}, "")
			if !strings.Contains(out.ApplyErr, tc.want) {
				t.Fatalf("ApplyAgent error %q, want one with %q", out.ApplyErr, tc.want)
			}
			if out.Report.OK() {
				t.Errorf("Report.OK() after a refused spec")
			}
		})
	}
}

func TestReportOK(t *testing.T) {
	all := func(blocked bool) []ProbeResult {
		out := make([]ProbeResult, len(ProbeNames()))
		for i, n := range ProbeNames() {
			out[i] = ProbeResult{Name: n, Blocked: blocked}
		}
		return out
	}
	applied := Report{LandlockABI: 7, Seccomp: true, NoNewPrivs: true}
	oneOpen := all(true)
	oneOpen[3].Blocked = false
	cases := []struct {
		name   string
		rep    Report
		probes []ProbeResult
		want   bool
	}{
		{"all blocked", applied, all(true), true},
		{"no probes", applied, nil, false},
		{"one probe missing", applied, all(true)[1:], false},
		{"one probe not blocked", applied, oneOpen, false},
		{"none blocked", applied, all(false), false},
		{"no seccomp", Report{LandlockABI: 7, NoNewPrivs: true}, all(true), false},
		{"no landlock", Report{Seccomp: true, NoNewPrivs: true}, all(true), false},
		{"no no_new_privs", Report{LandlockABI: 7, Seccomp: true}, all(true), false},
		{"landlock ABI 0", Report{LandlockABI: 0, Seccomp: true, NoNewPrivs: true}, all(true), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.rep.Probes = tc.probes
			if got := tc.rep.OK(); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestConfineAgentFailsClosed: a probe that cannot prove anything (its
// target is missing, so it fails with ENOENT, not a permission error)
// stops the agent just like a probe that succeeds.
func TestConfineAgentFailsClosed(t *testing.T) {
	requireLandlock(t)
	f := newAgentFixture(t)
	noFile := f.targets
	noFile.WorkspaceFile = filepath.Join(f.workspace, "missing.go")
	noEngine := f.targets
	noEngine.EngineAddr = ""
	cases := []struct {
		name    string
		targets ProbeTargets
		want    string // "" = starts
	}{
		{"all blocked", f.targets, ""},
		{"missing workspace file", noFile, ProbeReadWorkspace + ": open "},
		{"no engine address", noEngine, ProbeConnectEngine + ": no target given"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(agentChildInput{Forbidden: []string{f.workspace, f.home}, Targets: tc.targets})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), roleEnv+"=confine", "PARALLAX_SANDBOX_TEST_INPUT="+string(raw))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("confine child: %v", err)
			}
			switch got := string(out); {
			case tc.want == "" && got != "":
				t.Errorf("ConfineAgent: %s, want no error", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("ConfineAgent: %q, want an error with %q", got, tc.want)
			}
		})
	}
}
