//go:build race

package racebuild

// Enabled reports whether the binary was built with -race.
const Enabled = true
