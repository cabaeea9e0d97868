package shell

import (
	"testing"

	"github.com/parallax/parallax/action"
)

// splitUse reports whether a piece of a split name uses p with acc.
func splitUse(e *Effects, p string, acc action.Access) bool {
	for _, u := range e.Paths {
		if u.Split && u.Path == p && u.Access&acc != 0 {
			return true
		}
	}
	return false
}

// A listing's names that reach a consumer through a channel splitting
// them on blanks or newlines ("./z .. q.tmp" gives "./z", ".." and
// "q.tmp") hand a consumer that recurses into a directory operand the
// working directory's parent: its tree is in the effects, marked Split.
func TestSplitNamesReachTheParentOfRecursiveConsumers(t *testing.T) {
	cases := []struct {
		cmd string
		acc action.Access
	}{
		{`find . -name "*.tmp" | xargs rm -rf`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs rm -r -f`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs rm --recursive`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs -d '\n' rm -rf`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs -n1 rm -rf`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs -I{} rm -rf {}`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs -i rm -rf {}`, action.AccessDelete},
		{`rm -rf $(find . -name "*.tmp")`, action.AccessDelete},
		{"rm -rf `find . -name '*.tmp'`", action.AccessDelete},
		{`for f in $(find . -name "*.tmp"); do rm -rf "$f"; done`, action.AccessDelete},
		{`find . -name "*.tmp" | while read f; do rm -rf "$f"; done`, action.AccessDelete},
		{`find . -name "*.tmp" | while read -r f; do rm -rf "$f"; done`, action.AccessDelete},
		{`ls | xargs rm -rf`, action.AccessDelete},
		{`grep -l foo *.txt | xargs rm -rf`, action.AccessDelete},
		{`grep -rl foo src | xargs rm -rf`, action.AccessDelete},
		{`find . -name "*.tmp" | sort | xargs rm -rf`, action.AccessDelete},
		{`find . -name "*.tmp" | xargs chmod -R 777`, action.AccessWrite},
		{`find . -name "*.tmp" | xargs chown -R nobody`, action.AccessWrite},
		{`find . -name "*.cfg" | xargs cp -r -t /tmp/bak`, action.AccessRead},
		{`find . -name "*.cfg" | xargs -I{} cp -a {} /tmp/bak/`, action.AccessRead},
		{`find . -name "*.old" | xargs mv -t /tmp/attic`, action.AccessDelete},
		{`find . -name "*.log" | xargs tar czf /tmp/logs.tgz`, action.AccessRead},
		{`find . -name "*.txt" | xargs grep -r secret`, action.AccessRead},
		{`find . -name "*.go" | xargs gofmt -w`, action.AccessWrite},
		{`find . -type d -name build | xargs du -sh`, action.AccessRead},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			e := Analyze(c.cmd, tOpt)
			if !splitUse(e, tHome, c.acc) {
				t.Errorf("got paths %v, want a split use of %s with access %v", e.Paths, tHome, c.acc)
			}
		})
	}
}

// A channel that does not split (-print0 | xargs -0, -exec {} +,
// -delete, read -d "", a loop over a glob) and a consumer that does not
// recurse into a directory operand (sed -i, cat, wc, rm without -r) get
// no pieces.
func TestSplitNamesLeaveOtherChannelsAndConsumersAlone(t *testing.T) {
	for _, cmd := range []string{
		`find . -name "*.tmp" -print0 | xargs -0 rm -rf`,
		`find . -name "*.tmp" -print0 | xargs --null rm -rf`,
		`find . -name "*.tmp" -print0 | xargs -d '\0' rm -rf`,
		`find . -name "*.tmp" -exec rm -rf {} +`,
		`find . -name "*.tmp" -delete`,
		`for f in *.tmp; do rm -rf "$f"; done`,
		`find . -name "*.tmp" -print0 | while IFS= read -r -d "" f; do rm -rf "$f"; done`,
		`rm -rf "$(find . -name x.tmp | head -n 1)"`,
		`find . -name "*.go" | xargs sed -i s/a/b/`,
		`grep -rl --include=*.go old . | xargs sed -i s/old/new/`,
		`find . -name '*.txt' | xargs wc -l`,
		`find . -name '*.txt' | xargs cat`,
		`find . -name "*.tmp" | xargs rm -f`,
		`find . -name '*.go' | xargs gofmt -l`,
		`find . -name '*.go' | xargs grep -n TODO`,
		`for f in $(find . -name '*.md'); do wc -l $f; done`,
	} {
		t.Run(cmd, func(t *testing.T) {
			e := Analyze(cmd, tOpt)
			for _, u := range e.Paths {
				if u.Split {
					t.Errorf("got split use %+v, want none", u)
				}
				if u.Path == tHome {
					t.Errorf("got use of the parent %+v, want none", u)
				}
			}
		})
	}
}

// The pieces join a destination's sources: the last operand keeps its
// role (mv SOURCE... DEST).
func TestSplitPiecesKeepTheDestination(t *testing.T) {
	e := Analyze(`ls | xargs -I{} mv {} old_{}`, tOpt)
	if !splitUse(e, tHome, action.AccessDelete) {
		t.Errorf("got paths %v, want a split use of %s", e.Paths, tHome)
	}
	if !hasUse(e, "w*:"+tCwd+"/old_*") {
		t.Errorf("got paths %v, want the destination old_* written", e.Paths)
	}
}
