package ifc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTaintRaiseKeepsMax(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	steps := []struct {
		level      Level
		source     string
		want       Level
		wantSource string
	}{
		{Internal, "a.go", Internal, "a.go"},
		{Critical, ".env", Critical, ".env"},
		{Restricted, "tax.pdf", Critical, ".env"},
		{Critical, "other", Critical, ".env"},
		{Level(99), "corrupt", Critical, ".env"},
	}
	for i, s := range steps {
		if err := m.RaiseTaint(ctx, "s1", s.level, s.source); err != nil {
			t.Fatal(err)
		}
		got, src, err := m.MaxTaint(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if got != s.want || src != s.wantSource {
			t.Errorf("step %d: got %v from %q, want %v from %q", i, got, src, s.want, s.wantSource)
		}
	}
	if got, src, _ := m.MaxTaint(ctx, "unknown"); got != Public || src != "" {
		t.Errorf("unknown session: got %v %q, want public", got, src)
	}
}

func TestSessionTree(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	if err := m.RaiseTaint(ctx, "child", Restricted, "pre-link"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetParent(ctx, "child", "parent"); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := m.MaxTaint(ctx, "parent"); got != Restricted {
		t.Errorf("link propagates the child's taint: got %v, want restricted", got)
	}
	if err := m.SetParent(ctx, "grandchild", "child"); err != nil {
		t.Fatal(err)
	}
	if err := m.RaiseTaint(ctx, "grandchild", Critical, "key"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"grandchild", "child", "parent"} {
		if got, src, _ := m.MaxTaint(ctx, s); got != Critical || src != "key" {
			t.Errorf("%s: got %v from %q, want critical from key", s, got, src)
		}
	}
	if got, _, _ := m.MaxTaint(ctx, "sibling"); got != Public {
		t.Errorf("sibling: got %v, want public", got)
	}
	cases := []struct {
		child, parent string
		want          error
	}{
		{"parent", "grandchild", ErrSessionCycle},
		{"x", "x", ErrSessionCycle},
		{"child", "other", ErrParentConflict},
		{"child", "parent", nil}, // same link again
	}
	for _, tc := range cases {
		if err := m.SetParent(ctx, tc.child, tc.parent); !errors.Is(err, tc.want) {
			t.Errorf("SetParent(%s, %s): got %v, want %v", tc.child, tc.parent, err, tc.want)
		}
	}
}

func TestSessionTreeDepthBound(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	var err error
	for i := 0; i < maxSessionDepth+2 && err == nil; i++ {
		err = m.SetParent(ctx, "s"+strings.Repeat("x", i+1), "s"+strings.Repeat("x", i))
	}
	if err == nil || !strings.Contains(err.Error(), "deeper than") {
		t.Errorf("got %v, want the depth bound", err)
	}
}

func TestActivityUpsertKeepMax(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	ups := []Activity{
		{Path: "/tmp/x", Level: Confidential, Labels: []string{"email"}, Source: "a", Session: "s1", Updated: t0},
		{Path: "/tmp/x", Level: Critical, Labels: []string{"aws_key"}, Source: "b", Session: "s2", Updated: t0.Add(time.Second)},
		{Path: "/tmp/x", Level: Internal, Labels: []string{"email", "iban"}, Source: "c", Session: "s3", Updated: t0.Add(2 * time.Second)},
	}
	for _, a := range ups {
		if err := m.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := m.ActivityUnder(ctx, "/tmp/x", Public)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v, want one entry", got, err)
	}
	e := got[0]
	if e.Level != Critical || e.Source != "b" || e.Session != "s2" || !e.Updated.Equal(t0.Add(2*time.Second)) {
		t.Errorf("got %+v, want critical from b by s2, updated last", e)
	}
	if strings.Join(e.Labels, ",") != "aws_key,email,iban" {
		t.Errorf("labels: got %v, want aws_key,email,iban", e.Labels)
	}
	if err := m.UpsertActivity(ctx, Activity{Path: "rel", Level: Critical}); err == nil {
		t.Errorf("relative path: got nil error")
	}
}

func TestActivityUnder(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	for _, p := range []string{"/a/b", "/a/b-x", "/a/b/c", "/a/bc", "/a/b/d/e", "/z"} {
		if err := m.UpsertActivity(ctx, Activity{Path: p, Level: Restricted}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ under, want string }{
		{"/a/b", "/a/b /a/b/c /a/b/d/e"},
		{"/a/b/c", "/a/b/c"},
		{"/a/x", ""},
		{"/", "/a/b /a/b-x /a/b/c /a/b/d/e /a/bc /z"},
	}
	for _, tc := range cases {
		got, err := m.ActivityUnder(ctx, tc.under, Public)
		if err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, a := range got {
			ps = append(ps, a.Path)
		}
		if strings.Join(ps, " ") != tc.want {
			t.Errorf("under %s: got %v, want %s", tc.under, ps, tc.want)
		}
	}
	if err := m.DeleteActivity(ctx, "/a/b/c"); err != nil {
		t.Fatal(err)
	}
	if err := m.DeleteActivity(ctx, "/never"); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.ActivityUnder(ctx, "/a/b", Public); len(got) != 2 {
		t.Errorf("after delete: got %d entries, want 2", len(got))
	}
}

func TestMemoryStoreCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := NewMemoryStore()
	if err := m.RaiseTaint(ctx, "s", Critical, "x"); err == nil {
		t.Errorf("RaiseTaint: got nil error")
	}
	if l, _, err := m.MaxTaint(ctx, "s"); err == nil || l != Critical {
		t.Errorf("MaxTaint: got %v, %v, want critical and an error", l, err)
	}
	if _, err := m.ActivityUnder(ctx, "/", Public); err == nil {
		t.Errorf("ActivityUnder: got nil error")
	}
}

func TestMemoryStoreConcurrent(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				_ = m.RaiseTaint(ctx, "s", Level(j%5), "x")
				_ = m.UpsertActivity(ctx, Activity{Path: "/tmp/f" + string(rune('a'+i)), Level: Level(j % 5)})
				_, _ = m.ActivityUnder(ctx, "/tmp", Public)
			}
		}()
	}
	wg.Wait()
	if got, _, _ := m.MaxTaint(ctx, "s"); got != Critical {
		t.Errorf("got %v, want critical", got)
	}
}

func TestSweep(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.txt")
	gone := filepath.Join(dir, "gone.txt")
	link := filepath.Join(dir, "dangling")
	if err := os.WriteFile(kept, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	m := NewMemoryStore()
	for _, p := range []string{kept, gone, link} {
		if err := m.UpsertActivity(ctx, Activity{Path: p, Level: Critical}); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := Sweep(ctx, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Path != gone {
		t.Errorf("removed: got %v, want only %s", removed, gone)
	}
	all, _ := List(ctx, m)
	if len(all) != 2 {
		t.Errorf("left: got %d entries, want 2 (the file and the dangling link)", len(all))
	}
	failing := func(p string) (bool, error) { return false, errors.New("permission denied") }
	removed, err = Sweep(ctx, m, failing)
	if err == nil || len(removed) != 0 {
		t.Errorf("unknown existence: got %v, %v, want nothing removed and an error", removed, err)
	}
	if all, _ := List(ctx, m); len(all) != 2 {
		t.Errorf("entries must be kept when existence is unknown: got %d, want 2", len(all))
	}
}

func TestActivityUnderMinLevel(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	for _, a := range []Activity{{Path: "/w/a", Level: Confidential}, {Path: "/w/b", Level: Critical}, {Path: "/w/c/d", Level: Restricted}} {
		if err := m.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := m.ActivityUnder(ctx, "/w", Restricted)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != "/w/b" || got[1].Path != "/w/c/d" {
		t.Errorf("got %+v, want /w/b and /w/c/d", got)
	}
}

func TestTopActivity(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	for _, a := range []Activity{{Path: "/w/a", Level: Confidential}, {Path: "/w/b", Level: Critical}, {Path: "/w/c/d", Level: Restricted}, {Path: "/wx", Level: Critical}} {
		if err := m.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		p     string
		below bool
		min   Level
		want  string
	}{
		{"/w", true, Public, "/w/b"},
		{"/w", false, Public, ""},
		{"/w/a", false, Public, "/w/a"},
		{"/w/a", false, Restricted, ""},
		{"/w/c", true, Confidential, "/w/c/d"},
		{"/w/c", true, Critical, ""},
	}
	for _, tc := range tests {
		a, ok, err := m.TopActivity(ctx, tc.p, tc.below, tc.min)
		if err != nil {
			t.Fatal(err)
		}
		if got := map[bool]string{true: a.Path, false: ""}[ok]; got != tc.want {
			t.Errorf("TopActivity(%s, %v, %v): got %q, want %q", tc.p, tc.below, tc.min, got, tc.want)
		}
	}
}

// TestTopActivityMatching: the highest entry among those match accepts,
// under p only, at or above min; match never sees an entry that could
// not win.
func TestTopActivityMatching(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	for _, a := range []Activity{{Path: "/w/a.txt", Level: Confidential, Labels: []string{"email"}}, {Path: "/w/b/c.txt", Level: Restricted},
		{Path: "/w/b/d.log", Level: Critical}, {Path: "/w/e.txt", Level: Restricted}, {Path: "/wx/f.txt", Level: Critical}} {
		if err := m.UpsertActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	txt := func(p string) bool { return strings.HasSuffix(p, ".txt") }
	tests := []struct {
		p     string
		min   Level
		match func(string) bool
		want  string
	}{
		{"/w", Public, txt, "/w/b/c.txt"}, // Restricted twice: the first in path order
		{"/w", Public, func(string) bool { return true }, "/w/b/d.log"},
		{"/w", Critical, txt, ""},
		{"/w/a.txt", Public, txt, "/w/a.txt"},
		{"/w", Public, func(p string) bool { return p == "/w/a.txt" }, "/w/a.txt"},
		{"/", Critical, txt, "/wx/f.txt"},
		{"/w", Public, func(string) bool { return false }, ""},
	}
	for _, tc := range tests {
		seen := map[string]int{}
		a, ok, err := m.TopActivityMatching(ctx, tc.p, tc.min, func(p string) bool { seen[p]++; return tc.match(p) })
		if err != nil {
			t.Fatal(err)
		}
		if got := map[bool]string{true: a.Path, false: ""}[ok]; got != tc.want {
			t.Errorf("TopActivityMatching(%s, %v): got %q, want %q", tc.p, tc.min, got, tc.want)
		}
		for p, n := range seen {
			if n > 1 || !under(p, tc.p) {
				t.Errorf("TopActivityMatching(%s): match saw %s %d times", tc.p, p, n)
			}
		}
		if _, wasted := seen["/w/e.txt"]; wasted && tc.p == "/w" && tc.want == "/w/b/c.txt" {
			t.Errorf("match asked about /w/e.txt after an entry of its level had won")
		}
	}
	// A raised level and a deletion are seen by the next scan.
	if err := m.UpsertActivity(ctx, Activity{Path: "/w/a.txt", Level: Critical}); err != nil {
		t.Fatal(err)
	}
	if a, _, _ := m.TopActivityMatching(ctx, "/w", Public, txt); a.Path != "/w/a.txt" {
		t.Errorf("after raising /w/a.txt to critical: got %q", a.Path)
	}
	if err := m.DeleteActivity(ctx, "/w/a.txt"); err != nil {
		t.Fatal(err)
	}
	if a, _, _ := m.TopActivityMatching(ctx, "/w", Public, txt); a.Path != "/w/b/c.txt" {
		t.Errorf("after deleting /w/a.txt: got %q", a.Path)
	}
	if err := m.UpsertActivity(ctx, Activity{Path: "/w/a.txt", Level: Confidential, Labels: []string{"email"}}); err != nil {
		t.Fatal(err)
	}
	a, _, _ := m.TopActivityMatching(ctx, "/w", Public, func(p string) bool { return p == "/w/a.txt" })
	a.Labels[0] = "changed"
	if b, _, _ := m.TopActivityMatching(ctx, "/w", Public, func(p string) bool { return p == "/w/a.txt" }); b.Labels[0] != "email" {
		t.Error("the returned labels alias the store's")
	}
}
