//go:build !linux

package workspace

// renameNoReplace renames src to dst and fails if dst exists (checked
// just before the rename; Linux does both in one system call).
func renameNoReplace(src, dst string) error { return renameChecked(src, dst) }
