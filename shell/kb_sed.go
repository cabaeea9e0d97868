package shell

import (
	"regexp"
	"strings"

	"github.com/parallax/parallax/action"
)

// sed: the script decides what is read, written and executed. GNU sed's
// e command and s///e flag run shell code; w/W write files; r/R read them.

// checkSed parses sed's arguments (-i takes an optional attached suffix,
// BSD's "-i ”" a separate one), then scans the scripts.
func checkSed(c *Call) {
	var scripts, files []Word
	inPlace, haveScript := false, false
	args := c.Args
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.Value
		switch {
		case v == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case v == "-e" || v == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			haveScript = true
		case strings.HasPrefix(v, "--expression="):
			scripts = append(scripts, Word{Value: v[len("--expression="):], Known: w.Known})
			haveScript = true
		case v == "-f" || v == "--file":
			if i+1 < len(args) {
				c.Use(args[i+1], accR)
				i++
			}
			haveScript = true
		case strings.HasPrefix(v, "--file="):
			c.Use(Word{Value: v[len("--file="):], Known: w.Known}, accR)
			haveScript = true
		case v == "-l" || v == "--line-length":
			i++
		case strings.HasPrefix(v, "--in-place") || strings.HasPrefix(v, "-i"):
			inPlace = true
			// BSD: "-i ''" or "-i .bak" gives the suffix as its own word.
			if v == "-i" && i+1 < len(args) && args[i+1].Known &&
				(args[i+1].Value == "" || strings.HasPrefix(args[i+1].Value, ".")) {
				i++
			}
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			// combined short flags: -n, -E, -ne 'script', -nf file
			if strings.ContainsRune(v, 'i') {
				inPlace = true
			}
			if strings.HasSuffix(v, "e") && i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				haveScript = true
				i++
			} else if strings.HasSuffix(v, "f") && i+1 < len(args) {
				c.Use(args[i+1], accR)
				haveScript = true
				i++
			}
		case strings.HasPrefix(v, "--"):
		default:
			if !haveScript {
				scripts = append(scripts, w)
				haveScript = true
			} else {
				files = append(files, w)
			}
		}
	}
	acc := accR
	if inPlace {
		acc = accRW
	}
	for _, f := range files {
		c.Use(f, acc)
	}
	for _, s := range scripts {
		scanSed(c, s)
	}
	if inPlace {
		var text strings.Builder
		for _, s := range scripts {
			if s.Known {
				text.WriteString(insertedText(s.Value, true))
			}
		}
		for _, f := range files {
			c.Inserts(f, text.String())
		}
	}
}

// editEscapes are the escapes a sed or perl program's text undoes.
var editEscapes = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\/`, "/", `\$`, "$", `\\`, `\`, `\#`, "#", `\@`, "@")

// insertedText is what an in-place edit program may put in its files:
// the program with its escapes undone (a replacement's "$1\n\trm …"
// becomes lines), and for sed the text after each a, i or c command as
// a line of its own ("/^all:/a\	curl …" inserts "	curl …").
func insertedText(prog string, sed bool) string {
	text := editEscapes.Replace(prog)
	var b strings.Builder
	b.WriteString(text)
	b.WriteByte('\n')
	if sed {
		for _, line := range strings.Split(text, "\n") {
			if m := sedTextCmd.FindStringSubmatch(line); m != nil {
				b.WriteString(m[1])
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// sedTextCmd is a sed a, i or c command with its text: an address (a
// line number, $, a /regex/ or a range of them) then the command letter,
// a backslash or blanks, the text.
var sedTextCmd = regexp.MustCompile(`^\s*(?:(?:[0-9]+|\$|/(?:[^/\\]|\\.)*/)(?:\s*,\s*(?:[0-9]+|\$|/(?:[^/\\]|\\.)*/))?)?\s*[aic](?:\\ ?|\s+)(.*)$`)

// scanSed walks a sed script command by command (best effort).
func scanSed(c *Call, script Word) {
	s := script.Value
	for i := 0; i < len(s); {
		i = skipSedAddress(s, i)
		if i >= len(s) {
			return
		}
		cmd := s[i]
		i++
		switch cmd {
		case 's', 'y':
			if i >= len(s) {
				return
			}
			delim := s[i]
			i = skipSedPart(s, i+1, delim)
			i = skipSedPart(s, i, delim)
			if cmd == 'y' {
				continue
			}
			j := i
			for j < len(s) && strings.IndexByte("gpiImMe0123456789", s[j]) >= 0 {
				j++
			}
			if strings.IndexByte(s[i:j], 'e') >= 0 {
				c.Tag(TagCodeEscape, "sed s///e")
			}
			i = j
			if i < len(s) && s[i] == 'w' {
				name, next := sedLine(s, i+1)
				sedFile(c, script, name, accW)
				i = next
			}
		case 'e':
			code, next := sedLine(s, i)
			c.Tag(TagCodeEscape, "sed e")
			if code != "" {
				c.RunShell(Word{Value: code, Known: script.Known})
			}
			i = next
		case 'w', 'W':
			name, next := sedLine(s, i)
			sedFile(c, script, name, accW)
			i = next
		case 'r', 'R':
			name, next := sedLine(s, i)
			sedFile(c, script, name, accR)
			i = next
		case 'a', 'i', 'c', ':', 'b', 't', 'T', '#':
			_, i = sedLine(s, i)
		}
	}
}

// skipSedAddress skips separators, blanks and an address range.
func skipSedAddress(s string, i int) int {
	for i < len(s) {
		switch ch := s[i]; {
		case ch == ';' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '{' || ch == '}' ||
			ch == ',' || ch == '!' || ch == '$' || ch == '~' || ch == '+' || (ch >= '0' && ch <= '9'):
			i++
		case ch == '/':
			i = skipSedPart(s, i+1, '/')
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case ch == '\\' && i+1 < len(s):
			i = skipSedPart(s, i+2, s[i+1])
		default:
			return i
		}
	}
	return i
}

// skipSedPart returns the index after the next unescaped delim.
func skipSedPart(s string, i int, delim byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case delim:
			return i + 1
		}
		i++
	}
	return i
}

// sedLine returns the argument running to the end of the line or the
// next ";" (GNU sed file names and e commands take the rest of the line;
// one-liners separate commands with ";"), trimmed.
func sedLine(s string, i int) (string, int) {
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		j = len(s) - i
	}
	return strings.TrimSpace(s[i : i+j]), i + j
}

// sedFile records a file named inside a sed script.
func sedFile(c *Call, script Word, name string, acc action.Access) {
	if name == "" || name == "/dev/stdout" || name == "/dev/stderr" {
		return
	}
	c.Use(Word{Value: name, Known: script.Known}, acc)
}
