//go:build !linux

package guard

// newChangeWatcher: no change notification is wired up here, so the
// guard reads the filesystem afresh on every decision.
func newChangeWatcher() changeWatcher { return nil }
