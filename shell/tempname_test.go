package shell

import (
	"slices"
	"strings"
	"testing"
)

// pathsOf renders the analysed paths as "access path".
func pathsOf(eff *Effects) []string {
	var out []string
	for _, u := range eff.Paths {
		out = append(out, u.Access.String()+" "+u.Path)
	}
	return out
}

func opaque(eff *Effects) bool {
	return slices.ContainsFunc(eff.Tags, func(t Tag) bool { return t.Kind == TagOpaque })
}

var privEnv = map[string]string{"TMPDIR": "/tmp/priv", "PATH": "/usr/bin:/bin"}

// With the executor's TMPDIR known, mktemp and tempfile name a fresh file
// there and $TMPDIR resolves; every other spelling stays unknown.
func TestMktempNamesAFileInThePrivateTemp(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string // paths that must be recorded; nil: the command stays opaque
	}{
		{`f=$(mktemp) && go test ./... > "$f"; grep FAIL "$f"`,
			[]string{"write /tmp/priv/tmp.XXXXXXXXXX", "read /tmp/priv/tmp.XXXXXXXXXX"}},
		{`echo x > $TMPDIR/x`, []string{"write /tmp/priv/x"}},
		{`echo x > "${TMPDIR}/x"`, []string{"write /tmp/priv/x"}},
		{`d=$(mktemp -d); echo x > "$d/out"`, []string{"write /tmp/priv/tmp.XXXXXXXXXX/out"}},
		{`f=$(mktemp -t cover.XXXXXX); cat "$f"`, []string{"read /tmp/priv/cover.XXXXXX"}},
		{`f=$(mktemp -p /tmp/priv/ x.XXXX); cat "$f"`, []string{"read /tmp/priv/x.XXXX"}},
		{`f=$(mktemp --tmpdir=/tmp/priv --suffix=.json); cat "$f"`, []string{"read /tmp/priv/tmp.XXXXXXXXXX.json"}},
		{`f=$(mktemp -u); cat "$f"`, []string{"read /tmp/priv/tmp.XXXXXXXXXX"}},
		{`f=$(tempfile -s .log); cat "$f"`, []string{"read /tmp/priv/fileXXXXXX.log"}},
		// Stays unknown: another directory, a template in the working
		// directory, a TMPDIR the command changed, an ambiguous parse.
		{`f=$(mktemp -p ~/.ssh); echo k >> "$f"`, nil},
		{`f=$(mktemp -p "$X"); echo k >> "$f"`, nil},
		{`f=$(mktemp x.XXXX); echo k >> "$f"`, nil},
		{`f=$(mktemp --tmpdir x.XXXX); echo k >> "$f"`, nil},
		{`f=$(mktemp -t a/XXXX); echo k >> "$f"`, nil},
		{`f=$(mktemp -p /tmp/priv ../XXXX); echo k >> "$f"`, nil},
		{`TMPDIR=/etc; f=$(mktemp); echo k >> "$f"`, nil},
		{`export TMPDIR=/etc; f=$(mktemp); echo k >> "$f"`, nil},
		{`echo k >> "$(TMPDIR=/etc mktemp)"`, nil},
		{`echo k >> "$(env TMPDIR=/etc mktemp)"`, nil},
		{`echo k >> "$(env -u TMPDIR mktemp)"`, nil},
		{`unset TMPDIR; echo k >> "$(mktemp)"`, nil},
		{`PATH=.:$PATH; echo k >> "$(mktemp)"`, nil},
		{`f=$(tempfile -d /etc); echo k >> "$f"`, nil},
		{`f=$(tempfile -n /etc/x); echo k >> "$f"`, nil},
	}
	for _, c := range cases {
		eff := Analyze(c.cmd, Options{Cwd: "/ws", Home: "/home/u", Env: privEnv})
		got := pathsOf(eff)
		if c.want == nil {
			if !opaque(eff) {
				t.Errorf("%s: paths %v, not opaque; want the temp name unknown", c.cmd, got)
			}
			continue
		}
		if opaque(eff) {
			t.Errorf("%s: opaque %v; want resolved", c.cmd, eff.Tags)
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: paths %v; want %q", c.cmd, got, w)
			}
		}
	}
}

// Without the executor's environment nothing changes: $TMPDIR and
// mktemp's output are unknown.
func TestMktempUnknownWithoutEnv(t *testing.T) {
	for _, cmd := range []string{`f=$(mktemp); echo x > "$f"`, `echo x > $TMPDIR/x`, `f=$(mktemp -p /tmp); cat "$f"`} {
		eff := Analyze(cmd, Options{Cwd: "/ws", Home: "/home/u"})
		if !opaque(eff) {
			t.Errorf("%s: paths %v; want opaque without Env", cmd, pathsOf(eff))
		}
	}
}

// A loop over a glob walks its body once per entry Options.Glob lists,
// each a known word; past the bound, or with names that would split,
// the glob stays a pattern.
func TestLoopGlobExpandsThroughOptions(t *testing.T) {
	var calls []string
	list := func(names ...string) GlobFunc {
		return func(dir, pat string, dirs bool) ([]string, bool) {
			calls = append(calls, dir+" "+pat)
			return names, true
		}
	}
	eff := Analyze(`for d in */; do (cd "$d" && go vet ./...); done`, Options{Cwd: "/ws", Home: "/h", Glob: list("api", "web")})
	if opaque(eff) || !slices.Contains(pathsOf(eff), "read /ws/api") || !slices.Contains(pathsOf(eff), "read /ws/web") {
		t.Errorf("for d in */: paths %v tags %v; want /ws/api and /ws/web read, nothing opaque", pathsOf(eff), eff.Tags)
	}
	if !slices.Equal(calls, []string{"/ws *"}) {
		t.Errorf("glob calls %v; want one of /ws *", calls)
	}
	for _, c := range []struct {
		cmd   string
		names []string
	}{
		{`for d in */; do (cd "$d" && go vet ./...); done`, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}},
		{`for d in */; do (cd "$d" && go vet ./...); done`, []string{"a b"}},
		{`for d in */; do (cd "$d" && go vet ./...); done`, []string{"*"}},
		{`for d in */; do (cd "$d" && go vet ./...); done`, nil},
		{`for d in .*/; do (cd "$d" && go vet ./...); done`, []string{"a"}},
		{`for d in "$X"/*/; do (cd "$d" && go vet ./...); done`, []string{"a"}},
	} {
		eff := Analyze(c.cmd, Options{Cwd: "/ws", Home: "/h", Glob: list(c.names...)})
		if !opaque(eff) {
			t.Errorf("%s with %v: paths %v; want the glob left unknown", c.cmd, c.names, pathsOf(eff))
		}
	}
}

// Options.Glob is asked at most maxGlobCalls times per analysis, however
// many loops the command has.
func TestLoopGlobCallsBounded(t *testing.T) {
	n := 0
	glob := func(dir, pat string, dirs bool) ([]string, bool) { n++; return []string{"a"}, true }
	cmd := strings.Repeat(`for d in */; do ls "$d"; done; `, 3*maxGlobCalls)
	Analyze(cmd, Options{Cwd: "/ws", Home: "/h", Glob: glob})
	if n > maxGlobCalls {
		t.Errorf("Glob called %d times; want at most %d", n, maxGlobCalls)
	}
}

// A sourced file Options.Source reads runs in the command's shell: its
// variables and directory stay known after it. Without Source, or for a
// name bash looks up in PATH, it is unknown code as before.
func TestSourcedFileWalkedInThisShell(t *testing.T) {
	src := func(p string) (string, bool) {
		if p == "/ws/.venv/bin/activate" {
			return `VIRTUAL_ENV=/ws/.venv; export VIRTUAL_ENV`, true
		}
		return "", false
	}
	const cmd = `. .venv/bin/activate && printf %s "$VIRTUAL_ENV" > venv.txt`
	eff := Analyze(cmd, Options{Cwd: "/ws", Home: "/h", Source: src})
	if opaque(eff) || !slices.Contains(pathsOf(eff), "write /ws/venv.txt") {
		t.Errorf("with Source: paths %v tags %v; want /ws/venv.txt written, nothing opaque", pathsOf(eff), eff.Tags)
	}
	for _, o := range []Options{{Cwd: "/ws", Home: "/h"}, {Cwd: "/ws", Home: "/h", Source: func(string) (string, bool) { return "", false }}} {
		if eff := Analyze(cmd, o); !opaque(eff) {
			t.Errorf("without a readable file: paths %v; want the directory unknown after source", pathsOf(eff))
		}
	}
	if eff := Analyze(`. activate && echo x > out`, Options{Cwd: "/ws", Home: "/h", Source: src}); !opaque(eff) {
		t.Errorf(". activate (a PATH lookup): paths %v; want unknown", pathsOf(eff))
	}
	evil := func(string) (string, bool) { return `cd ~/.ssh`, true }
	eff = Analyze(`. ./env.sh && echo k >> authorized_keys`, Options{Cwd: "/ws", Home: "/h", Source: evil})
	if !slices.Contains(pathsOf(eff), "write /h/.ssh/authorized_keys") {
		t.Errorf("a sourced cd: paths %v; want the write judged where it lands", pathsOf(eff))
	}
}
