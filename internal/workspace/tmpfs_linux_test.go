package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// mountSmall mounts a 2 MiB tmpfs on a temporary directory, or skips
// where mounting is not permitted; it is removed at cleanup.
func mountSmall(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=2m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); TestTaintJournalOutlivesTheProcess covers the journal with an injected fault", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fillUp writes a file until the filesystem of dir is full.
func fillUp(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for _, n := range []int{64 << 10, 4096, 512, 1} {
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	return p
}

// On a really full filesystem a hook process cannot write a taint to the
// database, but the room reserved for the journal takes it: the next
// process, once there is space, records it and refuses the session's
// sends.
func TestTaintJournalOnAFullFilesystem(t *testing.T) {
	mnt := mountSmall(t)
	root := filepath.Join(mnt, "ws")
	if err := os.MkdirAll(StateDir(root), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const secret = "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"
	g1, w1 := gateFor(t, root)
	filler := fillUp(t, mnt)
	err := g1.Observe(ctx, shield.Request{Session: "s1", Type: "execute_command", Payload: cmd("cat notes.txt"), Result: secret})
	t.Logf("observe on a full filesystem: %v", err)
	if st, err := os.Stat(TaintJournalPath(root)); err != nil || st.Size() == 0 {
		t.Errorf("the taint journal is empty on a full filesystem (%v): its reserve did not take the raise", err)
	}
	if cerr := w1.Close(); cerr != nil {
		t.Logf("close on a full filesystem: %v", cerr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}

	g2, w2 := gateFor(t, root) // the next hook process
	defer w2.Close()
	send := shield.Request{Session: "s1", Type: "send_email", Payload: []byte(`{"to":"a@example.com","subject":"s","body":"hi"}`)}
	if v := g2.Evaluate(ctx, send); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("the next process, s1 sends: got %v at %s (%s), want an IFC BLOCK", v.Decision, v.Stage, v.Reason)
	}
	if lvl, _, err := w2.IFCStore().MaxTaint(ctx, "s1"); err != nil || lvl < ifc.Restricted {
		t.Errorf("s1 is %v (%v) in the next process, want its taint recorded", lvl, err)
	}
	if st, err := os.Stat(TaintJournalPath(root)); err != nil || st.Size() != 0 {
		t.Errorf("the journal was not replayed and emptied (%v)", err)
	}
}
