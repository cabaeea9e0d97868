package shell

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// walkPrograms calls f for every Program reachable from the knowledge
// base (subcommands included), with a path naming it.
func walkPrograms(f func(path string, p *Program)) {
	var visit func(string, *Program, int)
	visit = func(path string, p *Program, depth int) {
		f(path, p)
		if p == nil || depth > 6 {
			return
		}
		for name, sp := range p.Sub {
			visit(path+" "+name, sp, depth+1)
		}
		if p.SubDefault != nil {
			visit(path+" <default>", p.SubDefault, depth+1)
		}
	}
	for name, p := range programs() {
		visit(name, p, 0)
	}
}

func TestKBTables(t *testing.T) {
	_ = programs() // the tables are built on first use; flags() records its errors then
	if len(kbBad) > 0 {
		t.Fatalf("malformed flags() calls: %v", kbBad)
	}
	seen := map[string]int{}
	for i, build := range kbTables {
		for name := range build() {
			if j, dup := seen[name]; dup {
				t.Errorf("%q is in tables %d and %d", name, j, i)
			}
			seen[name] = i
		}
	}
	for alias, canon := range kbAliases {
		if _, ok := seen[canon]; !ok {
			t.Errorf("alias %q names %q, which is not in the knowledge base", alias, canon)
		}
		if _, ok := seen[alias]; ok {
			t.Errorf("alias %q is also a program of its own", alias)
		}
	}
	walkPrograms(func(path string, p *Program) {
		if p == nil {
			t.Errorf("%s: nil Program", path)
			return
		}
		needLang := p.StdinCode
		for _, r := range append(append([]Role{}, p.Args...), p.Rest) {
			if r == RoleCode || r == RoleScript {
				needLang = true
			}
		}
		for name, f := range p.Flags {
			if !strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "+") {
				t.Errorf("%s: flag %q does not start with - or +", path, name)
			}
			if strings.ContainsAny(name, " =\t") {
				t.Errorf("%s: flag %q holds a space or =", path, name)
			}
			if f.Role != RoleNone && !f.Value {
				t.Errorf("%s: flag %q has a role but takes no value", path, name)
			}
			if f.Role == RoleCode || f.Role == RoleScript {
				needLang = true
			}
		}
		if needLang && p.Lang == "" {
			t.Errorf("%s: code or script roles without Lang", path)
		}
		for name, sp := range p.Sub {
			if sp == nil {
				t.Errorf("%s: nil subcommand %q", path, name)
			}
		}
	})
}

func TestKBLookup(t *testing.T) {
	for _, name := range []string{"ls", "git", "python3", "gls", "tar", "docker", "kubectl", "sudo", "find", "xargs"} {
		if lookup(name) == nil {
			t.Errorf("lookup(%q) = nil", name)
		}
	}
	if lookup("surely-not-a-program") != nil {
		t.Error("Lookup of an unknown name is not nil")
	}
}

func TestKBSetuidMode(t *testing.T) {
	for mode, want := range map[string]bool{
		"u+s": true, "+s": true, "g+s": true, "a+rwxs": true, "4755": true, "2755": true, "6755": true,
		"04755": true, "755": false, "0755": false, "1777": false, "u-s": false, "+x": false, "go-w": false, "": false,
	} {
		if got := setuidMode(mode); got != want {
			t.Errorf("setuidMode(%q) = %v, want %v", mode, got, want)
		}
	}
}

// shellBuiltins are names the shell handles itself (the core's builtins
// plus keywords); they need no knowledge base entry.
var shellBuiltins = map[string]bool{
	":": true, "true": true, "false": true, "shift": true, "wait": true, "jobs": true, "fg": true, "bg": true,
	"disown": true, "return": true, "exit": true, "break": true, "continue": true, "umask": true, "ulimit": true,
	"hash": true, "type": true, "shopt": true, "getopts": true, "times": true, "caller": true, "help": true,
	"let": true, "test": true, "[": true, "[[": true, "logout": true, "suspend": true, "complete": true,
	"compgen": true, "compopt": true, "dirs": true, "local": true, "declare": true, "typeset": true,
	"readonly": true, "export": true, "unset": true, "set": true, "alias": true, "unalias": true, "trap": true,
	"history": true, "read": true, "mapfile": true, "readarray": true, "cd": true, "pushd": true, "popd": true,
	"echo": true, "printf": true, "eval": true, "exec": true, "command": true, "builtin": true, "source": true,
	".": true, "enable": true, "fc": true, "bind": true, "kill": true, "time": true,
}

const nl2bashPath = "../../shared/corpora/nl2bash/all.cm"

// corpusNames counts the command names of the nl2bash corpus: the first
// word of every simple command, when it is a literal.
func corpusNames(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(nl2bashPath)
	if err != nil {
		t.Skipf("nl2bash corpus not found: %v", err)
	}
	defer f.Close()
	counts := map[string]int{}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		file, err := p.Parse(strings.NewReader(sc.Text()), "")
		if err != nil {
			continue
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
				if name := ce.Args[0].Lit(); name != "" {
					counts[baseName(strings.ReplaceAll(name, "\\", ""))]++
				}
			}
			return true
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	return counts
}

// TestKBCoverage: at least 97% of the command occurrences of the nl2bash
// corpus are knowledge base programs or shell builtins. Run with -v to
// see the misses.
func TestKBCoverage(t *testing.T) {
	counts := corpusNames(t)
	total, known := 0, 0
	type miss struct {
		name string
		n    int
	}
	var misses []miss
	for name, n := range counts {
		total += n
		if lookup(name) != nil || shellBuiltins[name] {
			known += n
		} else {
			misses = append(misses, miss{name, n})
		}
	}
	sort.Slice(misses, func(i, j int) bool {
		return misses[i].n > misses[j].n || misses[i].n == misses[j].n && misses[i].name < misses[j].name
	})
	var b strings.Builder
	for i, m := range misses {
		if i == 60 {
			break
		}
		b.WriteString(m.name)
		b.WriteByte(' ')
	}
	pct := 100 * float64(known) / float64(total)
	t.Logf("nl2bash: %d of %d command occurrences known (%.2f%%), %d programs in the knowledge base; top misses: %s",
		known, total, pct, len(programs()), b.String())
	if pct < 97 {
		t.Errorf("coverage %.2f%% < 97%%; misses: %s", pct, b.String())
	}
	for _, m := range misses {
		if m.n >= 3 && !strings.ContainsAny(m.name, ".$%’”") && m.name != strings.ToUpper(m.name) && !placeholderName(m.name) {
			t.Errorf("program %q appears %d times in nl2bash and is not in the knowledge base", m.name, m.n)
		}
	}
}

// placeholderName reports names the corpus uses as stand-ins ("foo",
// "somecommand", "myscript") rather than real programs.
func placeholderName(s string) bool {
	l := strings.ToLower(s)
	for _, p := range []string{"foo", "bar", "some", "your", "my", "cmd", "command", "process", "script", "program", "prog"} {
		if strings.Contains(l, p) {
			return true
		}
	}
	return l == "1" || l == "..." || l == "a.out"
}

func BenchmarkLookup(b *testing.B) {
	names := []string{"ls", "git", "grep", "find", "docker", "unknown-program", "python3", "xargs"}
	for b.Loop() {
		for _, n := range names {
			_ = lookup(n)
		}
	}
}
