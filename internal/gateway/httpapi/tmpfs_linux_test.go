package httpapi

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/testfs"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/verdict"
)

// The same story as TestServeRecoversAfterDiskFull on a real full
// filesystem: the workspace (SQLite, audit chain, taint journal) sits on
// a small tmpfs that a file fills up, then frees.
func TestServeRecoversAfterRealDiskFull(t *testing.T) {
	mnt := testfs.MountSmall(t, "TestServeRecoversAfterDiskFull")
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

	filler := testfs.Fill(t, mnt)
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
