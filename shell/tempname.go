package shell

import (
	"path"
	"strings"

	"github.com/parallax/parallax/action"
)

// This file gives the output of mktemp and tempfile a value when the
// file they create lies in the command's private temp directory: the
// TMPDIR the executor gives the command (Options.Env["TMPDIR"]). Such a
// name is fresh (mktemp creates it with O_EXCL: it never names a file
// that existed before) in a directory only the command sees, so which
// name it is does not matter to the judgement: the value is the
// directory joined with the template as written ("$TMPDIR/tmp.XXXXXXXXXX"),
// and what the command reads or writes through it is that directory's
// file. Anything else (another directory, a template relative to the
// working directory, a TMPDIR the command changed, a flag this file does
// not know) leaves the output unknown, as before.

// envAssigned notes a variable assigned for the command's environment
// (X=v cmd, env X=v cmd, export X=v) for the analyses that depend on it.
func (a *analyzer) envAssigned(name string) {
	a.gitEnv = a.gitEnv || gitEnvVar(name)
	a.tmpEnv = a.tmpEnv || name == "TMPDIR"
}

// privateTemp is the command's private temp directory: the TMPDIR of the
// executor's environment, when the command has not changed it.
func (a *analyzer) privateTemp() (string, bool) {
	priv := a.opt.Env["TMPDIR"]
	if priv == "" || priv[0] != '/' || a.tmpEnv {
		return "", false
	}
	priv = path.Clean(priv)
	w, _, found := a.getVar("TMPDIR")
	if !found || !w.Known || path.Clean(w.Value) != priv || a.varSet("PATH") {
		return "", false
	}
	return priv, true
}

// tempName sets the output of a mktemp or tempfile call that creates its
// file in the private temp directory, and records the creation; it
// reports whether it did.
func (a *analyzer) tempName(c *Call, out *stream) bool {
	var p string
	var ok bool
	switch c.Name {
	case "mktemp":
		p, ok = a.mktempName(c)
	case "tempfile":
		p, ok = a.tempfileName(c)
	}
	if !ok {
		return false
	}
	if _, dry := c.Flag("-u", "--dry-run"); !dry {
		a.usePath(c, p, action.AccessWrite, false)
	}
	out.text, out.known = p+"\n", true
	return true
}

// mktempName is the file mktemp creates: with no template, or with -t,
// -p DIR or --tmpdir=DIR, the template (default tmp.XXXXXXXXXX) in
// TMPDIR (-t: TMPDIR before DIR; -p: DIR before TMPDIR).
func (a *analyzer) mktempName(c *Call) (string, bool) {
	priv, ok := a.privateTemp()
	if !ok || len(c.Positional) > 1 ||
		!onlyFlags(c, "-d -q -u -t -p --directory --dry-run --quiet --tmpdir --suffix") {
		return "", false
	}
	for _, w := range c.Args {
		if !w.Known || w.Value == "--tmpdir" {
			// --tmpdir takes its directory only as --tmpdir=DIR: spelled
			// apart, the parse above took the template for it.
			return "", false
		}
	}
	tmpl := "tmp.XXXXXXXXXX"
	_, t := c.Flag("-t")
	dir, p := c.Flag("-p", "--tmpdir")
	if len(c.Positional) == 1 {
		if !t && !p {
			return "", false // a template relative to the working directory
		}
		tmpl = c.Positional[0].Value
	}
	if p && !t && dir.Value != "" && path.Clean(dir.Value) != priv {
		return "", false
	}
	suffix := ""
	if s, ok := c.Flag("--suffix"); ok {
		suffix = s.Value
	}
	if !tempComponent(tmpl) || strings.Contains(suffix, "/") ||
		!strings.HasSuffix(strings.TrimSuffix(tmpl, suffix), "XXX") {
		return "", false
	}
	return priv + "/" + tmpl + suffix, true
}

// tempfileName is the file Debian's tempfile creates: PREFIX (default
// "file") and six random letters, then SUFFIX, in TMPDIR (-d only when
// it names TMPDIR).
func (a *analyzer) tempfileName(c *Call) (string, bool) {
	priv, ok := a.privateTemp()
	if !ok || len(c.Positional) > 0 || !onlyFlags(c, "-d --directory -p --prefix -s --suffix -m --mode") {
		return "", false
	}
	for _, w := range c.Args {
		if !w.Known {
			return "", false
		}
	}
	if d, ok := c.Flag("-d", "--directory"); ok && path.Clean(d.Value) != priv {
		return "", false // tempfile's man page puts TMPDIR first; its versions differ
	}
	prefix, suffix := "file", ""
	if w, ok := c.Flag("-p", "--prefix"); ok {
		prefix = w.Value
	}
	if w, ok := c.Flag("-s", "--suffix"); ok {
		suffix = w.Value
	}
	name := prefix + "XXXXXX" + suffix
	if !tempComponent(name) {
		return "", false
	}
	return priv + "/" + name, true
}

// tempComponent reports whether name is one plain file name component.
func tempComponent(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}
