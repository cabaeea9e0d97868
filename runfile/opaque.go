package runfile

import (
	"path"
	"strings"
)

// Opaque build files hold code their build tool runs that the analyser
// cannot read: a Cargo build.rs (Rust compiled and run by cargo build),
// Gradle build and settings scripts (Groovy, Kotlin), CMake files, a
// Maven pom.xml (its plugins run programs), and a pyproject.toml naming
// an in-tree build backend (backend-path: Python run by pip install .).
// Units of a run of one are none, with the reason as unknown: a gate
// asks for review when the agent wrote the file. Units of a write are
// the command-like literals the text holds (Command::new("curl") with
// its args, commandLine 'sh', '-c', '...', execute_process(COMMAND ...),
// <executable>/<argument>, <exec executable=...><arg .../>): a gate can
// refuse a write whose text spells out a refused command.

// Bounds of reading an opaque file's literals.
const (
	maxStatement = 4 << 10 // bytes of one statement read for literals
	maxWords     = 64      // words of one command
	maxScans     = 1024    // statements of one file read (maxScans*maxStatement bytes at most)
)

// opaqueBase reports whether a file name is an opaque build file.
func opaqueBase(base string) bool {
	switch base {
	case "build.rs", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
		"CMakeLists.txt", "pom.xml", "pyproject.toml":
		return true
	}
	return strings.HasSuffix(base, ".cmake") || strings.HasSuffix(base, ".gradle") || strings.HasSuffix(base, ".gradle.kts")
}

// opaqueWhat says what an opaque file is, for a reason.
func opaqueWhat(file string) string {
	base := path.Base(file)
	switch {
	case base == "build.rs" || strings.HasSuffix(base, ".rs"):
		return base + " is Rust code cargo compiles and runs"
	case strings.Contains(base, "gradle"):
		return base + " is a Gradle script (Groovy or Kotlin) gradle runs"
	case base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake"):
		return base + " is CMake code cmake runs"
	case base == "pom.xml":
		return base + " is a Maven build whose plugins mvn runs"
	case base == "pyproject.toml":
		return base + " names an in-tree build backend (backend-path) that pip and build run"
	}
	return base + " is build code its tool runs"
}

// opaqueFileUnits returns the commands an opaque file's text spells out.
func opaqueFileUnits(file, dir, content string) ([]Unit, string) {
	var cmds [][]string
	switch base := path.Base(file); {
	case base == "pyproject.toml":
		return nil, ""
	case strings.HasSuffix(base, ".rs"):
		cmds = rustCommands(content)
	case strings.Contains(base, "gradle"):
		cmds = gradleCommands(content)
	case base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake"):
		cmds = cmakeCommands(content)
	case base == "pom.xml":
		cmds = mavenCommands(content)
	}
	var units []Unit
	for i, words := range cmds {
		if len(units) >= MaxUnits {
			return units, file + " spells out more than " + itoa(MaxUnits) + " commands"
		}
		units = append(units, Unit{File: file, Part: "command " + itoa(i+1), Lang: "sh", Code: commandCode(words), Dir: dir})
	}
	return units, ""
}

// commandCode renders words as one shell command. A single word holding
// a blank is a command line (Groovy's "...".execute(), exec_program("..."))
// and is given as it is; other words are quoted, keeping a leading ~/
// and $NAME, ${NAME} expansions (what an environment read in the
// build language stands for).
func commandCode(words []string) string {
	if len(words) == 1 && strings.ContainsAny(words[0], " \t") {
		return words[0]
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w == "~" || strings.HasPrefix(w, "~/") {
			b.WriteByte('~')
			w = w[1:]
		}
		b.WriteByte('"')
		for j := 0; j < len(w); j++ {
			c := w[j]
			switch {
			case c == '$' && j+1 < len(w) && (w[j+1] == '{' || w[j+1] == '_' || isAlpha(w[j+1])):
			case c == '"' || c == '\\' || c == '`' || c == '$':
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	return b.String()
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// homeRefs are how build languages name the home directory or an
// environment variable; each becomes the shell's spelling.
var homeRefs = strings.NewReplacer(
	`${System.getProperty("user.home")}`, "${HOME}", `${System.getProperty('user.home')}`, "${HOME}",
	`${System.properties['user.home']}`, "${HOME}", `${System.getenv("HOME")}`, "${HOME}",
	`${System.getenv('HOME')}`, "${HOME}", "${env.HOME}", "${HOME}", "${user.home}", "${HOME}", "$ENV{", "${",
)

// literals returns the string literals of a statement of a C-like
// language ('...' and "..." with backslash escapes, Rust r"..." and
// r#"..."#, triple-quoted Groovy strings), in order.
func literals(s string, single bool) []string { return literalsN(s, single, maxWords) }

// literalsN is literals, at most n of them.
func literalsN(s string, single bool, n int) []string {
	var out []string
	for i := 0; i < len(s) && len(out) < n; i++ {
		c := s[i]
		switch {
		case c == 'r' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '#') && (i == 0 || !isWordByte(s[i-1])):
			j := i + 1
			for j < len(s) && s[j] == '#' {
				j++
			}
			if j >= len(s) || s[j] != '"' {
				continue
			}
			close := "\"" + strings.Repeat("#", j-i-1)
			end := strings.Index(s[j+1:], close)
			if end < 0 {
				return out
			}
			out = append(out, s[j+1:j+1+end])
			i = j + end + len(close)
		case c == '"' || c == '\'' && single:
			if strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], "'''") {
				end := strings.Index(s[i+3:], s[i:i+3])
				if end < 0 {
					return out
				}
				out = append(out, s[i+3:i+3+end])
				i += 3 + end + 2
				continue
			}
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			out = append(out, homeRefs.Replace(b.String()))
			i = j
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		}
	}
	return out
}

func isWordByte(c byte) bool { return c == '_' || isAlpha(c) || c >= '0' && c <= '9' }

// statementAt returns the statement starting at i: up to a ; (or a
// newline, when lines ends statements) outside brackets, at most
// maxStatement bytes.
func statementAt(s string, i int, lines bool) string {
	depth := 0
	end := min(len(s), i+maxStatement)
	var quote byte
	for j := i; j < end; j++ {
		c := s[j]
		switch {
		case quote != 0:
			if c == '\\' {
				j++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return s[i:j]
			}
		case c == ';' && depth == 0, c == '\n' && depth == 0 && lines:
			return s[i:j]
		}
	}
	return s[i:end]
}

// rustCommands: each Command::new(...) with the literals of its chained
// .arg/.args calls. A literal starting with {} (a format! of a home
// directory read in the same statement) stands for $HOME when the
// statement reads HOME.
func rustCommands(s string) [][]string {
	var out [][]string
	for i, n := 0, 0; i < len(s) && len(out) < MaxUnits && n < maxScans; n++ {
		k := strings.Index(s[i:], "Command::new(")
		if k < 0 {
			break
		}
		at := i + k + len("Command::new")
		stmt := statementAt(s, at, false)
		home := strings.Contains(stmt, `"HOME"`) || strings.Contains(stmt, "home_dir")
		words := literals(stmt, false)
		for j, w := range words {
			if home && strings.HasPrefix(w, "{") {
				if e := strings.IndexByte(w, '}'); e > 0 {
					words[j] = "${HOME}" + w[e+1:]
				}
			}
		}
		words = dropWord(words, "HOME")
		if len(words) > 0 {
			out = append(out, words)
		}
		i = at + max(1, len(stmt))
	}
	return out
}

// dropWord removes the literal naming an environment variable read (it
// is the variable's name, not an argument).
func dropWord(words []string, w string) []string {
	out := words[:0]
	for _, x := range words {
		if x != w {
			out = append(out, x)
		}
	}
	return out
}

// gradleTriggers start a statement whose literals are a command's
// words; executable and args of one exec block are joined.
var gradleTriggers = []string{"commandLine", "executable", "args", ".execute(", "ProcessBuilder(", ".exec("}

// gradleCommands: commandLine 'sh', '-c', '...', exec { executable 'x';
// args '...' }, "cmd".execute(), ['a', 'b'].execute(),
// ProcessBuilder("a", "b"), Runtime.getRuntime().exec("...").
func gradleCommands(s string) [][]string {
	var out [][]string
	var pending []string
	flush := func() {
		if len(pending) > 0 && len(out) < MaxUnits {
			out = append(out, pending)
		}
		pending = nil
	}
	scans := 0
	for _, line := range lineStarts(s) {
		text, _, _ := strings.Cut(s[line:min(len(s), line+maxStatement)], "\n")
		text = strings.TrimSpace(text)
		if strings.HasPrefix(text, "}") {
			flush()
		}
		for _, t := range gradleTriggers {
			k := strings.Index(text, t)
			if k < 0 || k > 0 && t[0] != '.' && t[0] != 'P' && isWordByte(text[k-1]) ||
				t[0] != '.' && k+len(t) < len(text) && isWordByte(text[k+len(t)]) {
				continue
			}
			if scans++; scans > maxScans {
				flush()
				return out
			}
			var stmt string
			if t[0] == '.' && t != ".exec(" { // "cmd".execute(): the literal comes first
				stmt = statementAt(s, line, true)
			} else {
				stmt = statementAt(s, line+strings.Index(s[line:], t)+len(t), true)
			}
			words := literals(stmt, true)
			switch t {
			case "args":
				pending = append(pending, words...)
			case "executable":
				flush()
				pending = words
			default:
				flush()
				if len(words) > 0 && len(out) < MaxUnits {
					out = append(out, words)
				}
			}
			break
		}
	}
	flush()
	return out
}

// lineStarts returns the offset of each line.
func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && i+1 < len(s) {
			out = append(out, i+1)
		}
	}
	return out
}

// cmakeKeywords end a COMMAND's words.
var cmakeKeywords = map[string]bool{
	"COMMAND": true, "WORKING_DIRECTORY": true, "OUTPUT_VARIABLE": true, "ERROR_VARIABLE": true,
	"RESULT_VARIABLE": true, "RESULTS_VARIABLE": true, "OUTPUT_QUIET": true, "ERROR_QUIET": true,
	"TIMEOUT": true, "DEPENDS": true, "OUTPUT": true, "BYPRODUCTS": true, "COMMENT": true, "VERBATIM": true,
	"USES_TERMINAL": true, "INPUT_FILE": true, "OUTPUT_FILE": true, "ERROR_FILE": true, "ECHO_OUTPUT_VARIABLE": true,
	"ECHO_ERROR_VARIABLE": true, "COMMAND_ECHO": true, "ENCODING": true, "COMMAND_ERROR_IS_FATAL": true,
	"OUTPUT_STRIP_TRAILING_WHITESPACE": true, "ERROR_STRIP_TRAILING_WHITESPACE": true, "IMPLICIT_DEPENDS": true,
	"MAIN_DEPENDENCY": true, "DEPFILE": true, "JOB_POOL": true, "JOB_SERVER_AWARE": true, "APPEND": true,
	"COMMAND_EXPAND_LISTS": true, "PRE_BUILD": true, "PRE_LINK": true, "POST_BUILD": true, "TARGET": true,
	"ALL": true, "SOURCES": true, "ARGS": true, "RETURN_VALUE": true, "CODEGEN": true,
}

// cmakeCommands: the COMMAND lists of execute_process, add_custom_command
// and add_custom_target, and exec_program(PROGRAM ARGS ...).
func cmakeCommands(s string) [][]string {
	var out [][]string
	lower := asciiLower(s) // same offsets as s
	for _, fn := range []string{"execute_process", "add_custom_command", "add_custom_target", "exec_program"} {
		for i, n := 0, 0; i < len(lower) && len(out) < MaxUnits && n < maxScans; n++ {
			k := strings.Index(lower[i:], fn)
			if k < 0 {
				break
			}
			at := i + k + len(fn)
			i = at
			open := strings.IndexByte(s[at:min(len(s), at+64)], '(')
			if open < 0 {
				continue
			}
			args := cmakeArgs(s, at+open+1)
			var cur []string
			in := fn == "exec_program"
			for _, a := range args {
				switch {
				case a == "COMMAND" || in && a == "ARGS":
					if a == "COMMAND" && len(cur) > 0 {
						out = append(out, cur)
						cur = nil
					}
					in = true
				case cmakeKeywords[a]:
					in = false
				case in && len(cur) < maxWords:
					cur = append(cur, homeRefs.Replace(a))
				}
			}
			if len(cur) > 0 && len(out) < MaxUnits {
				out = append(out, cur)
			}
		}
	}
	return out
}

// cmakeArgs splits a CMake call's arguments from i to its closing
// paren: "quoted", [[bracket]] and unquoted words; # comments skipped.
// At most maxStatement bytes are read.
func cmakeArgs(s string, i int) []string {
	var out []string
	end := min(len(s), i+maxStatement)
	depth := 0
	for i < end {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < end && s[i] != '\n' {
				i++
			}
		case c == ')':
			if depth == 0 {
				return out
			}
			depth--
			i++
		case c == '(':
			depth++
			i++
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < end && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < end {
					j++
				}
				b.WriteByte(s[j])
			}
			out = append(out, b.String())
			i = j + 1
		case strings.HasPrefix(s[i:], "[["):
			e := strings.Index(s[i+2:end], "]]")
			if e < 0 {
				return out
			}
			out = append(out, s[i+2:i+2+e])
			i += e + 4
		default:
			j := i
			for j < end && !strings.ContainsRune(" \t\r\n()\"#", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
		if len(out) > 4*maxWords {
			return out
		}
	}
	return out
}

// mavenCommands: exec-maven-plugin's <executable> with the <argument>s
// and <commandlineArgs> after it, antrun's <exec executable="..."> with
// its <arg value="..."/> and <arg line="..."/>.
func mavenCommands(s string) [][]string {
	var out [][]string
	var cur []string
	flush := func() {
		if len(cur) > 0 && len(out) < MaxUnits {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			break
		}
		i += k
		e := strings.IndexByte(s[i:], '>')
		if e < 0 {
			break
		}
		tag := s[i+1 : i+e]
		i += e + 1
		name, attrs, _ := strings.Cut(tag, " ")
		text := func() string {
			t := strings.IndexByte(s[i:], '<')
			if t < 0 {
				return ""
			}
			return xmlText(s[i : i+t])
		}
		switch name {
		case "executable":
			flush()
			cur = append(cur, text())
		case "argument":
			if len(cur) < maxWords {
				cur = append(cur, text())
			}
		case "commandlineArgs":
			cur = append(cur, strings.Fields(text())...)
		case "exec":
			flush()
			if v, ok := xmlAttr(attrs, "executable"); ok {
				cur = append(cur, v)
			}
		case "arg", "arg/":
			if v, ok := xmlAttr(attrs, "value"); ok && len(cur) < maxWords {
				cur = append(cur, v)
			} else if v, ok := xmlAttr(attrs, "line"); ok {
				cur = append(cur, strings.Fields(v)...)
			}
		case "/configuration", "/exec", "/execution", "/plugin":
			flush()
		}
	}
	flush()
	return out
}

var xmlEntities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'")

func xmlText(s string) string { return homeRefs.Replace(xmlEntities.Replace(strings.TrimSpace(s))) }

// xmlAttr returns the value of name="..." (or '...') in attrs.
func xmlAttr(attrs, name string) (string, bool) {
	for _, q := range []string{`"`, `'`} {
		k := strings.Index(attrs, name+"="+q)
		if k < 0 || k > 0 && isWordByte(attrs[k-1]) {
			continue
		}
		rest := attrs[k+len(name)+2:]
		e := strings.Index(rest, q)
		if e < 0 {
			return "", false
		}
		return xmlText(rest[:e]), true
	}
	return "", false
}

// asciiLower lowers ASCII letters only, keeping every byte's offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
