//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

// flockMissing is set where the system has no flock.
const flockMissing = true
