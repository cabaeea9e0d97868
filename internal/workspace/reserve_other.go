//go:build !linux

package workspace

import "os"

// reserveJournal keeps no room for the journal where fallocate is not
// available: appends need free space.
func reserveJournal(string) {}

func reserveFile(*os.File) {}
