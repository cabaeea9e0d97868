package guard

import (
	"slices"
	"testing"
)

func TestUnreadable(t *testing.T) {
	g := New("/work/proj", "/home/u")
	got := g.Unreadable()
	for _, want := range []string{"/home/u/.ssh", "/home/u/.aws", "/home/u/.parallax", "/work/proj/.parallax", "/etc/shadow", "/root"} {
		if !slices.Contains(got, want) {
			t.Errorf("Unreadable lacks %s", want)
		}
	}
	for _, not := range []string{"/home/u/.bashrc", "/work/proj/SOUL.md", "/etc/passwd", "/home/u", "/work/proj"} {
		if slices.Contains(got, not) {
			t.Errorf("Unreadable holds %s, which may be read", not)
		}
	}
	// The root user's home is not denied whole, only its parts.
	root := New("/work/proj", "/root").Unreadable()
	if slices.Contains(root, "/root") || !slices.Contains(root, "/root/.ssh") {
		t.Errorf("home /root: got %v", root)
	}
	if New("relative", "/home/u").Unreadable() != nil {
		t.Error("a broken guard lists paths")
	}
}
