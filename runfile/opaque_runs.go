package runfile

import (
	"path"
	"strings"
)

// maxBuildFiles bounds the build files one build command is read for
// (a workspace's members, subprojects, modules).
const maxBuildFiles = 16

// buildFiles collects the existing files of one build, each once, at
// most maxBuildFiles.
type buildFiles struct {
	fs   FS
	seen map[string]bool
	out  []Target
}

func newBuildFiles(fs FS) *buildFiles { return &buildFiles{fs: fs, seen: map[string]bool{}} }

func (b *buildFiles) add(p, dir string) {
	if b.seen[p] || len(b.out) >= maxBuildFiles || !b.fs.Exists(p) {
		return
	}
	b.seen[p] = true
	b.out = append(b.out, Target{File: p, Kind: KindOpaque, Dir: dir})
}

// subdirs adds name in each subdirectory of dir (subprojects, modules,
// members): over-approximated to every one.
func (b *buildFiles) subdirs(dir string, names ...string) {
	_, dirs, ok := b.fs.List(dir)
	if !ok {
		return
	}
	for _, d := range dirs {
		if strings.HasPrefix(d, ".") || d == "node_modules" || d == "target" || d == "build" {
			continue
		}
		for _, n := range names {
			b.add(path.Join(dir, d, n), path.Join(dir, d))
		}
	}
}

// flagValue reads "-x V", "--long V", "--long=V" at args[*i].
func flagValue(args []string, i *int, names ...string) (string, bool) {
	a := args[*i]
	for _, n := range names {
		switch {
		case a == n && *i+1 < len(args):
			*i++
			return args[*i], true
		case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
			return a[len(n)+1:], true
		}
	}
	return "", false
}

// cargoSubs are the cargo commands that compile the package (and run
// its build script).
var cargoSubs = map[string]bool{
	"build": true, "b": true, "test": true, "t": true, "run": true, "r": true, "check": true, "c": true,
	"clippy": true, "bench": true, "doc": true, "d": true, "fix": true, "rustc": true, "rustdoc": true,
	"miri": true, "nextest": true, "llvm-cov": true, "tarpaulin": true,
}

// cargoRuns: cargo build/test/run/check/clippy... [--manifest-path P]
// runs the build script of the package (build.rs, or Cargo.toml's
// build = "...") and of the workspace's members.
func cargoRuns(args []string, cwd string, fs FS) []Target {
	dir, sub, path_ := cwd, "", false
	for i := 0; i < len(args); i++ {
		if v, ok := flagValue(args, &i, "--manifest-path"); ok {
			dir = path.Dir(abs(cwd, v))
			continue
		}
		if _, ok := flagValue(args, &i, "-Z", "--config", "--color", "-C"); ok {
			continue
		}
		a := args[i]
		switch {
		case a == "--path":
			path_ = true
			if i+1 < len(args) {
				i++
				dir = abs(cwd, args[i])
			}
		case strings.HasPrefix(a, "+") || strings.HasPrefix(a, "-"):
		case sub == "":
			sub = a
		}
	}
	if !cargoSubs[sub] && !(sub == "install" && path_) {
		return nil
	}
	b := newBuildFiles(fs)
	cargoPackage(b, dir, fs, true)
	return b.out
}

// cargoPackage adds a package's build script and, for a workspace root,
// its members'.
func cargoPackage(b *buildFiles, dir string, fs FS, root bool) {
	manifest, _ := fs.Read(path.Join(dir, "Cargo.toml"))
	script := "build.rs"
	if v, ok := tomlString(manifest, "build"); ok {
		script = v
	}
	b.add(abs(dir, script), dir)
	if !root {
		return
	}
	for _, m := range tomlList(manifest, "members") {
		if strings.HasSuffix(m, "/*") {
			parent := abs(dir, strings.TrimSuffix(m, "/*"))
			if _, dirs, ok := fs.List(parent); ok {
				for _, d := range dirs {
					cargoPackage(b, path.Join(parent, d), fs, false)
				}
			}
			continue
		}
		if !strings.ContainsAny(m, "*?[") {
			cargoPackage(b, abs(dir, m), fs, false)
		}
	}
}

// tomlString returns the string value of the first `key = "v"` line.
func tomlString(s, key string) (string, bool) {
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
				if e := strings.IndexByte(v[1:], v[0]); e >= 0 {
					return v[1 : 1+e], true
				}
			}
		}
	}
	return "", false
}

// tomlList returns the strings of the first `key = [ ... ]` (it may
// span lines).
func tomlList(s, key string) []string {
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], key)
		if k < 0 {
			return nil
		}
		i += k + len(key)
		rest := strings.TrimLeft(s[i:], " \t")
		if !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t")
		if !strings.HasPrefix(rest, "[") {
			return nil
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			end = len(rest)
		}
		var out []string
		for _, w := range literals(rest[1:end], true) {
			if len(out) < maxBuildFiles {
				out = append(out, w)
			}
		}
		return out
	}
	return nil
}

// gradleRuns: any gradle run but --version/--help evaluates the
// settings and build scripts of the project (-p DIR), its subprojects,
// buildSrc and the scripts in gradle/, and the init scripts it is given.
func gradleRuns(args []string, cwd string, fs FS) []Target {
	dir := cwd
	b := newBuildFiles(fs)
	for i := 0; i < len(args); i++ {
		if v, ok := flagValue(args, &i, "-p", "--project-dir"); ok {
			dir = abs(cwd, v)
			continue
		}
		if v, ok := flagValue(args, &i, "-b", "--build-file", "-c", "--settings-file", "-I", "--init-script"); ok {
			b.add(abs(cwd, v), cwd)
			continue
		}
		switch args[i] {
		case "--version", "-v", "--help", "-h", "-?":
			return nil
		}
	}
	names := []string{"settings.gradle", "settings.gradle.kts", "build.gradle", "build.gradle.kts"}
	for _, n := range names {
		b.add(path.Join(dir, n), dir)
	}
	for _, n := range names[2:] {
		b.add(path.Join(dir, "buildSrc", n), path.Join(dir, "buildSrc"))
	}
	if files, _, ok := fs.List(path.Join(dir, "gradle")); ok {
		for _, f := range files {
			if strings.HasSuffix(f, ".gradle") || strings.HasSuffix(f, ".gradle.kts") {
				b.add(path.Join(dir, "gradle", f), dir)
			}
		}
	}
	b.subdirs(dir, names[2:]...)
	return b.out
}

// cmakeRuns: cmake [-S SRC] [-B BUILD] [PATH] configures SRC, running
// its CMakeLists.txt, those of its subdirectories and its .cmake files;
// cmake -P FILE runs FILE; cmake --build DIR may configure again (the
// source directory is the cache's, else the current one).
func cmakeRuns(args []string, cwd string, fs FS) []Target {
	src := ""
	b := newBuildFiles(fs)
	for i := 0; i < len(args); i++ {
		if v, ok := flagValue(args, &i, "-S"); ok {
			src = abs(cwd, v)
			continue
		}
		if v, ok := flagValue(args, &i, "-P"); ok {
			b.add(abs(cwd, v), cwd)
			return b.out
		}
		if v, ok := flagValue(args, &i, "--build", "--install", "-B"); ok {
			if s, ok := cacheSource(fs, abs(cwd, v)); ok && src == "" {
				src = s
			}
			continue
		}
		if _, ok := flagValue(args, &i, "-G", "-T", "-A", "-C", "--preset", "--target", "-t", "--config", "-j", "--parallel", "--prefix", "--component"); ok {
			continue
		}
		a := args[i]
		switch {
		case a == "-E" || a == "--version" || a == "--help" || a == "-h" || strings.HasPrefix(a, "--help-") || a == "--system-information":
			return nil
		case strings.HasPrefix(a, "-S") && len(a) > 2:
			src = abs(cwd, a[2:])
		case strings.HasPrefix(a, "-"), a == "":
		case src == "":
			p := abs(cwd, a)
			if s, ok := cacheSource(fs, p); ok {
				src = s
			} else {
				src = p
			}
		}
	}
	if src == "" {
		src = cwd
	}
	b.add(path.Join(src, "CMakeLists.txt"), src)
	for _, d := range []string{src, path.Join(src, "cmake")} {
		if files, _, ok := fs.List(d); ok {
			for _, f := range files {
				if strings.HasSuffix(f, ".cmake") {
					b.add(path.Join(d, f), src)
				}
			}
		}
	}
	b.subdirs(src, "CMakeLists.txt")
	return b.out
}

// cacheSource reads the source directory of a build directory's
// CMakeCache.txt.
func cacheSource(fs FS, dir string) (string, bool) {
	s, ok := fs.Read(path.Join(dir, "CMakeCache.txt"))
	if !ok {
		return "", false
	}
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, "CMAKE_HOME_DIRECTORY:INTERNAL="); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// mavenRuns: mvn [-f POM|DIR] runs the plugins of the project's pom.xml
// and of its modules.
func mavenRuns(args []string, cwd string, fs FS) []Target {
	dir := cwd
	b := newBuildFiles(fs)
	for i := 0; i < len(args); i++ {
		if v, ok := flagValue(args, &i, "-f", "--file"); ok {
			p := abs(cwd, v)
			if strings.HasSuffix(p, ".xml") {
				b.add(p, path.Dir(p))
				dir = path.Dir(p)
			} else {
				dir = p
			}
			continue
		}
		switch args[i] {
		case "--version", "-v", "-V", "--help", "-h":
			return nil
		}
	}
	b.add(path.Join(dir, "pom.xml"), dir)
	b.subdirs(dir, "pom.xml")
	return b.out
}

// backendRuns: pip install/wheel of a local directory, python -m build
// DIR, uv build: a pyproject.toml naming an in-tree build backend
// (backend-path) runs that backend's module, which is Python the
// analyser reads as a script; the pyproject.toml itself is opaque (a
// gate asks about it when the agent wrote it).
func backendRuns(dir string, fs FS) []Target {
	pp := path.Join(dir, "pyproject.toml")
	content, ok := fs.Read(pp)
	if !ok || !strings.Contains(content, "backend-path") {
		return nil
	}
	out := []Target{{File: pp, Kind: KindOpaque, Dir: dir}}
	backend, _ := tomlString(content, "build-backend")
	backend, _, _ = strings.Cut(backend, ":")
	mod := strings.ReplaceAll(backend, ".", "/")
	for _, bp := range tomlList(content, "backend-path") {
		if mod == "" {
			break
		}
		base := abs(dir, bp)
		for _, f := range []string{path.Join(base, mod+".py"), path.Join(base, mod, "__init__.py")} {
			out = append(out, scriptRun(f, "python", dir, fs)...)
		}
	}
	return out
}

// buildModuleRuns: python -m build [DIR] (pyproject-build).
func buildModuleRuns(args []string, cwd string, fs FS) []Target {
	dir := cwd
	for i := 0; i < len(args); i++ {
		if _, ok := flagValue(args, &i, "-o", "--outdir", "-C", "--config-setting", "--installer"); ok {
			continue
		}
		if a := args[i]; a != "" && !strings.HasPrefix(a, "-") {
			dir = abs(cwd, a)
		}
	}
	return backendRuns(dir, fs)
}

// wrapperRuns: ./gradlew and ./mvnw run their build as gradle and mvn do.
func wrapperRuns(base string, args []string, cwd string, fs FS) []Target {
	switch strings.TrimSuffix(base, ".bat") {
	case "gradlew":
		return gradleRuns(args, cwd, fs)
	case "mvnw":
		return mavenRuns(args, cwd, fs)
	}
	return nil
}

// uvRuns: uv pip install ., uv build [DIR], uv sync and uv run (which
// build and install the project itself).
func uvRuns(args []string, cwd string, fs FS) []Target {
	for i, a := range args {
		switch a {
		case "pip":
			return pipRuns(args[i+1:], cwd, fs)
		case "build":
			return buildModuleRuns(args[i+1:], cwd, fs)
		case "sync", "run":
			return backendRuns(cwd, fs)
		}
		if !strings.HasPrefix(a, "-") {
			return nil
		}
	}
	return nil
}
