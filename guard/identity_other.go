//go:build !unix

package guard

import "io/fs"

// statID: no inode numbers here; every file counts as having one name.
func statID(fs.FileInfo) (FileID, uint64, bool) { return FileID{}, 0, false }

// lstatID: no inode numbers here.
func lstatID(string) (FileID, uint64, bool, bool) { return FileID{}, 0, false, false }
