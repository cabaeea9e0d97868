package runfile

import (
	"path"
	"strings"
)

// scriptUnits returns a script whole. Its language is lang when the
// command names an interpreter, else its #! line's, else its extension's;
// a script without either is shell (execve fails, the shell runs it).
func scriptUnits(file, dir, content, lang string) ([]Unit, string) {
	if lang == "" {
		lang = langOf(file, content)
	}
	if lang == "" {
		return nil, file + " runs with an interpreter the analyser does not read"
	}
	if strings.IndexByte(content, 0) >= 0 {
		return nil, file + " is not text"
	}
	switch lang {
	case "sed", "awk":
		// A program file of sed or awk is judged as the same program
		// given inline, whose commands the analyser reads.
		flag := " -e "
		if lang == "awk" {
			flag = " "
		}
		return []Unit{{File: file, Lang: "sh", Code: lang + flag + shQuote(content) + " </dev/null", Dir: dir}}, ""
	}
	return []Unit{{File: file, Lang: lang, Code: content, Dir: dir}}, ""
}

// shQuote quotes s as one shell word.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// langOf returns the language a script file runs in: by its #! line,
// else its extension; "" for an interpreter it does not know.
func langOf(file, content string) string {
	if strings.HasPrefix(content, "#!") {
		line, _, _ := strings.Cut(content[2:], "\n")
		f := strings.Fields(line)
		if len(f) == 0 {
			return "sh"
		}
		prog := path.Base(f[0])
		if prog == "env" {
			prog = ""
			for _, w := range f[1:] {
				if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
					prog = path.Base(w)
					break
				}
			}
		}
		return interpLang(prog)
	}
	switch path.Ext(file) {
	case ".py":
		return "python"
	case ".js", ".mjs", ".cjs":
		return "node"
	case ".rb":
		return "ruby"
	case ".pl":
		return "perl"
	case ".php":
		return "php"
	case ".awk":
		return "awk"
	case ".sed":
		return "sed"
	}
	return "sh"
}

// interpLang maps an interpreter's name to the analyser's language; ""
// when unknown.
func interpLang(prog string) string {
	prog = strings.TrimRight(prog, "0123456789.")
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh":
		return "sh"
	case "python", "pypy":
		return "python"
	case "node", "nodejs", "deno", "bun":
		return "node"
	case "ruby", "perl", "php":
		return prog
	case "awk", "gawk", "mawk", "nawk":
		return "awk"
	case "sed", "gsed":
		return "sed"
	}
	return ""
}
