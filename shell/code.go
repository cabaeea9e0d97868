package shell

// This file analyses inline code of scripting languages (python -c,
// perl -e, ruby -e, node -e, php -r, lua -e, Rscript -e, deno eval,
// bun -e, awk programs, and scripts they read from stdin or a
// here-document) for what it can do: the files it opens, reads, writes
// and deletes, the hosts it talks to, the commands it runs, the code it
// evaluates. Calls are recognised by the language's APIs (codetables.go)
// under any local name the code gives them; their arguments are
// evaluated (codeexpr.go), literal shell strings analysed one level
// deeper. What the scanner cannot follow is recorded as unknown (an
// unresolved path, an unresolved host, dynamic code), never as nothing.

// normLang maps interpreter language names to the scanners'.
func normLang(lang string) string {
	switch lang {
	case "python", "python2", "python3", "py":
		return "python"
	case "node", "nodejs", "js", "javascript", "deno", "bun":
		return "node"
	case "awk", "gawk", "mawk", "nawk":
		return "awk"
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "":
		return "sh"
	}
	return lang
}

// runCode analyses inline code of another language.
func (a *analyzer) runCode(c *Call, lang string, code Word) {
	lang = normLang(lang)
	if lang == "sh" {
		a.runShell(c, code)
		return
	}
	c.code = true
	if !code.Known {
		a.unresolvedCode(c, code)
		return
	}
	if code.flags&wDecoded != 0 {
		a.tagf(c, TagDecodedExec, lang+" code")
	}
	if !a.enter() {
		return
	}
	defer func() { a.depth-- }()
	if _, ok := codeCalls[lang]; !ok && !(lang == "sql" && readOnlySQL(code.Value)) {
		a.tagf(c, TagOpaque, lang+" code")
	}
	if len(code.Value) > maxCodeBytes {
		a.tagf(c, TagOpaque, lang+" code too large to analyse")
		return
	}
	newCodeScan(a, c, lang, code.Value).analyse()
}
