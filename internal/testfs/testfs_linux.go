package testfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// MountSmall mounts a 2 MiB tmpfs on a temporary directory and returns
// it, or skips the test where mounting is not permitted (not root, no
// CAP_SYS_ADMIN), naming the test that covers the same with an injected
// fault (covered). The mount is removed at cleanup, after everything
// registered later.
func MountSmall(tb testing.TB, covered string) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=2m,mode=0700"); err != nil {
		tb.Skipf("cannot mount a tmpfs here (%v); %s covers the same with an injected fault", err, covered)
	}
	tb.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			tb.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// Fill writes a file in dir until its filesystem is full, the last pages
// too (smaller writes until not one byte fits), and returns the file's
// path: removing it frees the space.
func Fill(tb testing.TB, dir string) string {
	tb.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for _, n := range []int{64 << 10, 4096, 512, 1} {
		for i := 0; ; i++ {
			if i == 1<<10 && n == len(buf) {
				tb.Fatalf("the filesystem of %s never filled up", dir)
			}
			if _, err := f.Write(buf[:n]); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					tb.Fatal(err)
				}
				break
			}
		}
	}
	return p
}
