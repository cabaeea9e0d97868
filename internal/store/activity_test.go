package store

import (
	"context"
	"testing"
)

func TestActivityKeepsMaxLevel(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	steps := []Activity{
		{Path: "/w/out.txt", Level: 2, Source: "path:/w/a.csv", Session: "s1"},
		{Path: "/w/out.txt", Level: 1, Source: "path:/w/b.md", Session: "s2"},
		{Path: "/w/out.txt", Level: 3, Source: "content:ssn", Session: "s3"},
		{Path: "/w/other.txt", Level: 0, Source: "path:/w/readme", Session: "s1"},
	}
	var last Activity
	for i, a := range steps {
		if err := db.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, ok, err := db.GetActivity(ctx, a.Path)
		if err != nil || !ok {
			t.Fatalf("step %d: got %v %v", i, ok, err)
		}
		if i == 1 {
			if got.Level != 2 || got.Source != "path:/w/a.csv" || got.Session != "s1" {
				t.Errorf("lower write replaced the label: %+v", got)
			}
			if !got.UpdatedAt.After(last.UpdatedAt) {
				t.Errorf("updated_at not refreshed: %v then %v", last.UpdatedAt, got.UpdatedAt)
			}
		}
		if i == 2 && (got.Level != 3 || got.Source != "content:ssn" || got.Session != "s3") {
			t.Errorf("higher write: got %+v", got)
		}
		last = got
	}
	list, err := db.ListActivity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Path != "/w/other.txt" || list[1].Level != 3 {
		t.Errorf("list: got %+v", list)
	}
	if _, ok, _ := db.GetActivity(ctx, "/w/none"); ok {
		t.Error("missing path reported present")
	}
	for _, bad := range []Activity{{Path: "", Level: 1}, {Path: "/x", Level: 5}, {Path: "/x", Level: -1}} {
		if err := db.UpsertActivity(ctx, bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestActivityDeleteAndSweep(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	for _, p := range []string{"/w/a", "/w/b", "/w/c", "/w/d"} {
		if err := db.UpsertActivity(ctx, Activity{Path: p, Level: 2, Source: "x", Session: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	ok, err := db.DeleteActivity(ctx, "/w/d")
	if err != nil || !ok {
		t.Fatalf("delete: got %v %v", ok, err)
	}
	if ok, _ := db.DeleteActivity(ctx, "/w/d"); ok {
		t.Error("second delete reported a row")
	}
	// /w/b vanishes; /w/c vanishes too but is written again while the
	// sweep checks the filesystem, so its fresh label must survive.
	removed, err := db.SweepActivity(ctx, func(p string) bool {
		if p == "/w/c" {
			if err := db.UpsertActivity(ctx, Activity{Path: p, Level: 4, Source: "y", Session: "s"}); err != nil {
				t.Error(err)
			}
			return false
		}
		return p != "/w/b"
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Path != "/w/b" {
		t.Errorf("removed: got %+v, want /w/b", removed)
	}
	list, _ := db.ListActivity(ctx)
	var paths []string
	for _, a := range list {
		paths = append(paths, a.Path)
	}
	if len(paths) != 2 || paths[0] != "/w/a" || paths[1] != "/w/c" {
		t.Errorf("left: got %v, want [/w/a /w/c]", paths)
	}
}
