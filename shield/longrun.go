package shield

import (
	"os"
	"runtime/debug"

	"github.com/parallax/parallax/guard"
)

// LongRunningGC is the GC target of a process that evaluates many actions
// (shield evaluate and bench, serve, the MCP proxy, eval): fewer
// collections for a few tens of MB more heap, so that a decision is less
// often slowed by a collection running beside it.
const LongRunningGC = 400

// LongRunning configures this process for a gate that decides many
// actions: it sets LongRunningGC unless the user chose with GOGC, and
// lets the gates built from now on share filesystem reads across
// decisions (guard.ShareFilesystemReads). A command that decides once
// (the Claude Code hook) calls neither. The in-process benchmarks call it
// too, so that they measure the gate as those commands run it.
func LongRunning() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(LongRunningGC)
	}
	guard.ShareFilesystemReads()
}
