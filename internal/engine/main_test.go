package engine

import (
	"os"
	"testing"

	"github.com/parallax/parallax/sandbox"
)

// TestMain lets the test binary stand in for parallax as the per-command
// sandbox's re-executed copy (sandbox.ExecArg).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		os.Exit(sandbox.ExecMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
