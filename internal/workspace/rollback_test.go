package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
)

// TestAuditedRollback: a rollback is restored and recorded with the
// session asking; a failed one (unknown snapshot) is recorded as failed;
// without a chain nothing is rolled back.
func TestAuditedRollback(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if _, err := Init(ctx, root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ws.Close(); err != nil {
			t.Error(err)
		}
	}()
	c, err := chronicle.New(root, ws.DB, chronicle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "f.txt")
	if err := os.WriteFile(file, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := c.Snapshot(ctx, []string{file}, "test", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("after"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AuditedRollback(ctx, nil, c, snap.ID, Rollback{}); err == nil {
		t.Error("a rollback without an audit chain ran")
	}
	if got, _ := os.ReadFile(file); string(got) != "after" {
		t.Fatalf("rolled back without a chain: %q", got)
	}
	cases := []struct {
		id       int64
		by       Rollback
		wantErr  error
		wantCode string
	}{
		{snap.ID, Rollback{Session: "chat-1", Reason: "/undo of turn t1"}, nil, "chronicle_rollback"},
		{snap.ID + 100, Rollback{}, chronicle.ErrNotFound, "chronicle_rollback_failed"},
	}
	for _, tc := range cases {
		res, err := AuditedRollback(ctx, ws.Audit, c, tc.id, tc.by)
		if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
			t.Fatalf("rollback to #%d: got %v, want %v", tc.id, err, tc.wantErr)
		}
		var last audit.Entry
		if err := audit.Scan(audit.DefaultPath(root), audit.Filter{Type: audit.TransactionRollback, Last: 1}, func(e audit.Entry) error {
			last = e
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if last.Detail.Code != tc.wantCode || last.Session != tc.by.Session {
			t.Errorf("rollback to #%d: entry %s session %q, want %s %q", tc.id, last.Detail.Code, last.Session, tc.wantCode, tc.by.Session)
		}
		if tc.wantErr == nil && res.Undo.ID == 0 {
			t.Errorf("rollback to #%d: no undo snapshot", tc.id)
		}
	}
	if got, _ := os.ReadFile(file); string(got) != "before" {
		t.Errorf("f.txt: got %q, want %q", got, "before")
	}
	if _, err := VerifyChain(root); err != nil {
		t.Error(err)
	}
}
