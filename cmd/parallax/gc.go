package main

import (
	"os"
	"runtime/debug"

	"github.com/parallax/parallax/guard"
)

// longRunningGC is the GC target of the commands that evaluate many
// actions in one process (shield evaluate and bench, serve, the MCP
// proxy): fewer collections for a few tens of MB more heap, so that a
// decision is less often slowed by a collection running beside it.
const longRunningGC = 400

// tuneGC sets longRunningGC unless the user chose with GOGC, and lets
// the gates of this process share filesystem reads across decisions
// (guard.ShareFilesystemReads). Commands that decide once (the Claude
// Code hook) call neither.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(longRunningGC)
	}
	guard.ShareFilesystemReads()
}
