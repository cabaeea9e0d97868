package runfile

import (
	"path"
	"strconv"
	"strings"
)

// Go source files hold commands for later: each //go:generate line is a
// program `go generate` runs in the file's directory, without a shell (its
// words split on blanks, "double-quoted" words unquoted as Go strings,
// $NAME expanded from the environment and the generator's own variables,
// a -command NAME line defining NAME as the words after it for the lines
// below). A unit is the line as a shell command of the same words: a
// $NAME it cannot know stays a shell variable (an unknown word to the
// analyser), never an empty one.

// directivePrefix starts a directive line.
const directivePrefix = "//go:generate"

// HasDirective reports whether text holds a //go:generate line (a file's
// content, or text a command inserts into one).
func HasDirective(text string) bool { return strings.Contains(text, directivePrefix) }

// goUnits returns the directives of a Go source file as units.
func goUnits(file, dir, content string) ([]Unit, string) {
	if !HasDirective(content) {
		return nil, ""
	}
	aliases := map[string][]string{}
	var units []Unit
	unknown := ""
	for n, line := range strings.Split(content, "\n") {
		words, ok, why := directiveWords(line, path.Base(file))
		if !ok {
			continue
		}
		part := "go:generate line " + strconv.Itoa(n+1)
		if why != "" {
			unknown = file + " " + part + ": " + why
			continue
		}
		if len(words) == 0 {
			continue
		}
		if words[0] == "-command" {
			if len(words) < 3 {
				continue
			}
			aliases[words[1]] = words[2:]
			words = words[2:] // judged where it is defined, whoever uses it
		} else if a, ok := aliases[words[0]]; ok {
			words = append(append([]string{}, a...), words[1:]...)
		}
		if len(units) >= MaxUnits {
			return units, file + " has more than " + strconv.Itoa(MaxUnits) + " directives"
		}
		units = append(units, Unit{File: file, Part: part, Lang: "sh", Code: shellWords(words), Dir: dir})
	}
	return units, unknown
}

// DirectiveUnits returns, as units of file, the //go:generate lines text
// inserts wherever they stand in it (an argument of sed or echo that
// writes one into a source file): the code after the marker up to the end
// of its line, or of a "\n" the inserting program turns into one.
func DirectiveUnits(file, dir, text string) ([]Unit, string) {
	var b strings.Builder
	for rest := text; ; {
		i := strings.Index(rest, directivePrefix)
		if i < 0 {
			break
		}
		line := rest[i:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if j := strings.Index(line, `\n`); j >= 0 {
			line = line[:j]
		}
		b.WriteString(line)
		b.WriteByte('\n')
		rest = rest[i+len(directivePrefix):]
	}
	return goUnits(file, dir, b.String())
}

// directiveWords splits a directive line into its words as go generate
// does; ok is false when the line is not a directive, why says what
// could not be read.
func directiveWords(line, gofile string) (words []string, ok bool, why string) {
	line = strings.TrimRight(strings.TrimLeft(line, " \t"), " \t\r")
	rest, found := strings.CutPrefix(line, directivePrefix)
	if !found || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil, false, ""
	}
	for rest = strings.TrimLeft(rest, " \t"); rest != ""; rest = strings.TrimLeft(rest, " \t") {
		var w string
		if rest[0] == '"' {
			end := quotedEnd(rest)
			if end < 0 {
				return nil, true, "an unterminated quoted word"
			}
			u, err := strconv.Unquote(rest[:end])
			if err != nil {
				return nil, true, "a quoted word that is not a Go string"
			}
			w, rest = u, rest[end:]
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			w, rest = rest[:end], rest[end:]
		}
		words = append(words, expandGo(w, gofile))
	}
	return words, true, ""
}

// quotedEnd is the index after the closing quote of the Go string at the
// start of s, or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// expandGo expands the generator's own variables in a word; other $NAME
// references are left for the shell (unknown to the analyser).
func expandGo(w, gofile string) string {
	if !strings.Contains(w, "$") {
		return w
	}
	r := strings.NewReplacer("$GOFILE", gofile, "${GOFILE}", gofile, "$DOLLAR", "\x00", "${DOLLAR}", "\x00")
	return r.Replace(w)
}

// shellWords quotes words as one shell command: each in double quotes, a
// $NAME kept as the shell variable of that name, every other special
// character escaped ($DOLLAR, expanded to NUL above, is a literal $).
func shellWords(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		for j := 0; j < len(w); j++ {
			switch c := w[j]; {
			case c == 0:
				b.WriteString(`\$`)
			case c == '$' && j+1 < len(w) && (w[j+1] == '{' || w[j+1] == '_' || alpha(w[j+1])):
				b.WriteByte('$')
			case c == '$' || c == '"' || c == '\\' || c == '`':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

func alpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Bounds of `go generate`: the files of the packages it names looked at,
// and the directories walked for a pattern ending in "...".
const (
	maxGenerateFiles = 2048
	maxGenerateDirs  = 512
)

// generateRuns: go generate [flags] [packages | files]. Each .go file of
// the packages named (the directory's, by default; every directory below
// for DIR/...) that holds a directive is a target; one the walk cannot
// list or bound is an unknown target.
func generateRuns(args []string, cwd string, fs FS) []Target {
	var pkgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-run" || a == "-skip" || a == "-tags" || a == "-mod" || a == "-modfile" || a == "-C":
			if a == "-C" && i+1 < len(args) {
				cwd = abs(cwd, args[i+1])
			}
			i++
		case strings.HasPrefix(a, "-"):
		default:
			pkgs = append(pkgs, a)
		}
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	g := generate{fs: fs, cwd: cwd}
	for _, p := range pkgs {
		g.pkg(p)
	}
	return g.out
}

type generate struct {
	fs          FS
	cwd         string
	out         []Target
	files, dirs int
	over        bool
}

func (g *generate) pkg(p string) {
	switch {
	case p == "" || strings.HasPrefix(p, "-"):
		g.unknown(g.cwd, "a package the analysis could not resolve")
	case strings.HasSuffix(p, ".go"):
		g.file(abs(g.cwd, p))
	case p == "all" || p == "std" || p == "cmd":
		g.unknown(g.cwd, "the package pattern "+p)
	case p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || path.IsAbs(p):
		if dir, ok := strings.CutSuffix(p, "/..."); ok {
			g.walk(abs(g.cwd, dir), 0)
			return
		}
		g.dir(abs(g.cwd, p))
	default:
		// An import path: the module's own packages, or a dependency's
		// (module cache, vendor): not read.
		g.unknown(g.cwd, "the import path "+p+" (its files were not looked up)")
	}
}

func (g *generate) unknown(dir, why string) {
	g.out = append(g.out, Target{File: dir, Kind: KindGo, Dir: dir, Unknown: "go generate runs " + why})
}

// dir looks at a directory's .go files and returns its subdirectories.
func (g *generate) dir(dir string) []string {
	files, dirs, ok := g.fs.List(dir)
	if !ok {
		if g.fs.Exists(dir) {
			g.unknown(dir, "the files of "+dir+", which could not be listed")
		}
		return nil
	}
	for _, n := range files {
		if strings.HasSuffix(n, ".go") {
			g.file(path.Join(dir, n))
		}
	}
	return dirs
}

// walk visits dir and the directories below it that go would (not
// vendor, testdata, nor names starting with . or _).
func (g *generate) walk(dir string, depth int) {
	if g.over {
		return
	}
	if g.dirs++; g.dirs > maxGenerateDirs || depth > 32 {
		g.over = true
		g.unknown(dir, "the directives of more than "+strconv.Itoa(maxGenerateDirs)+" directories")
		return
	}
	for _, sub := range g.dir(dir) {
		if sub == "vendor" || sub == "testdata" || strings.HasPrefix(sub, ".") || strings.HasPrefix(sub, "_") {
			continue
		}
		g.walk(path.Join(dir, sub), depth+1)
	}
}

func (g *generate) file(p string) {
	if g.over {
		return
	}
	if g.files++; g.files > maxGenerateFiles {
		g.over = true
		g.unknown(path.Dir(p), "the directives of more than "+strconv.Itoa(maxGenerateFiles)+" files")
		return
	}
	content, ok := g.fs.Read(p)
	if !ok {
		if g.fs.Exists(p) {
			g.unknown(path.Dir(p), p+", which could not be read")
		}
		return
	}
	if HasDirective(content) {
		g.out = append(g.out, Target{File: p, Kind: KindGo, Dir: path.Dir(p)})
	}
}
