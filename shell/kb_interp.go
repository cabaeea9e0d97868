package shell

import "strings"

// Shells and language interpreters: inline code (RoleCode/RoleShellCode),
// scripts (RoleScript), code on stdin (StdinCode), and the module or
// library switches that fetch or run code.

// kbInterpTable builds the kbInterp table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbInterpTable() map[string]*Program {
	var (
		kShellFlags = flags(
			shorts("abefhikmnprstuvxBCEHPTl")+" --login --noprofile --norc --posix --restricted --verbose"+
				" --noediting --debugger --dump-strings --no-rcs", fBool,
			"-c", fShell,
			"-o +o -O +O", fVal,
			"--rcfile --init-file", fScript,
		)
		kShell  = &Program{Flags: kShellFlags, Args: []Role{RoleScript}, Lang: "sh", StdinCode: true}
		kPython = &Program{Flags: flags(
			shorts("bBdEhiIOPqsSuvVx")+" -OO -bb --version --help", fBool,
			"-c", fCode,
			"-m -W -X --check-hash-based-pycs", fVal,
		), Args: []Role{RoleScript}, Lang: "python", StdinCode: true, Check: checkPython}
		kPerl = &Program{Flags: flags(
			shorts("aclnpsStTuUvwWXgi")+" -0 -00", fBool,
			"-e -E", fCode,
			"-M -m -I -F -x -d -D -C", fVal,
		), Args: []Role{RoleScript}, Lang: "perl", StdinCode: true, Check: checkPerl}
		kRuby = &Program{Flags: flags(
			shorts("acdhlnpsSvwWyi")+" --version --verbose --disable-gems", fBool,
			"-e", fCode,
			"-r -I -E -C -F -x -K -T --encoding", fVal,
		), Args: []Role{RoleScript}, Lang: "ruby", StdinCode: true, Check: checkPerl}
		kNode = &Program{Flags: flags(
			shorts("ivhc")+" --interactive --version --check --inspect --inspect-brk --no-warnings --trace-warnings"+
				" --experimental-modules --enable-source-maps --watch --test", fBool,
			"-e --eval -p --print", fCode,
			"-r --require --import --loader --experimental-loader --max-old-space-size --env-file --input-type --conditions -C", fVal,
		), Args: []Role{RoleScript}, Lang: "node", StdinCode: true}
		kPHP = &Program{Flags: flags(
			shorts("aCHhilmnqsvwe"), fBool,
			"-r -B -R -E -F", fCode,
			"-d -z", fVal,
			"-c", fRead,
			"-f", fScript,
			"-S", fVal,
			"-t", fDir,
		), Args: []Role{RoleScript}, Lang: "php", StdinCode: true, Check: checkPHP}
		kLua = &Program{Flags: flags(shorts("iEvW"), fBool, "-e", fCode, "-l", fVal),
			Args: []Role{RoleScript}, Lang: "lua", StdinCode: true}
		kAwk = &Program{Flags: flags(
			shorts("bcCgnNOPrStVsMyz")+" --posix --traditional --lint --sandbox --characters-as-bytes --re-interval --optimize", fBool,
			"-F --field-separator -v --assign -W -l --load -i --include", fVal,
			"-f --file -E --exec", fScript,
			"-e --source", fCode,
		), Args: []Role{RoleCode}, Rest: RoleRead, Lang: "awk", Check: checkAwk}
	)

	var kbInterp = map[string]*Program{
		"sh": kShell, "bash": kShell, "dash": kShell, "zsh": kShell, "ksh": kShell, "mksh": kShell, "ash": kShell,
		"pdksh": kShell, "yash": kShell, "posh": kShell, "rbash": kShell, "csh": kShell, "tcsh": kShell,
		"fish": {Flags: flags("-i -l -n -N -P --login --interactive --private --no-execute --no-config", fBool,
			"-c --command -C --init-command", fShell), Args: []Role{RoleScript}, Lang: "sh", StdinCode: true},
		"pwsh": {Flags: flags("-NoProfile -NonInteractive -NoLogo", fBool, "-Command -c -EncodedCommand -e -ec", fCode,
			"-File -f", fScript, "-ExecutionPolicy", fVal), Lang: "powershell", StdinCode: true},
		"python": kPython, "python2": kPython, "python3": kPython, "pypy": kPython, "pypy3": kPython,
		"perl": kPerl, "ruby": kRuby, "jruby": kRuby,
		"irb":  {Flags: flags("-r -I", fVal), Args: []Role{RoleScript}, Lang: "ruby", StdinCode: true},
		"node": kNode, "nodejs": kNode,
		"deno": {Flags: flags("-A --allow-all -q", fBool, "--allow-read --allow-write --allow-net --allow-run --allow-env --config -c --import-map", fVal),
			Network: true, SubDefault: &Program{Network: true},
			Sub: map[string]*Program{
				"run":  {Flags: flags("-A --allow-all", fBool), Args: []Role{RoleScript}, Lang: "node", Network: true},
				"eval": {Args: []Role{RoleCode}, Lang: "node"},
			}},
		"bun": {Flags: flags("--watch --hot --smol", fBool, "-e --eval -p --print", fCode), Lang: "node", Network: true,
			SubDefault: &Program{},
			Sub: map[string]*Program{
				"install": {Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkNpmInstall},
				"add":     {Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkNpmInstall},
				"x":       {Network: true, Tags: []TagKind{TagPackageInstall}},
			}},
		"php": kPHP, "lua": kLua, "luajit": kLua,
		"tclsh":     {Args: []Role{RoleScript}, Lang: "tcl", StdinCode: true},
		"wish":      {Args: []Role{RoleScript}, Lang: "tcl", StdinCode: true},
		"expect":    {Flags: flags("-d -D -i -n -N -b", fBool, "-c", fCode, "-f", fScript), Args: []Role{RoleScript}, Lang: "tcl", StdinCode: true},
		"osascript": {Flags: flags("-i -s", fBool, "-l", fVal, "-e", fCode), Args: []Role{RoleScript}, Lang: "applescript"},
		"awk":       kAwk, "gawk": kAwk, "mawk": kAwk, "nawk": kAwk,
		"R":       {Flags: flags("--vanilla --no-save --slave -q --quiet", fBool, "-e", fCode, "-f --file", fScript), Lang: "r", StdinCode: true},
		"Rscript": {Flags: flags("--vanilla", fBool, "-e", fCode), Args: []Role{RoleScript}, Lang: "r"},
		"julia":   {Flags: flags("-q --quiet", fBool, "-e --eval -E --print", fCode, "-L --load", fScript), Args: []Role{RoleScript}, Lang: "julia", StdinCode: true},
		"octave":  {Flags: flags("-q --quiet --no-gui -W --no-window-system", fBool, "--eval", fCode), Args: []Role{RoleScript}, Lang: "octave", StdinCode: true},
		"matlab":  {Flags: flags("-nodisplay -nosplash -nodesktop -nojvm", fBool, "-r -batch", fCode), Lang: "matlab"},
		"ipython": {Flags: flags("-i --no-banner", fBool, "-c", fCode, "-m", fVal), Args: []Role{RoleScript}, Lang: "python", StdinCode: true},
		"jupyter": {Network: true},
		"groovy":  {Flags: flags("-e", fCode), Args: []Role{RoleScript}, Lang: "groovy"},
		"guile":   {Flags: flags("-c", fCode, "-l -s", fScript), Args: []Role{RoleScript}, Lang: "scheme", StdinCode: true},
		"sbcl":    {Flags: flags("--non-interactive --noinform", fBool, "--eval", fCode, "--load --script", fScript), Lang: "lisp", StdinCode: true},
		"ghci":    {Args: []Role{RoleScript}, Lang: "haskell", StdinCode: true},
		"runghc":  {Args: []Role{RoleScript}, Lang: "haskell"},
		"erl":     {Flags: flags("-noshell -noinput", fBool, "-eval -s", fCode), Lang: "erlang"},
		"elixir":  {Flags: flags("-e", fCode), Args: []Role{RoleScript}, Lang: "elixir"},
		"dc":      {Flags: flags("-e --expression", fVal, "-f --file", fRead), Rest: RoleRead, Check: checkDc},
		"bc":      readAll(flags(shorts("lqsiwv")+" --mathlib --quiet --standard --warn", fBool)),
		"gnuplot": {Flags: flags("-p --persist", fBool, "-e", fVal), Rest: RoleRead, Check: checkGnuplot},
		"busybox": {Args: []Role{RoleCommand}},
		"toybox":  {Args: []Role{RoleCommand}},
	}
	return kbInterp
}

// checkPython: "python -m MODULE" runs a module; pip, http.server and
// friends are judged like the programs they stand for.
func checkPython(c *Call) {
	m, ok := c.Flag("-m")
	if !ok {
		return
	}
	args := c.Positional
	switch m.Value {
	case "venv", "virtualenv":
		for _, w := range args {
			c.Use(w, accW)
		}
	case "pip", "pip3", "pytest", "black", "mypy", "ruff", "flake8", "pylint", "isort",
		"pipx", "poetry", "tox", "nox", "uv", "twine":
		c.Run(append([]Word{lit(m.Value)}, args...))
	case "http.server", "SimpleHTTPServer", "smtpd", "aiosmtpd", "pyftpdlib", "uploadserver":
		serveModule(c, moduleArgs(c))
	case "json.tool", "base64", "zipfile", "tarfile", "gzip", "unittest", "compileall", "py_compile",
		"timeit", "cProfile", "pdb", "doctest", "site", "this", "calendar", "build", "pydoc", "ensurepip":
		moduleReads(c)
	default:
		c.Tag(TagUnknownProgram, "python -m "+m.Value)
		moduleReads(c)
	}
}

// moduleArgs are the words after python's -m MODULE: the module's own
// arguments, options included (python stops parsing its options there).
func moduleArgs(c *Call) []Word {
	for k, w := range c.Args {
		switch {
		case !w.Known:
		case w.Value == "-m":
			if k+2 <= len(c.Args) {
				return c.Args[k+2:]
			}
			return nil
		case strings.HasPrefix(w.Value, "-m") && !strings.HasPrefix(w.Value, "--"):
			return c.Args[k+1:]
		}
	}
	return c.Positional
}

// moduleReads records the operands of a module as files it reads
// (python -m json.tool FILE prints it).
func moduleReads(c *Call) {
	for _, w := range moduleArgs(c) {
		if !w.Known || !strings.HasPrefix(w.Value, "-") {
			c.Use(w, accR)
		}
	}
}

// serveModule: http.server and friends listen (on every interface
// unless --bind/-b names one) and serve a directory to whoever connects:
// --directory/-d, else the current one. The port is the first operand
// (8000 by default).
func serveModule(c *Call, args []Word) {
	port, dir, bind := "8000", lit("."), lit("")
	for k := 0; k < len(args); k++ {
		w := args[k]
		next := func() (Word, bool) {
			if k+1 < len(args) {
				k++
				return args[k], true
			}
			return Word{}, false
		}
		switch {
		case !w.Known:
			dir = Word{} // an unknown word may name the directory
		case w.Value == "--directory" || w.Value == "-d":
			if v, ok := next(); ok {
				dir = v
			}
		case strings.HasPrefix(w.Value, "--directory="):
			dir = Word{Value: strings.TrimPrefix(w.Value, "--directory="), Known: true}
		case w.Value == "--bind" || w.Value == "-b":
			if v, ok := next(); ok {
				bind = v
			}
		case isPort(w.Value):
			port = w.Value
		}
	}
	c.Host(bind, port, true, true)
	c.Use(dir, accR)
}

// checkPerl: with -e the operands are input files (edited in place with -i).
func checkPerl(c *Call) {
	code, ok := c.Flag("-e", "-E")
	if !ok {
		return
	}
	acc := accR
	if _, ok := c.Flag("-i"); ok {
		acc = accRW
	}
	for _, w := range c.Args {
		if w.Known && strings.HasPrefix(w.Value, "-i") && len(w.Value) > 2 {
			acc = accRW // -i.bak
		}
	}
	for _, w := range c.Positional {
		c.Use(w, acc)
		if acc == accRW && code.Known {
			c.Inserts(w, insertedText(code.Value, false))
		}
	}
}

// checkPHP: -S serves the directory (-t) on the network.
func checkPHP(c *Call) {
	if w, ok := c.Flag("-S"); ok {
		h, p := splitHostPort(w.Value)
		c.Host(Word{Value: h, Known: w.Known}, p, true, true)
	}
}

// checkAwk: with -f the program came from a file, so the first operand
// is an input file too; gawk -i inplace edits the files.
func checkAwk(c *Call) {
	if _, ok := c.Flag("-f", "--file", "-E", "--exec"); ok && len(c.Positional) > 0 {
		c.Use(c.Positional[0], accR)
	}
	if flagValIs(c, []string{"-i", "--include"}, "inplace") && len(c.Positional) > 1 {
		for _, f := range c.Positional[1:] {
			c.Use(f, accRW)
		}
	}
}

// checkDc: "!" in dc code runs a shell command.
func checkDc(c *Call) {
	if w, ok := c.Flag("-e", "--expression"); ok {
		if i := strings.IndexByte(w.Value, '!'); i >= 0 {
			c.Tag(TagCodeEscape, "dc !")
			c.RunShell(Word{Value: w.Value[i+1:], Known: w.Known})
		}
	}
}

// checkGnuplot: "system" and "!" in -e code run commands.
func checkGnuplot(c *Call) {
	if w, ok := c.Flag("-e"); ok && (strings.Contains(w.Value, "system") || strings.Contains(w.Value, "!")) {
		c.Tag(TagCodeEscape, "gnuplot -e")
	}
}
