package store

import (
	"context"
	"strings"
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

func TestActivityRangesAndLabels(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	for _, a := range []Activity{
		{Path: "/w/a", Level: 2, Labels: []string{"email"}, Source: "x", Session: "s"},
		{Path: "/w/a", Level: 1, Labels: []string{"aws_key", "email"}, Source: "y", Session: "s"},
		{Path: "/w/b/c", Level: 4, Source: "x", Session: "s"},
		{Path: "/w/b/d", Level: 3, Source: "x", Session: "s"},
		{Path: "/w0", Level: 4, Source: "x", Session: "s"},
		{Path: "/wx/y", Level: 4, Source: "x", Session: "s"},
	} {
		if err := db.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	a, _, err := db.GetActivity(ctx, "/w/a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Level != 2 || a.Source != "x" || strings.Join(a.Labels, ",") != "aws_key,email" {
		t.Errorf("merge: got %+v, want level 2, source x, labels aws_key,email", a)
	}
	paths := func(as []Activity) string {
		var ps []string
		for _, a := range as {
			ps = append(ps, a.Path)
		}
		return strings.Join(ps, " ")
	}
	tests := []struct {
		p    string
		min  int
		want string
	}{
		{"/w", 0, "/w/a /w/b/c /w/b/d"},
		{"/w/", 0, "/w/a /w/b/c /w/b/d"},
		{"/w", 3, "/w/b/c /w/b/d"},
		{"/w/b", 0, "/w/b/c /w/b/d"},
		{"/w/a", 0, "/w/a"},
		{"/", 4, "/w/b/c /w0 /wx/y"},
	}
	for _, tc := range tests {
		got, err := db.ActivityUnder(ctx, tc.p, tc.min)
		if err != nil {
			t.Fatal(err)
		}
		if paths(got) != tc.want {
			t.Errorf("ActivityUnder(%s, %d): got %q, want %q", tc.p, tc.min, paths(got), tc.want)
		}
	}
	top := []struct {
		p     string
		below bool
		min   int
		want  string
	}{
		{"/w", true, 0, "/w/b/c"},
		{"/w", false, 0, ""},
		{"/w/b/d", false, 0, "/w/b/d"},
		{"/w/b/d", false, 4, ""},
		{"/w/a", true, 3, ""},
	}
	for _, tc := range top {
		a, ok, err := db.TopActivity(ctx, tc.p, tc.below, tc.min)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if ok {
			got = a.Path
		}
		if got != tc.want {
			t.Errorf("TopActivity(%s, %v, %d): got %q, want %q", tc.p, tc.below, tc.min, got, tc.want)
		}
	}
}

func TestTaintOfAndEnsureSession(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if lvl, src, err := db.TaintOf(ctx, "nobody"); err != nil || lvl != 0 || src != "" {
		t.Fatalf("unknown session: got %d %q %v", lvl, src, err)
	}
	if err := db.EnsureSession(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if err := db.StartSession(ctx, "c", "p", nil); err != nil {
		t.Fatalf("a session ensured can be a parent: %v", err)
	}
	if err := db.EnsureSession(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if s, err := db.GetSession(ctx, "c"); err != nil || s.Parent != "p" {
		t.Fatalf("EnsureSession must leave a known session alone: %+v %v", s, err)
	}
	for _, r := range []struct {
		lvl int
		src string
	}{{2, "path:/w/a"}, {4, "content:aws_key"}, {3, "path:/w/b"}} {
		if err := db.RaiseTaint(ctx, "c", r.lvl, r.src); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"c", "p"} {
		if lvl, src, err := db.TaintOf(ctx, s); err != nil || lvl != 4 || src != "content:aws_key" {
			t.Errorf("TaintOf(%s): got %d %q %v, want 4 content:aws_key", s, lvl, src, err)
		}
	}
}

// TestTopActivityMatching: the highest entry among those match accepts,
// under p only, at or above min; ties go to the first path.
func TestTopActivityMatching(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	for _, a := range []Activity{{Path: "/w/a.txt", Level: 2, Labels: []string{"email"}, Source: "x", Session: "s"},
		{Path: "/w/b/c.txt", Level: 3, Source: "x", Session: "s"}, {Path: "/w/b/d.log", Level: 4, Source: "x", Session: "s"},
		{Path: "/w/e.txt", Level: 3, Source: "x", Session: "s"}, {Path: "/wx/f.txt", Level: 4, Source: "x", Session: "s"}} {
		if err := db.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	txt := func(p string) bool { return strings.HasSuffix(p, ".txt") }
	tests := []struct {
		p     string
		min   int
		match func(string) bool
		want  string
	}{
		{"/w", 0, txt, "/w/b/c.txt"},
		{"/w", 0, func(string) bool { return true }, "/w/b/d.log"},
		{"/w", 4, txt, ""},
		{"/w/a.txt", 0, txt, "/w/a.txt"},
		{"/w", 0, func(p string) bool { return p == "/w/a.txt" }, "/w/a.txt"},
		{"/", 4, txt, "/wx/f.txt"},
		{"/w", 0, func(string) bool { return false }, ""},
	}
	for _, tc := range tests {
		a, ok, err := db.TopActivityMatching(ctx, tc.p, tc.min, tc.match)
		if err != nil {
			t.Fatal(err)
		}
		if got := map[bool]string{true: a.Path, false: ""}[ok]; got != tc.want {
			t.Errorf("TopActivityMatching(%s, %d): got %q, want %q", tc.p, tc.min, got, tc.want)
		}
		if ok && a.Path == "/w/a.txt" && (len(a.Labels) != 1 || a.Labels[0] != "email") {
			t.Errorf("labels of /w/a.txt: %v", a.Labels)
		}
	}
}
