package engine

import (
	"context"
	"strings"
	"testing"

	pb "github.com/parallax/parallax/proto/parallax/v1"
	"github.com/parallax/parallax/sandbox"
)

// TestEngineRefusesAnUnprovenSandboxReport: the engine welcomes an agent
// only on a report that proves its sandbox (agent.sandbox on): Landlock
// and seccomp applied and every probe run and refused. Each case is one
// check of checkSandbox; each refusal is audited sandbox_failed.
func TestEngineRefusesAnUnprovenSandboxReport(t *testing.T) {
	probes := func(skip string, open string) []*pb.Probe {
		var out []*pb.Probe
		for _, n := range sandbox.ProbeNames() {
			if n != skip {
				out = append(out, &pb.Probe{Name: n, Refused: n != open, Detail: "EACCES"})
			}
		}
		return out
	}
	cases := []struct {
		name       string
		sandboxOff bool
		rep        *pb.SandboxReport
		want       string // "" = welcomed; else a part of the refusal
	}{
		{"proven", false, &pb.SandboxReport{LandlockAbi: 6, Seccomp: true, Probes: probes("", "")}, ""},
		{"off as configured", true, &pb.SandboxReport{Disabled: true}, ""},
		{"no report", false, nil, "no sandbox report"},
		{"disabled while the sandbox is on", false, &pb.SandboxReport{Disabled: true}, "agent.sandbox is on"},
		{"landlock ABI 0", false, &pb.SandboxReport{LandlockAbi: 0, Seccomp: true, Probes: probes("", "")}, "landlock ABI 0"},
		{"no seccomp", false, &pb.SandboxReport{LandlockAbi: 6, Probes: probes("", "")}, "seccomp false"},
		{"a probe missing", false, &pb.SandboxReport{LandlockAbi: 6, Seccomp: true, Probes: probes(sandbox.ProbeConnectEngine, "")},
			"probe " + sandbox.ProbeConnectEngine + " did not run"},
		{"no probes", false, &pb.SandboxReport{LandlockAbi: 6, Seccomp: true}, "probe " + sandbox.ProbeReadWorkspace + " did not run"},
		{"a probe not refused", false, &pb.SandboxReport{LandlockAbi: 6, Seccomp: true, Probes: probes("", sandbox.ProbeExec)},
			"probe " + sandbox.ProbeExec + " was not refused"},
	}
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n"})
	refusals := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.rt.settings.SandboxOff = tc.sandboxOff
			err := e.rt.checkSandbox(context.Background(), tc.rep)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want the agent welcomed", err)
			case tc.want != "" && err == nil:
				t.Errorf("got the agent welcomed, want a refusal with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Reason, tc.want):
				t.Errorf("got %q, want a refusal with %q", err.Reason, tc.want)
			}
		})
		if tc.want != "" {
			refusals++
		}
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, en := range verifiedChain(t, e.root) {
		if en.Detail.Code == "sandbox_failed" {
			n++
		}
	}
	if n != refusals {
		t.Errorf("sandbox_failed entries: got %d, want %d", n, refusals)
	}
}
