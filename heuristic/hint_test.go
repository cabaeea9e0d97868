package heuristic

import (
	"testing"

	"github.com/parallax/parallax/shell"
)

// The advice names the command's variables (never values), at most a
// few, and $TMPDIR only where the executor named it.
func TestPathHint(t *testing.T) {
	opq := shell.Tag{Kind: shell.TagOpaque, Detail: "unresolved path"}
	rel := shell.Tag{Kind: shell.TagOpaque, Detail: "relative path in unknown directory"}
	cases := []struct {
		tag      shell.Tag
		cmd, tmp string
		want     string
	}{
		{opq, `cat "$f"`, "", " in $f: name the file, or use /tmp/NAME or a path in the workspace"},
		{opq, `cat "${OUT}/x" $a $b $c $d`, "/tmp", " in $OUT, $a, $b: name the file, or use $TMPDIR/NAME or a path in the workspace"},
		{opq, `cat $f $f $1`, "", " in $f: name the file, or use /tmp/NAME or a path in the workspace"},
		{rel, `cd "$d" && ls x`, "", " in $d: cd to a directory the command names, or give the path in full"},
		{shell.Tag{Kind: shell.TagDynamicCommand, Detail: "unresolved path"}, `$c`, "", ""},
		{shell.Tag{Kind: shell.TagOpaque, Detail: "internal error"}, `$c`, "", ""},
	}
	for _, c := range cases {
		if got := pathHint(c.tag, c.cmd, c.tmp); got != c.want {
			t.Errorf("pathHint(%v, %q, %q) = %q, want %q", c.tag, c.cmd, c.tmp, got, c.want)
		}
	}
}
