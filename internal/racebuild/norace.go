//go:build !race

// Package racebuild tells tests whether the race detector is on. Under
// -race, sync.Pool drops a quarter of what is put back on purpose, so code
// that reuses pooled state (regexp's matchers among it) allocates at random:
// allocation counts are asserted only in builds without it.
package racebuild

// Enabled reports whether the binary was built with -race.
const Enabled = false
