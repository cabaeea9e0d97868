package shell

import (
	"slices"
	"strings"
	"testing"
)

// The commands in this file are test data: they are only ever passed to
// Analyze as Go strings, never run.

// gitUses renders the path uses of an analysis ("write P/** tree",
// "delete P", "read P/x.patch"), P standing for the workspace.
func gitUses(e *Effects) []string {
	var out []string
	for _, u := range e.Paths {
		s := u.Access.String() + " " + strings.ReplaceAll(u.Path, P, "P")
		switch {
		case u.Creates:
			s += " tree"
		case u.Recursive:
			s += " recursive"
		}
		out = append(out, s)
	}
	return out
}

// TestGitWritesTheWorkTree: each working-tree writer of git records, as
// trees that may hold paths that do not exist yet, exactly what it can
// write: its pathspecs (resolved against the directory, -C, --work-tree),
// or the whole work tree. What moves only refs or the index, and what
// only reads, records no write.
func TestGitWritesTheWorkTree(t *testing.T) {
	for _, c := range gitWriteCases {
		t.Run(c.cmd, func(t *testing.T) {
			e := Analyze(c.cmd, kbOpt)
			got := gitUses(e)
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			for _, k := range c.tags {
				if !e.Has(k) {
					t.Errorf("missing tag %s; got %v", k, e.Tags)
				}
			}
			if c.tags == nil && e.Has(TagOpaque) {
				t.Errorf("unexpected opaque: %v", e.Tags)
			}
		})
	}
}

// W is the whole work tree in gitWriteCases.
const W = "write P/** tree"

// gitWriteCases are git commands with the exact path uses they record
// (they seed FuzzAnalyze too).
var gitWriteCases = []struct {
	cmd  string
	want []string
	tags []TagKind
}{
	// checkout: pathspecs, or a switch of the whole tree
	{"git checkout HEAD -- .claude/settings.json", []string{"write P/.claude/settings.json/** tree"}, nil},
	{"git checkout .claude/settings.json", []string{"write P/.claude/settings.json/** tree"}, nil},
	{"git checkout -- .", []string{W}, nil},
	{"git checkout .", []string{W}, nil},
	{"git checkout main", []string{W, "write P/main/** tree"}, nil},
	{"git checkout HEAD~1", []string{W, "write P/HEAD~1/** tree"}, nil},
	{"git checkout -", []string{W}, nil},
	{"git checkout main --", []string{W}, nil},
	{"git checkout main -- a.go b/", []string{"write P/a.go/** tree", "write P/b/** tree"}, nil},
	{"git checkout main a.go", []string{"write P/main/** tree", "write P/a.go/** tree"}, nil},
	{"git checkout -b feature", nil, nil},
	{"git checkout -B feature", nil, nil},
	{"git checkout --orphan gh-pages", nil, nil},
	{"git checkout -b feature origin/main", []string{W, "write P/origin/main/** tree"}, nil},
	{"git checkout -f", []string{W}, nil},
	{"git checkout", nil, nil},
	{"git checkout -- '*.json'", []string{W}, nil},
	{"git checkout -- 'src/*.go'", []string{"write P/src/** tree"}, nil},
	{"git checkout -- ':(top)x'", []string{W}, nil},
	{"git checkout -- \"$f\"", []string{W}, nil},
	{"git checkout $REF -- x", []string{"write P/x/** tree"}, nil},
	{"git checkout --pathspec-from-file=list.txt HEAD", []string{"read P/list.txt", W}, nil},
	{"git -C sub checkout HEAD -- x", []string{"read P/sub", "write P/sub/x/** tree"}, nil},
	{"cd sub && git checkout -- .claude/settings.json", []string{"write P/sub/.claude/settings.json/** tree"}, nil},
	{"git --work-tree=/srv/w checkout HEAD -- x", []string{"read /srv/w", "write /srv/w/x/** tree"}, nil},
	{"cd /srv/w/sub && git --work-tree=/srv/w checkout HEAD -- x", []string{"read /srv/w", "write /srv/w/sub/x/** tree"}, nil},
	{"git --git-dir=/tmp/g checkout .", []string{"read /tmp/g", W}, []TagKind{TagOpaque}},
	{"git -c core.worktree=/srv checkout .", []string{W}, []TagKind{TagOpaque}},
	// switch
	{"git switch main", []string{W}, nil},
	{"git switch -f main", []string{W}, nil},
	{"git switch -", []string{W}, nil},
	{"git switch -c feature", nil, nil},
	{"git switch -c feature origin/main", []string{W}, nil},
	{"git switch --orphan empty", []string{W}, nil},
	{"git switch --detach", nil, nil},
	// restore
	{"git restore .claude/settings.json", []string{"write P/.claude/settings.json/** tree"}, nil},
	{"git restore --staged .claude/settings.json", nil, nil},
	{"git restore -S -W x", []string{"write P/x/** tree"}, nil},
	{"git restore -s HEAD~1 -- src", []string{"write P/src/** tree"}, nil},
	{"git restore -p", []string{W}, nil},
	// reset: the tree only with --hard, --merge, --keep
	{"git reset --hard", []string{W}, nil},
	{"git reset --hard HEAD~1", []string{W}, nil},
	{"git reset --merge ORIG_HEAD", []string{W}, nil},
	{"git reset --keep main", []string{W}, nil},
	{"git reset", nil, nil},
	{"git reset --soft HEAD~1", nil, nil},
	{"git reset --mixed HEAD~1", nil, nil},
	{"git reset HEAD .claude/settings.json", nil, nil},
	{"git reset -p", nil, nil},
	// stash
	{"git stash", []string{W}, nil},
	{"git stash push -m wip", []string{W}, nil},
	{"git stash -u", []string{"write+delete P/** tree"}, nil},
	{"git stash push --all", []string{"write+delete P/** tree"}, nil},
	{"git stash push -- src", []string{"write P/src/** tree"}, nil},
	{"git stash -- src", []string{"write P/src/** tree"}, nil},
	{"git stash push src/a.go", []string{"write P/src/a.go/** tree"}, nil},
	{"git stash save wip", []string{W}, nil},
	{"git stash pop", []string{W}, nil},
	{"git stash apply stash@{1}", []string{W}, nil},
	{"git stash branch b", []string{W}, nil},
	{"git stash list", nil, nil},
	{"git stash show -p", nil, nil},
	{"git stash drop", nil, nil},
	{"git stash clear", nil, nil},
	// patches
	{"git apply x.patch", []string{"read P/x.patch", W}, nil},
	{"git apply --check x.patch", []string{"read P/x.patch"}, nil},
	{"git apply --stat x.patch", []string{"read P/x.patch"}, nil},
	{"git apply --stat --apply x.patch", []string{"read P/x.patch", W}, nil},
	{"git apply --cached x.patch", []string{"read P/x.patch"}, nil},
	{"git apply --unsafe-paths x.patch", []string{"read P/x.patch", W}, []TagKind{TagOpaque}},
	{"git am 0001.patch", []string{"read P/0001.patch", W}, nil},
	{"git am --abort", []string{W}, nil},
	{"git am --show-current-patch", nil, nil},
	// history
	{"git merge feature", []string{W}, nil},
	{"git merge --abort", []string{W}, nil},
	{"git merge --continue", nil, nil},
	{"git rebase main", []string{W}, nil},
	{"git rebase --continue", []string{W}, nil},
	{"git rebase --edit-todo", nil, nil},
	{"git cherry-pick abc123", []string{W}, nil},
	{"git cherry-pick -n abc123", []string{W}, nil},
	{"git cherry-pick --quit", nil, nil},
	{"git revert abc123", []string{W}, nil},
	{"git pull", []string{W}, nil},
	{"git pull --rebase origin main", []string{W}, nil},
	{"git -C /srv/repo pull", []string{"read /srv/repo", "write /srv/repo/** tree"}, nil},
	{"git bisect start bad good", []string{W}, nil},
	{"git bisect log", nil, nil},
	{"git filter-branch --prune-empty HEAD", []string{W}, nil},
	{"git subtree add --prefix=lib https://example.com/r.git main", []string{W}, nil},
	{"git subtree split --prefix=lib", nil, nil},
	// plumbing
	{"git read-tree -u -m HEAD", []string{W}, nil},
	{"git read-tree HEAD", nil, nil},
	{"git read-tree -u -n -m HEAD", nil, nil},
	{"git checkout-index -a -f", []string{W}, nil},
	{"git checkout-index -f -- .claude/settings.json", []string{"write P/.claude/settings.json/** tree"}, nil},
	{"git checkout-index -a --prefix=/tmp/out/", []string{"write /tmp/out/** tree"}, nil},
	{"git checkout-index -a --prefix=old-", []string{W}, nil},
	{"git sparse-checkout set src", []string{W}, nil},
	{"git sparse-checkout list", nil, nil},
	{"git merge-file a.txt base.txt b.txt", []string{"read+write P/a.txt", "read P/base.txt", "read P/b.txt"}, nil},
	{"git merge-file -p a.txt base.txt b.txt", []string{"read P/a.txt", "read P/base.txt", "read P/b.txt"}, nil},
	// clean deletes what exists
	{"git clean -fd", []string{"delete P"}, nil},
	{"git clean -f build", []string{"delete P/build"}, nil},
	{"git clean -f '*.json'", []string{"delete P/** recursive"}, nil},
	{"git clean -f -- 'conf/*.local'", []string{"delete P/conf/** recursive"}, nil},
	{"git clean -n", nil, nil},
	{"cd src && git clean -fdx", []string{"delete P/src"}, nil},
	// where the work tree is
	{"cd src && git stash", []string{W}, nil},
	{"cd /srv/other && git reset --hard", []string{"write /srv/other/** tree"}, nil},
	{"cd / && git stash", []string{"write /** tree"}, nil},
	{"GIT_WORK_TREE=/srv/w git stash", []string{W}, []TagKind{TagOpaque}},
	{"env GIT_DIR=/srv/g.git git reset --hard", []string{W}, []TagKind{TagOpaque}},
	{"export GIT_WORK_TREE=/srv/w; git merge x", []string{W}, []TagKind{TagOpaque}},
	// aliases given on the command line are what they stand for
	{"git -c alias.co=checkout co HEAD -- .claude/settings.json", []string{"read P/.claude/settings.json", "write P/.claude/settings.json/** tree"}, nil},
	{"git -c alias.up='reset --hard' up", []string{W}, nil},
	{"git --config-env=alias.co=X co .", []string{"read P"}, []TagKind{TagOpaque}},
	{"GIT_CONFIG_COUNT=1 git co main", nil, []TagKind{TagOpaque}},
}

// TestGitReadsWriteNothing: read-only git (and branch and commit
// bookkeeping) records no write of the tree.
func TestGitReadsWriteNothing(t *testing.T) {
	for _, cmd := range []string{
		"git status", "git diff", "git diff .claude/", "git diff --stat HEAD~1", "git log -- .claude/settings.json",
		"git log --oneline -20", "git show HEAD:.claude/settings.json", "git show HEAD~1 --stat", "git branch",
		"git branch -a -v", "git fetch", "git fetch origin main", "git commit -m x", "git add -A",
		"git add .claude/settings.json", "git blame src/main.go", "git stash list", "git checkout -b feature",
		"git switch -c feature", "git rev-parse --show-toplevel", "git remote -v", "git tag v1.0",
	} {
		e := Analyze(cmd, kbOpt)
		for _, u := range e.Paths {
			if u.Access != 1 { // action.AccessRead
				t.Errorf("%s: got %v %s, want reads only", cmd, u.Access, u.Path)
			}
		}
	}
}
