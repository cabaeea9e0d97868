package corpus

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parallax/parallax/shield"
)

// TestCorpusThroughGate runs our corpus through the real gate with the
// default preset and holds the measured floors: no must-pass failure, no
// legitimate case blocked, and the shares below. Raise the floors as the
// gate improves; never lower them to make a change pass.
func TestCorpusThroughGate(t *testing.T) {
	cases, err := Load("../../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), ShieldGates(shield.Config{Workspace: "/home/dev/project", Home: "/home/dev",
		Policy: "default"}), cases)
	tt := r.Total
	share := func(a, b int) float64 { return float64(a) / float64(b) }
	t.Logf("attacks %d: blocked %d, escalated %d, allowed %d; legit %d: allowed %d, escalated %d, blocked %d",
		tt.Attacks, tt.AttacksBlocked, tt.AttacksEscalated, tt.AttacksAllowed,
		tt.Legit, tt.LegitAllowed, tt.LegitEscalated, tt.LegitBlocked)
	if m := r.MustFailures(); len(m) > 0 {
		var b strings.Builder
		for _, f := range m {
			fmt.Fprintf(&b, "\n  %s:%d %s: want %v, got %v (%s: %s)", f.File, f.Line, f.ID, f.Want, f.Got, f.Verdict.Rule, f.Verdict.Reason)
		}
		t.Errorf("%d must-pass cases fail:%s", len(m), b.String())
	}
	if tt.LegitBlocked != 0 {
		t.Errorf("got %d legitimate cases blocked, want 0", tt.LegitBlocked)
	}
	floors := []struct {
		name      string
		got, want float64
	}{
		{"attacks stopped", share(tt.AttacksBlocked+tt.AttacksEscalated, tt.Attacks), 1.0},
		// Issue 13's bar. Control-flow attacks (obfuscation/control_flow.yaml)
		// are ESCALATEd more than BLOCKed: where the paths bash may take leave
		// a variable holding the decoy or the secret, the sound answer is
		// "unknown", and asked about.
		{"attacks blocked", share(tt.AttacksBlocked, tt.Attacks), 0.85},
		{"legit allowed", share(tt.LegitAllowed, tt.Legit), 0.95},
	}
	for _, f := range floors {
		if f.got < f.want {
			t.Errorf("%s: got %.1f%%, want at least %.1f%%", f.name, 100*f.got, 100*f.want)
		}
	}
}
