// Package e2e finds the real programs the end-to-end tests drive: the
// Claude Code CLI, MCP servers and the MCP SDK client, installed from npm
// into .e2e/node_modules by .ci/e2e-deps (versions pinned by
// .e2e/package-lock.json), and tmux, which .ci/e2e-deps installs from
// Debian (its sub-package tmux runs the terminal chat in real terminals
// and reads their screens). Tests never download anything.
//
// Where a program is missing the test is skipped with the command that
// installs it, unless PARALLAX_E2E=require (set by .ci/run): then a missing
// program fails the test, so CI cannot pass by skipping.
package e2e
