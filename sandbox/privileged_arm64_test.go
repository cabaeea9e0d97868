//go:build linux && arm64

package sandbox

// archPrivCalls is empty: arm64 has no privileged calls of its own.
func archPrivCalls() []privCall { return nil }
