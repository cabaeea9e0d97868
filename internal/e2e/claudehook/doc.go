// Package claudehook holds the end-to-end tests of the Parallax hook
// inside the real Claude Code CLI: the parallax binary is built, a
// temporary project is initialised and the hook installed, and `claude
// -p` runs against the scripted loopback model of package claudecli. The
// tests read what the CLI sent back to the model (tool results, deny
// reasons), the audit chain, Chronicle and the files on disk.
//
// The hook runs as users get it, with its warm daemon: the daemon is
// started before the CLI (by a hook call, as a user's first call starts
// it), every run checks that the daemon decided its calls, and every
// test stops its daemons and waits for them to exit.
//
// Every assertion is one the hook's absence would flip; where the CLI
// itself might be the one refusing, a control run with a do-nothing hook
// shows that it is not. Nothing leaves the machine: the model is on
// 127.0.0.1; a scripted command that would reach further (the curl
// upload) is one the hook must deny, and fails without a network if not.
//
//	go test -race ./internal/e2e/claudehook/        # skips without .e2e/node_modules (run .ci/e2e-deps)
//	PARALLAX_CC_E2E_TIMING=20 go test -count=1 -run TestHookOverheadInCLI -v ./internal/e2e/claudehook/
package claudehook
