package sandbox

import "path/filepath"

// DefaultCaches lists the toolchain caches under home that a build
// writes to, so `go test ./...`, `npm ci`, `pip install` and `cargo
// build` work in a command's sandbox. Callers pass it (or their
// configured list) as CommandSpec.Caches; missing entries are skipped.
func DefaultCaches(home string) []string {
	rel := []string{
		".cache/go-build", // GOCACHE
		"go/pkg",          // GOMODCACHE (go/pkg/mod) and the checksum database cache
		".npm",            // npm's cache
		".cache/pip",      // pip's cache
		".cargo/registry", // cargo's crates
		".cargo/git",      // cargo's git dependencies
	}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(home, r)
	}
	return out
}
