package shell

import (
	"path"
	"strings"
	"sync"
)

// Project toolchains: compilers, build systems, language tool drivers.
// They run project code by design (make, go test, cargo run): that is
// routine, so they carry no tag; escapes are the flags that run commands
// the project does not define (-toolexec, -exec, --eval, -wrapper).

// kbDevTable builds the kbDev table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbDevTable() map[string]*Program {
	var (
		kGoBuild = goBuildFlags()
		kCCFlags = flags(
			shorts("cSEgvswpPrM")+" -O -O0 -O1 -O2 -O3 -Os -Wall -Wextra -Werror -pedantic -shared -static"+
				" -fPIC -pthread -MD -MMD -MP -g3 -ggdb -pipe --verbose -fsyntax-only", fBool,
			"-I -L -l -D -U -x -MT -MQ -isystem -iquote -idirafter -Xlinker -Xassembler -Xpreprocessor"+
				" -target --target -arch -march -mtune -B --sysroot -isysroot", fVal,
			"-o -MF", fWrite,
			"-include -imacros", fRead,
			"-wrapper", tagged(fVal, TagCodeEscape),
		)
		kCC        = &Program{Flags: kCCFlags, Rest: RoleRead, Check: checkCC}
		kToolchain = &Program{}
		kPytest    = &Program{Flags: flags(
			shorts("vqsxlr")+" --lf --ff --nf --sw --pdb --exitfirst --collect-only --co --no-header --quiet --verbose --cache-clear", fBool,
			"-k -m -n -p --tb --maxfail --cov --cov-report --durations --import-mode --log-level -W -o --override-ini --basetemp --numprocesses --rootdir --deselect --ignore", fVal,
			"-c --confcutdir", fRead,
			"--junitxml --junit-xml --resultlog --html", fWrite,
		), Rest: RoleRead}
		kGradle = &Program{Flags: flags("-q -i -d -s -S --offline --refresh-dependencies --no-daemon --daemon --scan --stacktrace --info --parallel --continue --dry-run -m", fBool,
			"-D -P -x --exclude-task --project-prop --system-prop", fVal,
			"-p --project-dir", fDir,
			"-b --build-file -c --settings-file", fRead,
			"-I --init-script", tagged(fRead, TagCodeEscape)), Network: true}
		kMake = &Program{Flags: flags(
			shorts("BdeiknpqrRsStwv")+" --always-make --dry-run --just-print --silent --quiet --keep-going --ignore-errors"+
				" --print-directory --no-print-directory --debug --question --touch --trace --environment-overrides", fBool,
			"-j --jobs -l --load-average -o --old-file --assume-old -W --what-if --new-file --assume-new -O --output-sync -I --include-dir", fVal,
			"-C --directory", fDir,
			"-f --file --makefile", fRead,
			"--eval", tagged(fVal, TagCodeEscape),
		), Check: checkMake}
	)

	var kbDev = map[string]*Program{
		"go": {Flags: flags("-C", fDir), Sub: map[string]*Program{
			"build":    {Flags: kGoBuild, Rest: RoleRead},
			"run":      {Flags: kGoBuild, Rest: RoleRead, Check: checkGoRun},
			"test":     {Flags: kGoBuild, Check: checkGoPkgs},
			"vet":      {Flags: kGoBuild, Check: checkGoPkgs},
			"install":  {Flags: kGoBuild, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkGoGet},
			"get":      {Flags: kGoBuild, Network: true, Tags: []TagKind{TagPackageInstall}, Check: checkGoGet},
			"mod":      {Flags: flags("-v -x -e -json", fBool, "-go -compat -modfile", fVal), Network: true},
			"generate": {Flags: with(kGoBuild, "-run -skip", fVal), Check: checkGoPkgs},
			"env":      {Flags: flags("-json -changed -w -u", fBool), Check: checkGoEnv},
			"clean":    {Flags: flags("-i -n -r -x -cache -testcache -modcache -fuzzcache", fBool)},
			"fmt":      {Flags: flags("-n -x", fBool), Rest: RoleReadWrite},
			"tool":     {Flags: flags("-n", fBool), Rest: RoleOperand},
			"fix":      {Rest: RoleReadWrite},
			"version":  {Rest: RoleRead},
		}, SubDefault: &Program{}},
		"gofmt":         {Flags: flags(shorts("dlsew"), fBool, "-r", fVal), Rest: RoleRead, Check: checkRewrite},
		"goimports":     {Flags: flags(shorts("dlewv"), fBool, "-local", fVal), Rest: RoleRead, Check: checkRewrite},
		"golangci-lint": {Flags: flags("--fix -v", fBool, "-c --config", fRead, "-E --enable -D --disable --timeout --out-format", fVal)},
		"staticcheck":   kToolchain, "govulncheck": {Network: true}, "gopls": kToolchain, "dlv": kToolchain,
		"cargo": {Flags: flags("-q -v --quiet --verbose --offline --frozen --locked", fBool, "-Z --color --config", fVal, "-C", fDir, "--manifest-path", fRead),
			Check: checkCargoConfig, SubDefault: cargoCmd(), Sub: map[string]*Program{
				"fetch": {Network: true},
				"clean": {Check: func(c *Call) { c.Use(lit("target"), accD) }},
				"new":   {Args: []Role{RoleWrite}}, "init": {Args: []Role{RoleWrite}},
				"add": {Flags: flags("--dev --build --no-default-features", fBool, "-F --features --rename --branch --tag --rev -p --package", fVal, "--path", fRead,
					"--git --registry", tagged(fVal, TagPackageSource)), Network: true, Tags: []TagKind{TagPackageInstall}},
				"install": {Flags: flags("--locked --force -f --debug --list", fBool, "--version --vers --bin --features --root --branch --tag --rev -j", fVal, "--path", fRead,
					"--git --registry --index", tagged(fVal, TagPackageSource)), Network: true, Tags: []TagKind{TagPackageInstall}},
				"publish": {Flags: flags("--dry-run --allow-dirty", fBool, "--token --registry --index", fVal), Network: true, Upload: true},
				"login":   {Network: true},
			}},
		"rustc":  {Flags: flags("-g -O --test -v", fBool, "--edition --crate-type --crate-name -C --codegen -L -l --cfg --target --emit --cap-lints -A -W -D -F", fVal, "-o --out-dir", fWrite), Rest: RoleRead},
		"rustup": {Network: true},
		"make":   kMake, "gmake": kMake, "bmake": kMake,
		"cmake": {Flags: flags("--fresh --verbose -Wdev -Wno-dev --trace --debug-output -N -LA -LAH -L -E", fBool,
			"-D -U -G -T -A --target -t -j --parallel --config --component --prefix --preset --log-level --install-prefix", fVal,
			"-S -C", fRead, "-B", fWrite, "--build --install", fDir,
			"-P", fScript), Lang: "cmake", Check: checkCmakeE},
		"ctest":      {Flags: flags("-V -VV --output-on-failure -N", fBool, "-R -E -L -j --test-dir -C", fVal)},
		"ninja":      {Flags: flags(shorts("nvw")+" --verbose", fBool, "-j -k -l -t -d", fVal, "-C", fDir, "-f", fRead)},
		"meson":      {Flags: flags("--reconfigure --wipe", fBool, "--prefix --buildtype -D --backend -C", fVal)},
		"autoreconf": kToolchain, "autoconf": kToolchain, "automake": kToolchain, "aclocal": kToolchain, "libtoolize": kToolchain,
		"configure": kToolchain, "pkg-config": kToolchain,
		"ldconfig": {Flags: flags("-v -n -N -X -p", fBool, "-f -C -r", fVal), Check: checkLdconfig},
		"gcc":      kCC, "g++": kCC, "cc": kCC, "c++": kCC, "clang": kCC, "clang++": kCC, "tcc": kCC, "cpp": kCC,
		"gfortran": kCC, "icc": kCC, "nvcc": kCC, "emcc": kCC, "zig": kToolchain, "kotlinc": kCC, "scalac": kCC, "swiftc": kCC,
		"as":      {Flags: flags("-g --32 --64", fBool, "-I --defsym -march", fVal, "-o", fWrite), Rest: RoleRead},
		"ld":      {Flags: flags("-static -shared -s -S --verbose", fBool, "-L -l -e -T --entry -m -z -rpath --sysroot", fVal, "-o --output", fWrite), Rest: RoleRead},
		"nm":      readAll(flags(shorts("aACDgjlnoprsSuU")+" --demangle --dynamic --defined-only --extern-only", fBool, "-t --format --radix", fVal)),
		"objdump": readAll(flags(shorts("adDfghilrRsStTxwCzeGWFL")+" --disassemble --syms --headers", fBool, "-j --section -M -b -m --start-address --stop-address", fVal)),
		"readelf": readAll(flags(shorts("aAdDeghIlnrsSuVWt")+" --all --headers --symbols --dynamic --wide", fBool, "-x -p -R --hex-dump --string-dump", fVal)),
		"ldd":     readAll(flags(shorts("vudr")+" --verbose --unused --data-relocs --function-relocs", fBool)),
		"strip":   {Flags: flags(shorts("gsSdxXpv")+" --strip-all --strip-debug", fBool, "-R -K -N", fVal, "-o", fWrite), Rest: RoleReadWrite},
		"objcopy": {Flags: flags("-O -I -B -j -R --add-section --set-section-flags", fVal), Args: []Role{RoleRead, RoleWrite}},
		"gdb": {Flags: flags("-q -quiet -silent -batch -n -nx -nh -tui --args -return-child-result", fBool,
			"-ex --eval-command -iex --init-eval-command", fVal,
			"-x --command -ix --init-command", tagged(fRead, TagCodeEscape),
			"-p --pid -cd --directory -d -s -e -c -core", fVal), Args: []Role{RoleRead}, Check: checkGdb},
		"lldb": {Flags: flags("-b --batch", fBool, "-o --one-line -O -k", tagged(fVal, TagCodeEscape), "-s --source -S", tagged(fRead, TagCodeEscape),
			"-p --attach-pid -n", fVal), Args: []Role{RoleRead}},
		"valgrind": {Flags: flags("-v -q", fBool, "--tool --log-file --xml-file --leak-check --track-origins --show-leak-kinds", fVal), Args: []Role{RoleCommand}},
		"javac": {Flags: flags("-g -verbose -nowarn -Xlint -deprecation -parameters", fBool,
			"-cp -classpath --class-path -sourcepath --source-path -source --source -target --target --release -encoding -processor -processorpath -proc -J --module-path -p --add-modules", fVal,
			"-d -s -h", fWrite), Rest: RoleRead},
		"java": {Flags: flags("-server -client -version --version -showversion -verbose -ea -da -esa -dsa", fBool,
			"-cp -classpath --class-path -p --module-path --add-modules -m --module --add-opens --add-exports -splash", fVal,
			"-jar", fRead)},
		"jshell": {Flags: flags("-q -s -v", fBool, "--class-path --startup", fVal), Args: []Role{RoleScript}, Lang: "java", StdinCode: true},
		"kotlin": kToolchain, "scala": kToolchain, "sbt": {Network: true}, "lein": {Network: true},
		"mvn": {Flags: flags(shorts("qBUoXeNnVC")+" --batch-mode --update-snapshots --offline --quiet --debug --errors --no-transfer-progress", fBool,
			"-D -P --activate-profiles -pl --projects -T --threads -rf -am -amd -l --log-file", fVal,
			"-f --file -s --settings -gs --global-settings -t --toolchains", fRead), Network: true, Check: checkMvn},
		"mvnw":   {Flags: flags("-D -P -pl -T", fVal, "-f -s", fRead), Network: true, Check: checkMvn},
		"gradle": kGradle, "gradlew": kGradle,
		"ant":      {Flags: flags("-q -v -d -e -k -noinput", fBool, "-D -lib -logger -listener -propertyfile", fVal, "-f -file -buildfile", fRead, "-logfile -l", fWrite)},
		"bazel":    {Network: true, Flags: flags("--config --output_base --bazelrc", fVal)},
		"bazelisk": {Network: true},
		"dotnet": {Network: true, Sub: map[string]*Program{
			"add":     {Network: true, Tags: []TagKind{TagPackageInstall}, Flags: flags("-s --source", tagged(fVal, TagPackageSource), "-v --version", fVal)},
			"restore": {Network: true, Flags: flags("-s --source", tagged(fVal, TagPackageSource))},
			"tool":    {Network: true, Tags: []TagKind{TagPackageInstall}, Flags: flags("--add-source", tagged(fVal, TagPackageSource))},
			"nuget":   {Network: true, Upload: true, Rest: RoleOperand},
		}, SubDefault: &Program{Flags: flags("-c --configuration -f --framework -r --runtime -v --verbosity", fVal, "-o --output", fWrite)}},
		"swift": kToolchain, "xcodebuild": kToolchain, "xcrun": {Args: []Role{RoleCommand}},
		"pytest": kPytest, "py.test": kPytest,
		"tox":      {Flags: flags("-r --recreate -p -q -v", fBool, "-e -x", fVal, "-c", fRead), Network: true},
		"nox":      {Flags: flags("-r -R", fBool, "-s --session -k -t -p", fVal, "-f", fRead), Network: true},
		"mypy":     readAll(flags("--strict --ignore-missing-imports", fBool, "--config-file", fRead, "-m -p", fVal)),
		"ruff":     {Flags: flags("--fix --unsafe-fixes --diff -q", fBool, "--config --select --ignore", fVal), Check: checkRuff},
		"black":    {Flags: flags("--check --diff -q", fBool, "-l --line-length --config", fVal), Check: checkBlack},
		"flake8":   readAll(flags("--max-line-length --select --ignore --config", fVal)),
		"pylint":   readAll(flags("--rcfile --disable --enable", fVal)),
		"isort":    {Flags: flags("--check --diff -q", fBool), Check: checkBlack},
		"eslint":   {Flags: flags("--fix --cache", fBool, "-c --config --ext --rulesdir -f --format", fVal, "-o --output-file", fWrite), Rest: RoleRead, Check: checkRewrite},
		"prettier": {Flags: flags("--write -w --check -c --list-different -l", fBool, "--config --parser --plugin", fVal), Rest: RoleRead, Check: checkRewrite},
		"tsc":      {Flags: flags("--noEmit --watch -w --build -b --strict", fBool, "-p --project --target --module --lib", fVal, "--outDir --outFile", fWrite), Rest: RoleRead},
		"webpack":  kToolchain, "vite": kToolchain, "jest": kToolchain, "mocha": kToolchain, "vitest": kToolchain,
		"shellcheck":   readAll(flags("-x -a -C", fBool, "-s -S -e -f -o -P --shell --severity --exclude --format", fVal)),
		"shfmt":        {Flags: flags("-l -d -s -w -mn", fBool, "-i -ln", fVal), Rest: RoleRead, Check: checkRewrite},
		"clang-format": {Flags: flags("-i --dry-run --Werror", fBool, "--style -style --assume-filename", fVal), Rest: RoleRead, Check: checkRewrite},
		"ctags":        {Flags: flags("-R --recurse -e", fBool, "--languages --exclude", fVal, "-f -o", fWrite), Rest: RoleRead},
		"astyle":       {Rest: RoleReadWrite},
		"indent":       {Args: []Role{RoleReadWrite, RoleWrite}},
		"hg":           {Network: true, Flags: flags("-R --repository --cwd", fDir, "--config", tagged(fVal, TagCodeEscape))},
		"svn":          {Network: true, Flags: flags("--username --password -m --message -r --revision", fVal, "--config-option", tagged(fVal, TagCodeEscape))},
		"cvs":          {Network: true, Flags: flags("-d -m -r", fVal)},
		"bzr":          {Network: true},
		"pre-commit":   {Network: true, Flags: flags("-a --all-files -v", fBool, "-c --config --hook-stage", fVal), Check: checkPreCommit},
		"direnv":       {Sub: map[string]*Program{"allow": {Tags: []TagKind{TagPersistence}}, "exec": {Args: []Role{RoleDir, RoleCommand}}}, SubDefault: &Program{}},
		"just":         {Flags: flags("-f --justfile", fRead, "-d --working-directory", fDir)},
		"task":         kToolchain,
	}
	return kbDev
}

// cargoCmd is a cargo subcommand that builds and runs project code.
func cargoCmd() *Program {
	return &Program{Flags: flags("--release -r --all --workspace --all-features --no-default-features --locked --offline -q -v", fBool,
		"-p --package --bin --example --test --bench --features -F --target -j --jobs --profile --color --config", fVal,
		"--manifest-path", fRead,
		"--target-dir", fWrite)}
}

// checkCC: -fplugin=... loads code into the compiler.
func checkCC(c *Call) {
	for _, w := range c.Args {
		if strings.HasPrefix(w.Value, "-fplugin=") || strings.HasPrefix(w.Value, "-wrapper") {
			c.Tag(TagCodeEscape, c.Name+" "+w.Value)
		}
	}
}

// checkGoGet records the module hosts fetched from.
func checkGoGet(c *Call) {
	for _, w := range c.Positional {
		if strings.HasPrefix(w.Value, ".") || strings.HasPrefix(w.Value, "/") {
			continue
		}
		mod, _, _ := strings.Cut(w.Value, "@")
		if host, _, ok := strings.Cut(mod, "/"); ok && strings.Contains(host, ".") {
			c.Host(Word{Value: host, Known: w.Known}, "", false, false)
		}
	}
	if _, ok := c.Flag("-insecure"); ok {
		c.Tag(TagPackageSource, "go get -insecure")
	}
}

// goBuildFlags are the build flags go build, run, test, vet and install
// share; checkGoRun reads them too, so they are built once, on first use.
var goBuildFlags = sync.OnceValue(func() map[string]Flag {
	return flags(
		shorts("anvxi")+" -race -msan -asan -cover -trimpath -linkshared -modcacherw -json -short -failfast -benchmem", fBool,
		"-p -tags -ldflags -gcflags -asmflags -buildmode -mod -pkgdir -installsuffix -compiler"+
			" -gccgoflags -modfile -overlay -pgo -covermode -coverpkg -run -bench -count -cpu -timeout"+
			" -parallel -benchtime -skip -shuffle -fuzz -fuzztime -vet -C", fVal,
		"-o -coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir", fWrite,
		"-toolexec -exec", tagged(fShell, TagCodeEscape),
	)
})

// checkGoRun: go run of Parallax's own main (./cmd/parallax, the
// module path github.com/parallax/parallax/cmd/parallax, any package path
// ending in cmd/parallax, a file of it, a "..." pattern that may match
// it) runs the parallax CLI with the arguments after the package: they
// are judged as that command (checkParallax), one level deeper.
func checkGoRun(c *Call) {
	args := c.Args
	for len(args) > 0 && !(args[0].Known && args[0].Value == "run") {
		args = args[1:] // go's own flags before the subcommand
	}
	if len(args) == 0 {
		return
	}
	dir, i := c.Cwd, 1
	for ; i < len(args); i++ {
		w := args[i]
		if !w.Known || !strings.HasPrefix(w.Value, "-") || w.Value == "-" {
			break
		}
		name, val, eq := strings.Cut(strings.TrimPrefix(w.Value, "-"), "=")
		name = "-" + strings.TrimPrefix(name, "-") // go takes --flag for -flag
		known := w.Known
		if f, ok := goBuildFlags()[name]; ok && f.Value && !eq {
			i++
			val, known = "", false
			if i < len(args) {
				val, known = args[i].Value, args[i].Known
			}
		}
		if name == "-C" {
			if d, ok := c.an.absPath(dir, val); ok && known {
				dir = d
			} else {
				dir = ""
			}
		}
	}
	if i >= len(args) || !goRunsParallax(c, dir, args[i]) {
		return
	}
	for i++; i < len(args) && args[i].Known && strings.HasSuffix(args[i].Value, ".go"); i++ {
	}
	c.Run(append([]Word{lit("parallax")}, args[i:]...))
}

// goRunsParallax reports whether a go run operand names Parallax's main
// package (or a file of it).
func goRunsParallax(c *Call, dir string, w Word) bool {
	if !w.Known {
		return false
	}
	v := w.Value
	if strings.Contains(v, "...") {
		return true // a pattern may match cmd/parallax
	}
	if strings.HasSuffix(v, ".go") {
		v = path.Dir(v)
	}
	if v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "/") {
		p, ok := c.an.absPath(dir, v)
		if !ok {
			// The directory is unknown: "." or ".." may be cmd/parallax.
			p = "/" + path.Clean(v)
			if p == "/." || p == "/.." || strings.HasPrefix(p, "/../") {
				return true
			}
		}
		v = p
	} else {
		v, _, _ = strings.Cut(v, "@") // module@version
		v = "/" + strings.TrimSuffix(v, "/")
	}
	return strings.HasSuffix(v, "/cmd/parallax")
}

// goSourceVars are Go environment variables that change where modules
// come from or turn off their verification.
var goSourceVars = map[string]bool{"GOPROXY": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOSUMDB": true,
	"GOINSECURE": true, "GOPRIVATE": true, "GONOPROXY": true, "GOFLAGS": true, "GOTOOLCHAIN": true}

// checkGoEnv: "go env -w GOPROXY=..." changes the package source.
func checkGoEnv(c *Call) {
	if _, ok := c.Flag("-w"); !ok {
		return
	}
	for _, w := range c.Positional {
		k, _, _ := strings.Cut(w.Value, "=")
		if goSourceVars[k] {
			c.Tag(TagPackageSource, "go env -w "+k)
		}
	}
	c.Use(lit("~/.config/go/env"), accW)
}

// checkRewrite: -w, -i, --fix or --write rewrites the files.
func checkRewrite(c *Call) {
	if _, ok := c.Flag("-w", "-i", "--write", "--fix"); ok {
		for _, w := range c.Positional {
			c.Use(w, accRW)
		}
	}
}

// checkBlack rewrites its operands unless --check/--diff.
func checkBlack(c *Call) {
	acc := accRW
	if _, ok := c.Flag("--check", "--diff"); ok {
		acc = accR
	}
	for _, w := range c.Positional {
		c.Use(w, acc)
	}
}

// checkRuff: "ruff check --fix" and "ruff format" rewrite files.
func checkRuff(c *Call) {
	_, fix := c.Flag("--fix")
	rewrite := fix || posIs(c, 0, "format")
	for i, w := range c.Positional {
		if i == 0 && (w.Value == "check" || w.Value == "format") {
			continue
		}
		if rewrite {
			c.Use(w, accRW)
		} else {
			c.Use(w, accR)
		}
	}
}

// checkCargoConfig: --config target.*.runner=CMD or a registry change.
func checkCargoConfig(c *Call) {
	w, ok := c.Flag("--config")
	if !ok {
		return
	}
	switch {
	case strings.Contains(w.Value, "runner") || strings.Contains(w.Value, "rustc-wrapper") || strings.Contains(w.Value, "linker"):
		c.Tag(TagCodeEscape, "cargo --config")
	case strings.Contains(w.Value, "registr") || strings.Contains(w.Value, "source."):
		c.Tag(TagPackageSource, "cargo --config")
	}
}

// checkMake: SHELL=prog operands make make run another program.
func checkMake(c *Call) {
	for _, w := range c.Positional {
		if strings.HasPrefix(w.Value, "SHELL=") || strings.HasPrefix(w.Value, "MAKESHELL=") {
			c.Tag(TagCodeEscape, "make SHELL=")
		}
	}
}

// checkCmakeE: "cmake -E CMD ARGS" runs a portable command.
func checkCmakeE(c *Call) {
	if _, ok := c.Flag("-E"); !ok || len(c.Positional) == 0 {
		return
	}
	rest := c.Positional[1:]
	switch c.Positional[0].Value {
	case "rm", "remove", "remove_directory":
		for _, w := range rest {
			c.Use(w, accD)
		}
	case "copy", "copy_directory", "copy_if_different", "rename":
		if len(rest) >= 2 {
			for _, w := range rest[:len(rest)-1] {
				c.Use(w, accR)
			}
			c.Use(rest[len(rest)-1], accW)
		}
	case "make_directory", "touch", "touch_nocreate", "create_symlink":
		for _, w := range rest {
			c.Use(w, accW)
		}
	case "env", "time", "chdir":
		c.Tag(TagCodeEscape, "cmake -E "+c.Positional[0].Value)
	}
}

// checkMvn: exec:exec with -Dexec.executable runs an arbitrary program.
func checkMvn(c *Call) {
	for _, w := range c.Args {
		if strings.Contains(w.Value, "exec.executable=") {
			c.Tag(TagCodeEscape, "mvn exec.executable")
		}
	}
}

// checkGdb: -ex '!cmd' / 'shell cmd' / 'python ...' run code.
func checkGdb(c *Call) {
	for i := 0; i+1 < len(c.Args); i++ {
		v := c.Args[i].Value
		if v != "-ex" && v != "--eval-command" && v != "-iex" && v != "--init-eval-command" {
			continue
		}
		cmd := c.Args[i+1]
		code := strings.TrimSpace(cmd.Value)
		switch {
		case strings.HasPrefix(code, "!"):
			c.Tag(TagCodeEscape, "gdb -ex !")
			c.RunShell(Word{Value: code[1:], Known: cmd.Known})
		case strings.HasPrefix(code, "shell "):
			c.Tag(TagCodeEscape, "gdb -ex shell")
			c.RunShell(Word{Value: code[6:], Known: cmd.Known})
		case strings.HasPrefix(code, "python") || strings.HasPrefix(code, "pi "):
			c.Tag(TagCodeEscape, "gdb -ex python")
			c.RunCode("python", Word{Value: strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(code, "python"), "pi ")), Known: cmd.Known})
		case !cmd.Known:
			c.Tag(TagCodeEscape, "gdb -ex")
		}
	}
}

// checkLdconfig: changing the loader cache is a system change (unless -p).
func checkLdconfig(c *Call) {
	if _, ok := c.Flag("-p", "-v", "-N"); !ok {
		c.Tag(TagSystemChange, "ldconfig")
	}
}

// checkPreCommit: "pre-commit install" writes a git hook.
func checkPreCommit(c *Call) {
	if posIs(c, 0, "install", "install-hooks") {
		c.Use(lit(".git/hooks/pre-commit"), accW)
		c.Tag(TagPersistence, "pre-commit install")
	}
}

// checkGoPkgs: package operands ("./...", "./cmd/x", a directory) are
// directories go reads; "PATTERN/..." is judged as its root.
func checkGoPkgs(c *Call) {
	for _, w := range c.Positional {
		if w.Known && strings.HasSuffix(w.Value, "...") {
			w.Value = strings.TrimSuffix(strings.TrimSuffix(w.Value, "..."), "/")
			if w.Value == "" {
				continue // "...": every package GOPATH knows, not a path
			}
		}
		c.an.operand(c, w)
	}
}
