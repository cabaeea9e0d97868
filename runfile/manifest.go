package runfile

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// Dependency manifests and package-manager settings name where the next
// install or build fetches code from. A source other than the default
// registry (a URL, a git repository, a tarball, a directory outside the
// workspace, another index or registry) is a supply-chain change: the
// code that comes from it runs on the next install. Sources lists them.

// Source is one non-default source a manifest names.
type Source struct {
	File string // the manifest
	What string // "dependency left-pad from git+https://x.example/l.git"
}

// maxSources bounds the sources listed for one file or command.
const maxSources = 64

// IsManifest reports whether a file, by its path, is a dependency
// manifest or package-manager setting whose sources Sources reads.
func IsManifest(p string) bool { return manifestKind(p) != "" }

func manifestKind(p string) string {
	base := path.Base(p)
	switch {
	case base == "package.json":
		return "npm"
	case (strings.HasPrefix(base, "requirements") || strings.HasPrefix(base, "constraints")) &&
		(strings.HasSuffix(base, ".txt") || strings.HasSuffix(base, ".in")),
		path.Base(path.Dir(p)) == "requirements" && strings.HasSuffix(base, ".txt"):
		return "pip"
	case base == "pyproject.toml" || base == "Pipfile" || base == "Cargo.toml" || base == "uv.toml" ||
		base == "config.toml" && path.Base(path.Dir(p)) == ".cargo" || base == "config" && path.Base(path.Dir(p)) == ".cargo":
		return "toml"
	case base == "go.mod" || base == "go.work":
		return "go"
	case base == ".npmrc" || base == ".yarnrc" || base == ".yarnrc.yml" || base == "pip.conf" || base == "pip.ini":
		return "rc"
	}
	return ""
}

// Sources returns the non-default sources a manifest's content names.
// ws is the workspace: a local path inside it is the project's own.
func Sources(file, content, ws string) []Source {
	if len(content) > MaxFileBytes {
		return []Source{{File: file, What: "content larger than " + itoa(MaxFileBytes>>10) + " KiB, not read"}}
	}
	dir := path.Dir(file)
	var whats []string
	switch manifestKind(file) {
	case "npm":
		whats = npmSources(content, dir, ws)
	case "pip":
		whats = pipSources(content, dir, ws)
	case "toml":
		whats = tomlSources(content, dir, ws)
	case "go":
		whats = goModSources(content, dir, ws)
	case "rc":
		whats = rcSources(content)
	}
	var out []Source
	for _, w := range whats {
		if len(out) >= maxSources {
			break
		}
		out = append(out, Source{File: file, What: w})
	}
	return out
}

// defaultHosts serve the default registries.
var defaultHosts = map[string]bool{
	"registry.npmjs.org": true, "registry.yarnpkg.com": true, "pypi.org": true, "pypi.python.org": true,
	"files.pythonhosted.org": true, "crates.io": true, "index.crates.io": true, "static.crates.io": true,
	"proxy.golang.org": true,
}

// remote reports whether a version or location names a place other than
// the default registry: a URL, a git remote, a GitHub shorthand, or a
// local path outside the workspace.
func remote(v, dir, ws string) bool {
	v = strings.TrimSpace(v)
	low := strings.ToLower(v)
	for _, p := range []string{"http://", "https://", "git+", "git://", "git@", "ssh://", "github:", "gitlab:",
		"bitbucket:", "gist:", "ftp://", "hg+", "svn+", "bzr+"} {
		if strings.HasPrefix(low, p) {
			return !defaultHost(low)
		}
	}
	for _, p := range []string{"file:", "link:", "portal:"} {
		if strings.HasPrefix(low, p) {
			return outside(strings.TrimPrefix(v[len(p):], "//"), dir, ws)
		}
	}
	return false
}

// defaultHost reports whether a URL is served by a default registry.
func defaultHost(u string) bool {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		return false // credentials in the URL: not the default registry's form
	}
	host, _, _ = strings.Cut(host, ":")
	return defaultHosts[host]
}

// outside reports whether a local path lies outside the workspace.
func outside(p, dir, ws string) bool {
	if p == "" || ws == "" {
		return p != ""
	}
	if strings.HasPrefix(p, "~") || strings.Contains(p, "$") {
		return true
	}
	a := abs(dir, p)
	return a != ws && !strings.HasPrefix(a, ws+"/")
}

// npmDepKeys hold a package.json's dependencies.
var npmDepKeys = []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides", "resolutions", "pnpm"}

// npmSources: dependency versions that are URLs, git remotes, GitHub
// shorthands, or file:/link: paths outside the workspace. A fragment that
// is not JSON (an edit's) is read pair by pair.
func npmSources(content, dir, ws string) []string {
	var pkg map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &pkg); err != nil {
		return npmPairs(content, dir, ws)
	}
	var out []string
	for _, k := range npmDepKeys {
		if raw, ok := pkg[k]; ok {
			npmWalk(raw, k, dir, ws, &out, 0)
		}
	}
	sort.Strings(out)
	return out
}

// npmWalk reads a dependency map, nested (overrides) at most 8 deep.
func npmWalk(raw json.RawMessage, where, dir, ws string, out *[]string, depth int) {
	var m map[string]json.RawMessage
	if depth > 8 || len(*out) >= maxSources || json.Unmarshal(raw, &m) != nil {
		return
	}
	for name, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			if npmRemote(s, dir, ws) {
				*out = append(*out, where+" "+name+" from "+clip(s))
			}
			continue
		}
		npmWalk(v, where, dir, ws, out, depth+1)
	}
}

// npmRemote is remote, plus GitHub's user/repo shorthand.
func npmRemote(v, dir, ws string) bool {
	if remote(v, dir, ws) {
		return true
	}
	if strings.HasPrefix(v, "npm:") || strings.HasPrefix(v, "workspace:") || strings.HasPrefix(v, "catalog:") ||
		strings.HasPrefix(v, "@") || strings.ContainsAny(v, " <>=^~*|") {
		return false
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "./") || strings.HasSuffix(v, ".tgz") {
		return outside(v, dir, ws)
	}
	user, repo, ok := strings.Cut(v, "/")
	return ok && user != "" && repo != "" && !strings.Contains(repo, "/")
}

// npmPairs reads "name": "value" pairs of a fragment, keeping the
// remote values of keys that are not a package's metadata.
func npmPairs(content, dir, ws string) []string {
	var out []string
	lits := literalsN(content, false, len(content))
	for i := 0; i+1 < len(lits) && len(out) < maxSources; i++ {
		k, v := lits[i], lits[i+1]
		switch k {
		case "homepage", "repository", "url", "bugs", "funding", "author", "description", "main", "registry", "$schema", "name", "type":
			continue
		}
		if npmRemote(v, dir, ws) && !npmRemote(k, dir, ws) {
			out = append(out, "dependency "+k+" from "+clip(v))
			i++
		}
	}
	return out
}

// pipSources: index and find-links options, direct URL and VCS
// requirements, local paths outside the workspace.
func pipSources(content, dir, ws string) []string {
	var out []string
	for _, line := range strings.Split(content, "\n") {
		if len(out) >= maxSources {
			break
		}
		line = strings.TrimSpace(line)
		if i := strings.Index(line, " #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		opt, val := f[0], ""
		if k, v, ok := strings.Cut(opt, "="); ok && strings.HasPrefix(opt, "--") {
			opt, val = k, v
		} else if len(f) > 1 {
			val = f[1]
		} else if strings.HasPrefix(opt, "-i") || strings.HasPrefix(opt, "-f") || strings.HasPrefix(opt, "-e") {
			opt, val = opt[:2], opt[2:]
		}
		switch opt {
		case "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host":
			if opt == "--trusted-host" || !defaultHost(strings.ToLower(val)) {
				out = append(out, opt+" "+clip(val))
			}
			continue
		case "-e", "--editable":
			if remote(val, dir, ws) || !strings.Contains(val, "://") && outside(val, dir, ws) {
				out = append(out, "editable requirement from "+clip(val))
			}
			continue
		case "-r", "--requirement", "-c", "--constraint", "--no-index", "--pre", "--prefer-binary", "--only-binary", "--no-binary", "--require-hashes":
			continue
		}
		if _, ref, ok := strings.Cut(line, "@"); ok && strings.Contains(ref, "://") {
			ref = strings.TrimSpace(ref)
			if remote(ref, dir, ws) {
				out = append(out, "requirement "+clip(line))
			}
			continue
		}
		if remote(f[0], dir, ws) {
			out = append(out, "requirement from "+clip(f[0]))
			continue
		}
		if strings.HasPrefix(f[0], "/") || strings.HasPrefix(f[0], "../") || strings.HasPrefix(f[0], "~") {
			if outside(f[0], dir, ws) {
				out = append(out, "requirement from "+clip(f[0]))
			}
		}
	}
	return out
}

// tomlSourceKeys name a source in a TOML manifest (pyproject.toml,
// Pipfile, Cargo.toml, .cargo/config.toml, uv.toml).
var tomlSourceKeys = map[string]bool{
	"git": true, "registry": true, "registry-index": true, "index-url": true, "extra-index-url": true,
	"find-links": true, "index": true, "replace-with": true, "file": true,
}

// tomlSources: source and index URLs, git/registry/url/file dependency
// sources, paths outside the workspace, and PEP 508 direct references.
func tomlSources(content, dir, ws string) []string {
	var out []string
	section := ""
	for _, line := range strings.Split(content, "\n") {
		if len(out) >= maxSources {
			break
		}
		text := strings.TrimSpace(line)
		if text == "" || text[0] == '#' {
			continue
		}
		if text[0] == '[' {
			section = strings.ToLower(strings.Trim(text, "[] "))
			continue
		}
		sourceSection := strings.Contains(section, "source") || strings.Contains(section, "index") || strings.Contains(section, "registr")
		for _, kv := range tomlPairs(text) {
			k, v := kv[0], kv[1]
			switch {
			case k == "url" && (sourceSection || strings.Contains(section, "dependencies") || strings.Contains(text, "{")),
				k == "path" && outside(v, dir, ws),
				tomlSourceKeys[k] && (strings.Contains(v, "://") || strings.HasPrefix(v, "git@") || k == "registry" || k == "replace-with" || k == "index"):
				if k == "path" || !defaultHost(strings.ToLower(v)) || k == "registry" || k == "replace-with" {
					out = append(out, "["+section+"] "+k+" = "+clip(v))
				}
			}
		}
		for _, lit := range literalsN(text, true, len(text)) {
			if _, ref, ok := strings.Cut(lit, " @ "); ok && remote(strings.TrimSpace(ref), dir, ws) ||
				strings.HasPrefix(lit, "git+") && remote(lit, dir, ws) {
				out = append(out, "["+section+"] requirement "+clip(lit))
			}
		}
	}
	return out
}

// tomlPairs returns the key = "string" pairs of a line, inline tables'
// included.
func tomlPairs(text string) [][2]string {
	var out [][2]string
	for i := 0; i < len(text); {
		eq := strings.IndexByte(text[i:], '=')
		if eq < 0 {
			break
		}
		eq += i
		j := eq - 1
		for j >= 0 && text[j] == ' ' {
			j--
		}
		k := j
		for k >= 0 && (isWordByte(text[k]) || text[k] == '-' || text[k] == '.' || text[k] == '"') {
			k--
		}
		key := strings.Trim(text[k+1:j+1], `"`)
		if d := strings.LastIndexByte(key, '.'); d >= 0 {
			key = key[d+1:]
		}
		rest := strings.TrimLeft(text[eq+1:], " ")
		i = eq + 1
		if rest == "" || rest[0] != '"' && rest[0] != '\'' {
			continue
		}
		e := strings.IndexByte(rest[1:], rest[0])
		if e < 0 {
			break
		}
		out = append(out, [2]string{strings.ToLower(key), rest[1 : 1+e]})
	}
	return out
}

// goModSources: replace directives to a module (another host, fetched)
// or to a directory outside the workspace.
func goModSources(content, dir, ws string) []string {
	var out []string
	block := false
	for _, line := range strings.Split(content, "\n") {
		if len(out) >= maxSources {
			break
		}
		text := strings.TrimSpace(line)
		if i := strings.Index(text, "//"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		switch {
		case text == "replace (":
			block = true
			continue
		case block && text == ")":
			block = false
			continue
		case strings.HasPrefix(text, "replace "):
			text = strings.TrimSpace(text[len("replace "):])
		case !block:
			continue
		}
		_, to, ok := strings.Cut(text, "=>")
		if !ok {
			continue
		}
		if f := strings.Fields(to); len(f) > 0 && ReplaceRemote(f[0], dir, ws) {
			out = append(out, "replace "+clip(strings.TrimSpace(text)))
		}
	}
	return out
}

// ReplaceRemote reports whether a go.mod replacement target is fetched
// (a module path) or a directory outside the workspace.
func ReplaceRemote(to, dir, ws string) bool {
	to = strings.Trim(to, `"`)
	if strings.HasPrefix(to, "./") || strings.HasPrefix(to, "../") || strings.HasPrefix(to, "/") || to == "." || to == ".." {
		return outside(to, dir, ws)
	}
	return to != ""
}

// rcSources: registry and index settings of .npmrc, .yarnrc(.yml),
// pip.conf.
func rcSources(content string) []string {
	var out []string
	for _, line := range strings.Split(content, "\n") {
		if len(out) >= maxSources {
			break
		}
		text := strings.TrimSpace(line)
		if text == "" || text[0] == '#' || text[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		if !ok {
			k, v, ok = strings.Cut(text, ":") // .yarnrc.yml
			if !ok {
				k, v, _ = strings.Cut(text, " ") // .yarnrc: registry "URL"
			}
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch {
		case k == "registry" || strings.HasSuffix(k, ":registry") || k == "npmregistryserver" ||
			k == "index-url" || k == "extra-index-url" || k == "find-links" || k == "index" || k == "trusted-host":
			if !defaultHost(strings.ToLower(v)) {
				out = append(out, k+" "+clip(v))
			}
		}
	}
	return out
}

// CommandSources returns the non-default sources a package-manager
// command writes into a manifest: go mod edit -replace (and go work
// edit), npm pkg set of a dependency. (Installs and config set of
// another index or registry are the shell analysis's TagPackageSource.)
// cwd is where it runs.
func CommandSources(name string, args []string, cwd, ws string) []string {
	sub := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	var out []string
	switch name {
	case "go":
		if (sub(0) == "mod" || sub(0) == "work") && sub(1) == "edit" {
			for i := 2; i < len(args); i++ {
				v, ok := strings.CutPrefix(args[i], "-replace=")
				if !ok && args[i] == "-replace" && i+1 < len(args) {
					i++
					v, ok = args[i], true
				}
				if _, to, found := strings.Cut(v, "="); ok && (v == "" || found && ReplaceRemote(to, cwd, ws)) {
					out = append(out, "go "+sub(0)+" edit -replace "+clip(v))
				}
			}
		}
	case "npm", "pnpm", "yarn":
		if sub(0) == "pkg" && sub(1) == "set" {
			for _, a := range args[2:] {
				k, v, ok := strings.Cut(a, "=")
				if ok && strings.Contains(strings.ToLower(k), "dependenc") || ok && strings.HasPrefix(k, "overrides") {
					if npmRemote(v, cwd, ws) {
						out = append(out, name+" pkg set "+clip(a))
					}
				}
			}
		}
	}
	return out
}
