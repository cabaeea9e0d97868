package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// disk is a disk that may be full: the audit chain's writes and the
// store's taint and label writes fail while it is.
type disk struct{ full atomic.Bool }

func (d *disk) fault(string) error {
	if d.full.Load() {
		return syscall.ENOSPC
	}
	return nil
}

// fullStore is the workspace store on that disk.
type fullStore struct {
	ifc.Store
	d *disk
}

func (s fullStore) RaiseTaint(ctx context.Context, session string, level ifc.Level, source string) error {
	if err := s.d.fault("write"); err != nil {
		return err
	}
	return s.Store.RaiseTaint(ctx, session, level, source)
}

func (s fullStore) SetParent(ctx context.Context, child, parent string) error {
	if err := s.d.fault("write"); err != nil {
		return err
	}
	return s.Store.SetParent(ctx, child, parent)
}

func (s fullStore) UpsertActivity(ctx context.Context, a ifc.Activity) error {
	if err := s.d.fault("write"); err != nil {
		return err
	}
	return s.Store.UpsertActivity(ctx, a)
}

// startOnDisk serves the real gate of a real workspace whose audit chain
// and store sit on d, on 127.0.0.1:0, with the health checks serve uses.
func startOnDisk(t *testing.T, d *disk) *testServer {
	t.Helper()
	root := newWorkspace(t)
	ws, err := workspace.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), audit.Options{Fault: d.fault})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	st := fullStore{Store: ws.IFCStore(), d: d}
	gcfg := ws.GateConfig(testHome)
	gcfg.Audit, gcfg.Store = log, st
	gate, err := shield.New(gcfg)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, err := New(Config{Gate: gate, Sessions: ws.DB, Tainter: gate, Audit: log, Token: []byte(testToken),
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Health: []HealthCheck{{Name: "audit", Check: log.Check}, {Name: "store", Check: ws.DB.Check},
			{Name: "taint", Check: gate.CheckTaint}}})
	if err != nil {
		t.Fatal(err)
	}
	return serveLoopback(t, &testServer{root: root, ws: ws, srv: srv, logs: logs})
}

// A full disk during an observe: serve refuses while it lasts and says so
// on /healthz, answers again once space is back without a restart, and
// the session that read a secret still may not send it.
func TestServeRecoversAfterDiskFull(t *testing.T) {
	d := &disk{}
	ts := startOnDisk(t, d)
	health := func() int {
		code, _, _ := ts.do(t, http.MethodGet, "/healthz", "", false)
		return code
	}
	gitStatus := func(session string) string {
		return `{"session":"` + session + `","type":"execute_command","payload":{"command":"git status"}}`
	}
	send := `{"session":"s1","type":"send_email","payload":{"to":"a@example.com","subject":"s","body":"hi"}}`
	if code := health(); code != http.StatusOK {
		t.Fatalf("healthz before the fault: %d", code)
	}

	d.full.Store(true)
	obs := mustJSON(t, ObserveRequest{Session: "s1", Type: "execute_command", Payload: payload("command", "cat .env"),
		Result: "GITHUB_TOKEN=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"})
	if code, b, _ := ts.do(t, http.MethodPost, "/v1/observe", obs, true); code < 500 {
		t.Fatalf("observe on a full disk: status %d (%s), want a server error", code, b)
	}
	if v := ts.evaluate(t, gitStatus("s2")); v.Decision != verdict.Block {
		t.Errorf("disk full, git status: got %v %s, want BLOCK", v.Decision, v.Rule)
	}
	// A result the server cannot even decode marks its session too.
	bad := `{"session":"s3","type":"no_such_type","payload":{},"result":"whatever it saw"}`
	if code, b, _ := ts.do(t, http.MethodPost, "/v1/observe", bad, true); code != http.StatusInternalServerError {
		t.Errorf("an undecodable observe on a full disk: %d %s, want 500 (its taint could not be written)", code, b)
	}
	if code := health(); code != http.StatusServiceUnavailable {
		t.Errorf("healthz on a full disk: %d, want 503", code)
	}

	d.full.Store(false) // space is back; no restart
	if code, b, _ := ts.do(t, http.MethodGet, "/healthz", "", false); code != http.StatusOK {
		t.Errorf("healthz once space is back: %d %s, want 200", code, b)
	}
	if v := ts.evaluate(t, gitStatus("s2")); v.Decision != verdict.Allow {
		t.Errorf("space back, git status: got %v %s (%s), want ALLOW", v.Decision, v.Rule, v.Reason)
	}
	for _, session := range []string{"s1", "s3"} {
		body := strings.Replace(send, `"s1"`, `"`+session+`"`, 1)
		if v := ts.evaluate(t, body); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
			t.Errorf("space back, %s sends: got %v at %s %s (%s), want an IFC BLOCK", session, v.Decision, v.Stage, v.Rule, v.Reason)
		}
	}
	lvl, _, err := ts.ws.IFCStore().MaxTaint(context.Background(), "s1")
	if err != nil || lvl != ifc.Critical {
		t.Errorf("space back: s1's stored taint is %v (%v), want critical", lvl, err)
	}
}
