package httpapi

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/verdict"
)

// mountSmall mounts a 2 MiB tmpfs on a temporary directory, or skips the
// test where mounting is not permitted (not root, no CAP_SYS_ADMIN). The
// mount is removed at cleanup, after everything registered later.
func mountSmall(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=2m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); TestServeRecoversAfterDiskFull covers the same with injected faults", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file until the filesystem of dir is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for i := 0; i < 1<<10; i++ {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			// The last pages too: smaller writes until nothing fits.
			for _, n := range []int{4096, 512, 1} {
				for {
					if _, err := f.Write(chunk[:n]); err != nil {
						break
					}
				}
			}
			return p
		}
	}
	t.Fatal("the tmpfs never filled up")
	return ""
}

// The same story as TestServeRecoversAfterDiskFull on a real full
// filesystem: the workspace (SQLite, audit chain, taint journal) sits on
// a small tmpfs that a file fills up, then frees.
func TestServeRecoversAfterRealDiskFull(t *testing.T) {
	mnt := mountSmall(t)
	root := filepath.Join(mnt, "ws")
	if err := os.MkdirAll(workspace.StateDir(root), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(TokenPath(root), []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServerAt(t, root, Config{}, nil)
	ts.srv.cfg.Health = []HealthCheck{{Name: "audit", Check: ts.ws.Audit.Check}, {Name: "store", Check: ts.ws.DB.Check}}
	gitStatus := `{"session":"s2","type":"execute_command","payload":{"command":"git status"}}`
	send := `{"session":"s1","type":"send_email","payload":{"to":"a@example.com","subject":"s","body":"hi"}}`
	if v := ts.evaluate(t, gitStatus); v.Decision != verdict.Allow {
		t.Fatalf("before the fault, git status: got %v %s", v.Decision, v.Reason)
	}

	filler := fill(t, mnt)
	obs := mustJSON(t, ObserveRequest{Session: "s1", Type: "execute_command", Payload: payload("command", "cat .env"),
		Result: "GITHUB_TOKEN=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"})
	code, b, _ := ts.do(t, http.MethodPost, "/v1/observe", obs, true)
	t.Logf("observe on a full disk: %d %s", code, b)
	// The taint went to the journal's reserved room, and the audit file's
	// last page may still take a few entries (decisions recorded there may
	// run): decide until the chain is full too, then nothing may run.
	for i := 0; ts.ws.Audit.Check(context.Background()) == nil; i++ {
		if i == 200 {
			t.Fatal("the audit chain never filled up")
		}
		ts.evaluate(t, gitStatus)
	}
	if v := ts.evaluate(t, gitStatus); v.Decision != verdict.Block {
		t.Errorf("disk full, git status: got %v %s, want BLOCK", v.Decision, v.Rule)
	}
	if code, _, _ := ts.do(t, http.MethodGet, "/healthz", "", false); code != http.StatusServiceUnavailable {
		t.Errorf("healthz on a full disk: %d, want 503", code)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, b, _ := ts.do(t, http.MethodGet, "/healthz", "", false); code != http.StatusOK {
		t.Errorf("healthz once space is back: %d %s, want 200", code, b)
	}
	if v := ts.evaluate(t, gitStatus); v.Decision != verdict.Allow {
		t.Errorf("space back, git status: got %v %s (%s), want ALLOW", v.Decision, v.Rule, v.Reason)
	}
	if v := ts.evaluate(t, send); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("space back, s1 sends: got %v at %s %s (%s), want an IFC BLOCK", v.Decision, v.Stage, v.Rule, v.Reason)
	}
	if lvl, _, err := ts.ws.IFCStore().MaxTaint(context.Background(), "s1"); err != nil || lvl < ifc.Restricted {
		t.Errorf("space back: s1's stored taint is %v (%v)", lvl, err)
	}
}
