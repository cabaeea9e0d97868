package shell

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// The commands in this file and in the corpora it reads are test data:
// they are only ever parsed as Go strings, never run.

// corpusPrefix is how the analyser's caller wraps a command.
const corpusPrefix = "cd /home/dev/project && "

// mvdanParse parses src the way analyzer.shellCode does.
func mvdanParse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

var posType = reflect.TypeFor[syntax.Pos]()

// astDiff describes the first difference between two ASTs, ignoring
// syntax.Pos fields; "" when they are equal. Nil and empty slices differ,
// as do a nil and a non-nil pointer.
func astDiff(x, y reflect.Value, path string) string {
	if x.IsValid() != y.IsValid() {
		return path + ": one side is invalid"
	}
	if !x.IsValid() {
		return ""
	}
	if x.Type() != y.Type() {
		return fmt.Sprintf("%s: type %v != %v", path, x.Type(), y.Type())
	}
	switch x.Kind() {
	case reflect.Pointer, reflect.Interface:
		if x.IsNil() || y.IsNil() {
			if x.IsNil() != y.IsNil() {
				return fmt.Sprintf("%s: nil %v != %v", path, x.IsNil(), y.IsNil())
			}
			return ""
		}
		return astDiff(x.Elem(), y.Elem(), path)
	case reflect.Struct:
		for i := range x.NumField() {
			f := x.Type().Field(i)
			if f.Type == posType {
				continue
			}
			if d := astDiff(x.Field(i), y.Field(i), path+"."+f.Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if x.IsNil() != y.IsNil() {
			return fmt.Sprintf("%s: nil slice %v != %v", path, x.IsNil(), y.IsNil())
		}
		fallthrough
	case reflect.Array:
		if x.Len() != y.Len() {
			return fmt.Sprintf("%s: len %d != %d", path, x.Len(), y.Len())
		}
		for i := range x.Len() {
			if d := astDiff(x.Index(i), y.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.String:
		if x.String() != y.String() {
			return fmt.Sprintf("%s: %q != %q", path, x.String(), y.String())
		}
		return ""
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !x.Equal(y) {
			return fmt.Sprintf("%s: %v != %v", path, x, y)
		}
		return ""
	}
	return fmt.Sprintf("%s: unexpected kind %v", path, x.Kind())
}

// fileDiff compares two files, ignoring positions.
func fileDiff(x, y *syntax.File) string {
	return astDiff(reflect.ValueOf(x), reflect.ValueOf(y), "File")
}

// checkFast parses src with both parsers: when the fast parser accepts
// it, mvdan must parse it without error into the same AST.
func checkFast(src string, ar *fastArena) (accepted bool, err error) {
	f, ok := fastParse(src, ar)
	if !ok {
		if f != nil {
			return false, fmt.Errorf("%q: refused with a file", src)
		}
		return false, nil
	}
	return true, sameAsMvdan(src, f)
}

// sameAsMvdan reports whether f is what mvdan makes of src.
func sameAsMvdan(src string, f *syntax.File) error {
	want, err := mvdanParse(src)
	if err != nil {
		return fmt.Errorf("%q: fast parse accepted, mvdan: %v", src, err)
	}
	if d := fileDiff(f, want); d != "" {
		return fmt.Errorf("%q: AST differs: %s", src, d)
	}
	return nil
}

// TestAstDiff shows the comparison can fail.
func TestAstDiff(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"a b", "a c"},
		{"a b", "a b c"},
		{"a | b | c", "a | (b | c)"},
		{"a && b || c", "a && { b || c; }"},
		{`a ""`, `a "x"`},
		{`a "x"`, `a 'x'`},
		{"a;b", "a&b"},
		{"a b", "a=1 b"},
	} {
		x, err1 := mvdanParse(c.a)
		y, err2 := mvdanParse(c.b)
		if err1 != nil || err2 != nil {
			t.Fatalf("parse %q, %q: %v, %v", c.a, c.b, err1, err2)
		}
		if d := fileDiff(x, y); d == "" {
			t.Errorf("%q and %q compare equal", c.a, c.b)
		}
		if d := fileDiff(x, x); d != "" {
			t.Errorf("%q differs from itself: %s", c.a, d)
		}
	}
	// Positions aside, the same code at another offset is equal.
	x, _ := mvdanParse("a  b 'c'")
	y, _ := mvdanParse("  a b   'c'  ")
	if d := fileDiff(x, y); d != "" {
		t.Errorf("positions compared: %s", d)
	}
	// nil and empty slices differ.
	e := &syntax.File{Stmts: []*syntax.Stmt{}}
	if d := fileDiff(e, &syntax.File{}); d == "" {
		t.Error("nil and empty slices compare equal")
	}
}

// fastAccept are commands the fast parser must accept.
var fastAccept = []string{
	`ls`,
	`ls -la /tmp`,
	"  ls\t-l  ",
	"\n\nls\n\n",
	`a | b | c`,
	`a && b || c`,
	`a || b && c`,
	`a | b && c | d || e`,
	`a && b | c || d`,
	"a;b;c",
	"a; b ;c;",
	"a\nb\n\nc",
	"a;\nb",
	"a &&\n\n b",
	"a ||\n b",
	"a |\n b",
	"a|b",
	"a&&b||c",
	`cd /home/dev/project && grep -rn 'foo bar' . | sort -u`,
	`echo 'it''s' "x" ''`,
	`echo ""`,
	`echo "a b" "c'd" 'e"f'`,
	`echo a'b'"c"d`,
	`echo 'a\b' 'c\` + "\n" + `d'`,
	"echo 'multi\nline' \"two\nlines\"",
	`ls foo[0-9].txt [ab]c x[1][2] {}[0] 'q'[x]y[z]`,
	`find . -name '*.go' -exec grep -l x {} +`,
	`[ -f x ] && echo yes`,
	`test -d /tmp || mkdir -p /tmp/x`,
	`echo a#b '#c' x '#'#`,
	`echo a=b c=d`,
	`'a=b' c`,
	`"x"=y`,
	`a'b'=c`,
	`echo ! x ! ]] if then fi { } {} time`,
	`!x`,
	`a ~ ~/x x~ @ % ^ , : + - . / ? * ] =`,
	`echo "!" '!' "*" "#"`,
	`''`,
	`echo 2 1 0`,
	`echo $HOME "$HOME" ${HOME} "${HOME}" $HOME/x "x$HOME" "$a$b" $a$b "$a b"`,
	`echo $0 $1 $12 $1a ${10} ${1}0 $@ $* $# $$ $? $! $- "$@" "$#" $_ $_a $a_1`,
	`echo $a#b $a[0] $a=b $a'b' $a"b" $a\c`,
	`$CMD -x`,
	`echo a\ b \; \| \& \$x \' \" \( \) \< \> \# \\ \{ \} \[ \] x\` + "`" + `y`,
	`find . -name '*.o' -exec rm {} \;`,
	`\rm -f x`,
	`a\=b`,
	`echo "a\"b" "\$x" "\\" "a\` + "`" + `b" "\n\t"`,
	`echo "a\\` + "\n" + `b"`,
	`echo a\\` + "\n" + `b`,
	`echo "tab	in	quotes" 'tab	too'`,
}

// fastRefuse are commands the fast parser must refuse.
var fastRefuse = []string{
	``,
	`   `,
	"\n",
	`;`,
	`a;;`,
	`;a`,
	`a; ;b`,
	"a\n;b",
	`a &&`,
	`a ||`,
	`a |`,
	`&& a`,
	`| a`,
	`a && && b`,
	`a | | b`,
	`a |& b`,
	`a ||| b`,
	`a &`,
	`a & b`,
	`a &&& b`,
	`a;&`,
	"echo `id`",
	"echo \"`id`\"",
	"echo a\\\nb",
	`echo $'x'`,
	`echo $"x"`,
	`(a)`,
	`a (b)`,
	`echo @(x)`,
	`echo x=(a b)`,
	`{ a; }`,
	`{a,b}`,
	`a > b`,
	`a < b`,
	`a 2>&1`,
	`a <<EOF`,
	`cat <(ls)`,
	`# comment`,
	`a # comment`,
	`a;#c`,
	`! a`,
	`!`,
	`if true; then a; fi`,
	`for x in a; do b; done`,
	`while a; do b; done`,
	`until a; do b; done`,
	`case x in esac`,
	`time a`,
	`coproc a`,
	`select x in a; do b; done`,
	`function f`,
	`[[ -f x ]]`,
	`]]`,
	`let x=1`,
	`declare x`,
	`local x`,
	`export A=b`,
	`readonly x`,
	`typeset x`,
	`nameref x`,
	`do`,
	`done`,
	`then`,
	`fi`,
	`esac`,
	`in`,
	`}`,
	`a=b`,
	`a=b c`,
	`a+=b c`,
	`a[0]=b`,
	`a[0] b`,
	`x=1 ls`,
	`=x`,
	`echo 'unterminated`,
	`echo "unterminated`,
	"echo \x00",
	"echo a\rb",
	"echo a\r\nb",
	"echo 'a\r\nb'",
	"echo \x7f",
	"echo é",
	"echo 'é'",
	"echo \"é\"",
	"echo \x0c",
	`cd /home/dev/project && rm -rf / &`,
	`echo $`,
	`echo "$"`,
	`echo $/`,
	`echo a$`,
	`echo "a$ b"`,
	`echo ${#a}`,
	`echo ${a:-b}`,
	`echo ${a[0]}`,
	`echo ${@}`,
	`echo ${!a}`,
	`echo ${a`,
	`echo ${}`,
	`echo ${a }`,
	`echo $((1))`,
	`echo $(ls)`,
	`echo $[1]`,
	`echo "$(ls)"`,
	`echo "${a:-b}"`,
	`echo "$'x'"`,
	"echo \"a\\\nb\"",
	"echo a\\\tb",
	"echo a\\",
	"echo \"a\\",
	"echo a\\\x01",
	"echo a\\é",
	`a\[0]=b`,
	`x\ =1 y`,
}

func TestFastParseTable(t *testing.T) {
	ar := new(fastArena)
	for _, src := range fastAccept {
		t.Run("accept/"+src, func(t *testing.T) {
			ok, err := checkFast(src, ar)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatalf("got refused, want accepted")
			}
		})
	}
	for _, src := range fastRefuse {
		t.Run("refuse/"+src, func(t *testing.T) {
			if f, ok := fastParse(src, ar); ok || f != nil {
				t.Fatalf("got accepted, want refused")
			}
		})
	}
}

// testStrings returns every string literal of the shell package's tests
// and every string of the repository's case corpus: whatever they are,
// they make inputs for the parsers.
func testStrings(t testing.TB) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*_test.go")
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				if s, err := strconv.Unquote(bl.Value); err == nil {
					out = append(out, s)
				}
			}
			return true
		})
	}
	err := filepath.WalkDir("../testdata/corpus", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = yamlStrings(out, &doc)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("read case corpus: %v", err)
	}
	return out
}

// yamlStrings appends the scalar values under n.
func yamlStrings(dst []string, n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return append(dst, n.Value)
	}
	for _, c := range n.Content {
		dst = yamlStrings(dst, c)
	}
	return dst
}

// diffCorpus checks every command, bare and as the caller wraps it. All
// files are kept in one arena and compared again at the end: later parses
// (and the undoing of refused ones) must not touch earlier trees.
func diffCorpus(t *testing.T, cmds []string) (accepted, total int) {
	t.Helper()
	ar := new(fastArena)
	type kept struct {
		src string
		f   *syntax.File
	}
	var all []kept
	for _, c := range cmds {
		for _, src := range []string{c, corpusPrefix + c} {
			total++
			f, ok := fastParse(src, ar)
			if !ok {
				continue
			}
			accepted++
			all = append(all, kept{src, f})
			if err := sameAsMvdan(src, f); err != nil {
				t.Error(err)
			}
		}
	}
	for _, k := range all {
		if err := sameAsMvdan(k.src, k.f); err != nil {
			t.Errorf("after later parses: %v", err)
		}
	}
	// Once reset, the arena serves again.
	ar.reset()
	for _, k := range all {
		if _, err := checkFast(k.src, ar); err != nil {
			t.Errorf("after reset: %v", err)
		}
	}
	return accepted, total
}

// TestFastParseNL2Bash is the differential test over the nl2bash corpus.
func TestFastParseNL2Bash(t *testing.T) {
	lines := loadCorpus(t)
	acc, total := diffCorpus(t, lines)
	n := 0
	ar := new(fastArena)
	for _, l := range lines {
		if _, ok := fastParse(corpusPrefix+l, ar); ok {
			n++
		}
		ar.reset()
	}
	t.Logf("fast parse accepts %d of %d nl2bash commands (%.1f%%) as the caller wraps them; %d of %d bare and wrapped",
		n, len(lines), 100*float64(n)/float64(len(lines)), acc, total)
}

// TestFastParseTestStrings is the differential test over the strings of
// the package's tests and of the case corpus.
func TestFastParseTestStrings(t *testing.T) {
	strs := testStrings(t)
	acc, total := diffCorpus(t, strs)
	t.Logf("fast parse accepts %d of %d test strings (bare and wrapped)", acc, total)
}

// TestFastParseAllocs checks that a warm arena makes parsing allocation
// free.
func TestFastParseAllocs(t *testing.T) {
	ar := new(fastArena)
	src := corpusPrefix + `find . -name '*.go' | xargs grep -l "TODO" && echo done`
	if _, ok := fastParse(src, ar); !ok {
		t.Fatal("refused")
	}
	ar.reset()
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := fastParse(src, ar); !ok {
			t.Fatal("refused")
		}
		ar.reset()
	})
	if allocs != 0 {
		t.Errorf("got %v allocs per parse, want 0", allocs)
	}
}

// fastTokens are the pieces TestFastParseRandom strings commands from:
// what the subset takes and its borders.
var fastTokens = []string{
	" ", " ", " ", "\t", "\n", ";", "|", "||", "&&", "&", "a", "b", "x1", "_", "0", "1",
	"'", "\"", "$", "${", "}", "{", "[", "]", "=", "+=", "\\", "#", "!", "@", "*", "?",
	"-", "~", "%", "^", ",", ".", "/", ":", "(", ")", "<", ">", "`", "\r", "\x00",
	"if", "then", "fi", "for", "in", "do", "done", "time", "let", "export", "[[", "]]",
	"{}", "$a", "$1", "$@", "$#", "${a}", "${1}", "'x y'", "\"x y\"", "\"$a\"", "\\ ",
}

// TestFastParseRandom is a deterministic differential test over commands
// strung from fastTokens.
func TestFastParseRandom(t *testing.T) {
	n := 300000
	if testing.Short() {
		n = 20000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ar := new(fastArena)
	var sb strings.Builder
	acc := 0
	for range n {
		sb.Reset()
		for range 1 + rng.IntN(12) {
			sb.WriteString(fastTokens[rng.IntN(len(fastTokens))])
		}
		ok, err := checkFast(sb.String(), ar)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			acc++
		}
		ar.reset()
	}
	t.Logf("accepted %d of %d", acc, n)
}

// FuzzFastParse: whatever the fast parser accepts, mvdan parses into the
// same AST.
func FuzzFastParse(f *testing.F) {
	for _, s := range fastAccept {
		f.Add(s)
	}
	for _, s := range fastRefuse {
		f.Add(s)
	}
	for _, s := range goldenCmds {
		f.Add(s)
		f.Add(corpusPrefix + s)
	}
	for _, s := range fastTokens {
		f.Add(s)
	}
	ar := new(fastArena)
	f.Fuzz(func(t *testing.T, src string) {
		defer ar.reset()
		acc, err := checkFast(src, ar)
		if err != nil {
			t.Fatal(err)
		}
		if !acc {
			return
		}
		// A second parse in the same arena leaves the first tree alone.
		f1, _ := fastParse(src, ar)
		if _, err := checkFast(src+"\n"+src, ar); err != nil {
			t.Fatal(err)
		}
		if err := sameAsMvdan(src, f1); err != nil {
			t.Fatalf("after a second parse: %v", err)
		}
	})
}

// BenchmarkParseNL2Bash compares mvdan's parser with the fast path (which
// falls back to mvdan) over the nl2bash commands as the caller wraps them,
// and both parsers over the commands the fast path accepts.
//
//	go test ./shell -run='^$' -bench=ParseNL2Bash -benchmem
func BenchmarkParseNL2Bash(b *testing.B) {
	lines := loadCorpus(b)
	all := make([]string, len(lines))
	var accepted []string
	ar := new(fastArena)
	for i, l := range lines {
		all[i] = corpusPrefix + l
		if _, ok := fastParse(all[i], ar); ok {
			accepted = append(accepted, all[i])
		}
		ar.reset()
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	var rd strings.Reader
	mvdan := func(cmds []string) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for _, c := range cmds {
					rd.Reset(c)
					_, _ = p.Parse(&rd, "")
				}
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(cmds)), "ns/cmd")
		}
	}
	fast := func(cmds []string) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for _, c := range cmds {
					if _, ok := fastParse(c, ar); !ok {
						rd.Reset(c)
						_, _ = p.Parse(&rd, "")
					}
					ar.reset()
				}
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(cmds)), "ns/cmd")
		}
	}
	b.Run("all/mvdan", mvdan(all))
	b.Run("all/fast", fast(all))
	b.Run("accepted/mvdan", mvdan(accepted))
	b.Run("accepted/fast", fast(accepted))
}
