package chronicle

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// threeSnapshots makes snapshots 1..3 of a.txt with different contents.
func threeSnapshots(t *testing.T) (*Chronicle, string) {
	t.Helper()
	c, ws, _ := newTest(t, Options{})
	ctx := context.Background()
	for i, content := range []string{"one\n", "two\n", "three\n"} {
		writeTree(t, ws, spec{"d/": "", "d/a.txt": content, "d/b.txt": "b" + content}, nil)
		s, err := c.Snapshot(ctx, abs(ws, "d"), "write_file", "s1")
		must(t, err)
		if s.ID != int64(i+1) {
			t.Fatalf("got id %d, want %d", s.ID, i+1)
		}
		must(t, os.RemoveAll(filepath.Join(ws, "d")))
	}
	must(t, c.Verify(ctx, true))
	return c, ws
}

func rawDB(t *testing.T, c *Chronicle) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+c.db.Path()+"?_busy_timeout=5000")
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func objectOf(t *testing.T, c *Chronicle, id int64, path string) string {
	t.Helper()
	_, entries, err := c.Get(context.Background(), id)
	must(t, err)
	for _, e := range entries {
		if e.Path == path {
			return c.objects.path(e.Object)
		}
	}
	t.Fatalf("%s not in snapshot %d", path, id)
	return ""
}

func TestVerifyDetectsTampering(t *testing.T) {
	const otherHash = "0000000000000000000000000000000000000000000000000000000000000000"
	tests := []struct {
		name     string
		sql      []string
		files    func(t *testing.T, c *Chronicle)
		deep     bool
		wantID   int64
		wantPath string
		wantMsg  string
	}{
		{name: "file mode", sql: []string{"UPDATE snapshot_files SET mode = 511 WHERE snapshot = 2 AND path = 'd/a.txt'"},
			wantID: 2, wantMsg: "manifest hash mismatch"},
		{name: "object name", sql: []string{"UPDATE snapshot_files SET object = '" + otherHash + "' WHERE snapshot = 3 AND path = 'd/b.txt'"},
			wantID: 3, wantMsg: "manifest hash mismatch"},
		{name: "manifest and its hash", sql: []string{
			"UPDATE snapshot_files SET mode = 511 WHERE snapshot = 2 AND path = 'd/a.txt'",
			"UPDATE snapshots SET manifest_hash = 'x' WHERE id = 2"},
			wantID: 2, wantMsg: "manifest hash mismatch"},
		{name: "reason", sql: []string{"UPDATE snapshots SET reason = 'innocent' WHERE id = 2"},
			wantID: 2, wantMsg: "record hash mismatch"},
		{name: "extra entry", sql: []string{"INSERT INTO snapshot_files VALUES (1, 'd/c', 'absent', 0, 0, 0, '', '')"},
			wantID: 1, wantMsg: "4 entries, record says 3"},
		{name: "dropped entry", sql: []string{"DELETE FROM snapshot_files WHERE snapshot = 3 AND path = 'd/a.txt'"},
			wantID: 3, wantMsg: "2 entries, record says 3"},
		{name: "dropped middle snapshot", sql: []string{"DELETE FROM snapshots WHERE id = 2"},
			wantID: 3, wantMsg: "chain link broken"},
		{name: "dropped oldest snapshot", sql: []string{"DELETE FROM snapshots WHERE id = 1"},
			wantID: 2, wantMsg: "chain link broken"},
		{name: "reordered", sql: []string{
			"UPDATE snapshots SET id = 100 WHERE id = 2",
			"UPDATE snapshots SET id = 2 WHERE id = 3",
			"UPDATE snapshots SET id = 3 WHERE id = 100"},
			wantID: 2, wantMsg: "hash mismatch"},
		{name: "path into .parallax", sql: []string{"UPDATE snapshot_files SET path = '.parallax/parallax.db' WHERE snapshot = 1 AND path = 'd/a.txt'"},
			wantID: 1, wantMsg: "hash mismatch"},
		{name: "object missing", files: func(t *testing.T, c *Chronicle) {
			must(t, os.Remove(objectOf(t, c, 2, "d/b.txt")))
		}, wantID: 2, wantPath: "d/b.txt", wantMsg: "missing"},
		{name: "object byte flipped", deep: true, files: func(t *testing.T, c *Chronicle) {
			p := objectOf(t, c, 3, "d/a.txt")
			must(t, os.Chmod(p, 0o600))
			must(t, os.WriteFile(p, []byte("thr3e\n"), 0o600))
		}, wantID: 3, wantPath: "d/a.txt", wantMsg: "does not match its hash"},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := threeSnapshots(t)
			db := rawDB(t, c)
			for _, q := range tc.sql {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if tc.files != nil {
				tc.files(t, c)
			}
			err := c.Verify(ctx, tc.deep)
			var ve *VerifyError
			if !errors.As(err, &ve) || !errors.Is(err, ErrTampered) {
				t.Fatalf("got %v, want a VerifyError wrapping ErrTampered", err)
			}
			if ve.ID != tc.wantID || ve.Path != tc.wantPath || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("got #%d %q %q, want #%d %q containing %q", ve.ID, ve.Path, err, tc.wantID, tc.wantPath, tc.wantMsg)
			}
			// A tampered record is never rolled back.
			if tc.files == nil {
				if _, err := c.Rollback(ctx, tc.wantID); !errors.Is(err, ErrTampered) {
					t.Errorf("rollback of tampered #%d: got %v, want ErrTampered", tc.wantID, err)
				}
			}
		})
	}
}
