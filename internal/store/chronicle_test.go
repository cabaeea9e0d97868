package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// testSeal is a stand-in for chronicle's record hash: enough to see that
// the store passes it a complete record.
func testSeal(r *SnapshotRecord) (string, error) {
	return fmt.Sprintf("h(%d|%s|%s)", r.ID, r.PrevHash, r.ManifestHash), nil
}

func addTestSnapshot(t *testing.T, db *DB, n int, files []FileRecord, cache []StatEntry) SnapshotRecord {
	t.Helper()
	rec, err := db.AddSnapshot(context.Background(), SnapshotRecord{
		Reason: fmt.Sprintf("write_file %d", n), Session: "s1", Paths: []string{"a"},
		Files: int64(len(files)), ManifestHash: fmt.Sprintf("m%d", n),
	}, files, cache, testSeal)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestChronicleIndex(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	files := []FileRecord{
		{Path: "a", Type: "dir", Mode: 0o755, MtimeNS: 5},
		{Path: "a/x.txt", Type: "file", Mode: 0o644, Size: 3, MtimeNS: 6, Object: "o1"},
		{Path: "a/l", Type: "symlink", Mode: 0o777, Link: "x.txt"},
		{Path: "a/new", Type: "absent"},
	}
	cache := []StatEntry{{Path: "a/x.txt", Dev: 1 << 63, Ino: 42, Size: 3, Mode: 0o644, MtimeNS: 6, CtimeNS: 7, Object: "o1"}}
	r1 := addTestSnapshot(t, db, 1, files, cache)
	r2 := addTestSnapshot(t, db, 2, files[1:2], nil)
	r3 := addTestSnapshot(t, db, 3, []FileRecord{{Path: "b", Type: "file", Object: "o2"}},
		[]StatEntry{{Path: "b", Object: "o2"}})

	if r1.ID != 1 || r1.PrevHash != "" || r1.Hash != "h(1||m1)" || r1.CreatedAt.IsZero() {
		t.Errorf("r1: got %+v", r1)
	}
	if r2.PrevHash != r1.Hash || r3.PrevHash != r2.Hash {
		t.Errorf("chain: got %q→%q, %q→%q", r1.Hash, r2.PrevHash, r2.Hash, r3.PrevHash)
	}
	got, err := db.GetSnapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash != r1.Hash || got.Reason != "write_file 1" || len(got.Paths) != 1 || !got.CreatedAt.Equal(r1.CreatedAt) {
		t.Errorf("get: got %+v, want %+v", got, r1)
	}
	fs, err := db.SnapshotFiles(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 || fs[0] != files[0] || fs[1] != files[2] || fs[3] != files[1] { // byte order: a, a/l, a/new, a/x.txt
		t.Errorf("files: got %+v", fs)
	}
	sc, err := db.StatCache(ctx, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc) != 1 || sc["a/x.txt"] != cache[0] {
		t.Errorf("stat cache under a: got %+v", sc)
	}
	if all, _ := db.StatCache(ctx, []string{"."}); len(all) != 2 {
		t.Errorf("stat cache under .: got %d entries, want 2", len(all))
	}
	refs, err := db.ReferencedObjects(ctx)
	if err != nil || len(refs) != 2 || !refs["o1"] || !refs["o2"] {
		t.Errorf("refs: got %v %v", refs, err)
	}

	// Prune the first two: the anchor becomes r2's hash, r3 still links to it,
	// and o1's cache entry goes with its last reference.
	n, err := db.DeleteSnapshotsThrough(ctx, 2)
	if err != nil || n != 2 {
		t.Fatalf("delete: got %v %v", n, err)
	}
	if a, _ := db.ChainAnchor(ctx); a != r2.Hash {
		t.Errorf("anchor: got %q, want %q", a, r2.Hash)
	}
	if p, _ := db.PrevHashOf(ctx, 3); p != r2.Hash {
		t.Errorf("PrevHashOf(3): got %q, want %q", p, r2.Hash)
	}
	if _, err := db.GetSnapshot(ctx, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
	if fs, _ := db.SnapshotFiles(ctx, 1); len(fs) != 0 {
		t.Errorf("files of deleted snapshot survived: %v", fs)
	}
	if sc, _ := db.StatCache(ctx, []string{"."}); len(sc) != 1 {
		t.Errorf("cache after prune: got %v", sc)
	}
	if _, err := db.DeleteSnapshotsThrough(ctx, 7); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}

	// Delete everything: the next snapshot links to the anchor and its id
	// is not reused.
	if _, err := db.DeleteSnapshotsThrough(ctx, 3); err != nil {
		t.Fatal(err)
	}
	r4 := addTestSnapshot(t, db, 4, nil, nil)
	if r4.ID != 4 || r4.PrevHash != r3.Hash {
		t.Errorf("after full prune: got id %d prev %q, want 4 %q", r4.ID, r4.PrevHash, r3.Hash)
	}
	id, h, err := db.ChainHead(ctx)
	if err != nil || id != 4 || h != r4.Hash {
		t.Errorf("head: got %v %q %v", id, h, err)
	}
	list, _ := db.Snapshots(ctx)
	if len(list) != 1 || list[0].ID != 4 {
		t.Errorf("list: got %+v", list)
	}
}

func TestAddSnapshotRollsBackOnError(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	dup := []FileRecord{{Path: "a", Type: "file"}, {Path: "a", Type: "file"}}
	if _, err := db.AddSnapshot(ctx, SnapshotRecord{Paths: []string{"a"}}, dup, nil, testSeal); err == nil {
		t.Fatal("duplicate path accepted")
	}
	bad := []FileRecord{{Path: "a", Type: "fifo"}}
	if _, err := db.AddSnapshot(ctx, SnapshotRecord{Paths: []string{"a"}}, bad, nil, testSeal); err == nil {
		t.Fatal("unknown type accepted")
	}
	sealErr := func(*SnapshotRecord) (string, error) { return "", errors.New("no") }
	if _, err := db.AddSnapshot(ctx, SnapshotRecord{Paths: []string{"a"}}, nil, nil, sealErr); err == nil {
		t.Fatal("seal error ignored")
	}
	list, err := db.Snapshots(ctx)
	if err != nil || len(list) != 0 {
		t.Errorf("got %d snapshots %v, want none", len(list), err)
	}
	r := addTestSnapshot(t, db, 1, nil, nil)
	if r.ID != 1 {
		t.Errorf("failed inserts consumed ids: got %d, want 1", r.ID)
	}
}
