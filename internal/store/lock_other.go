//go:build !unix

package store

// setupLock is a no-op where flock does not exist: concurrent first opens
// of a new database rely on SQLite's own locking and the retry in Open.
func setupLock(string) (func(), error) { return func() {}, nil }
