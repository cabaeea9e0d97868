//go:build linux

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// mountOverlays mounts each overlay on its Lower path, inside the
// command's own user and mount namespaces.
func mountOverlays(ovs []Overlay) error {
	for i, o := range ovs {
		data := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr", o.Lower, o.Upper, o.Work)
		if err := unix.Mount("parallax-cache", o.Lower, "overlay", unix.MS_NOSUID|unix.MS_NODEV, data); err != nil {
			return fmt.Errorf("overlays[%d] on %s: %w", i, o.Lower, err)
		}
	}
	return nil
}
