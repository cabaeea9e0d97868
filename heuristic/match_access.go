package heuristic

import (
	"github.com/parallax/parallax/internal/glob"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/memo"
	"github.com/parallax/parallax/shell"
)

// isParallaxPath reports whether p is agent-internal state: the
// workspace's .parallax directory, the user's ~/.parallax, or an audit log.
func isParallaxPath(p string, isGlob bool, ws, home string) bool {
	if isGlob {
		// A glob's answer depends on the glob and the two directories
		// only: remembered, keyed by all three joined by NUL (a path
		// holding one is computed afresh: its key would be ambiguous).
		if strings.IndexByte(p, 0) >= 0 || strings.IndexByte(ws, 0) >= 0 || strings.IndexByte(home, 0) >= 0 {
			return parallaxGlob(p, ws, home)
		}
		var kb [256]byte
		key := append(append(append(append(append(kb[:0], p...), 0), ws...), 0), home...)
		return parallaxGlobs.DoBytes(key, func() bool { return parallaxGlob(p, ws, home) })
	}
	for _, d := range [...]string{ws, home} {
		if rel, in := under(p, d); d != "" && in && (rel == ".parallax" || strings.HasPrefix(rel, ".parallax/")) {
			return true
		}
	}
	return baseName(p) == "audit.jsonl"
}

// parallaxGlobs remembers parallaxGlob answers across decisions.
var parallaxGlobs = memo.New[bool](0)

// parallaxGlob reports whether the glob p may name the gate's state
// below ws or home, or an audit chain anywhere.
func parallaxGlob(p, ws, home string) bool {
	for _, d := range [...]string{ws, home} {
		if d == "" {
			continue
		}
		dir := strings.TrimSuffix(d, "/") + "/.parallax"
		if glob.Intersect(p, dir) || glob.Intersect(p, dir+"/**") {
			return true
		}
	}
	return baseName(p) == "audit.jsonl"
}

// matchParallaxInternals fires on any access to the gate's own state and
// on commands that stop the gate.
func matchParallaxInternals(in *Input) (string, bool) {
	if u, ok := findPath(in, func(u use) bool {
		if u.glob && u.access&action.AccessDelete == 0 &&
			(metadataOnly[u.prog] || literalBytes(baseName(u.path)) < 2) {
			return false // "ls .*", "find .*": a wildcard that happens to cover .parallax
		}
		return isParallaxPath(u.path, u.glob, in.Workspace, in.Home)
	}); ok {
		return tilde(u.path, in.Home), true
	}
	if fx := in.Effects; fx != nil {
		killer := false
		for _, e := range fx.Execs {
			killer = killer || oneOf(e.Name, "kill", "pkill", "killall", "systemctl", "service", "launchctl", "sc")
		}
		for _, e := range fx.Execs {
			// "kill $(pgrep parallax)": the name reaches kill through a lookup.
			if !oneOf(e.Name, "kill", "pkill", "killall", "systemctl", "service", "launchctl", "sc") &&
				!(killer && oneOf(e.Name, "pgrep", "pidof")) {
				continue
			}
			for _, a := range e.Args {
				if strings.Contains(strings.ToLower(a), "parallax") {
					return e.Name + " stops parallax", true
				}
			}
		}
	}
	if p, ok := in.Action.Payload.(*action.MCPCallPayload); ok {
		for _, t := range p.Texts() {
			if looksPath(t.Value) && isParallaxPath(expandHome(t.Value, in.Home), false, in.Workspace, in.Home) {
				return t.Name + " names " + tilde(expandHome(t.Value, in.Home), in.Home), true
			}
		}
	}
	return "", false
}

// credentialOwners use credential files in place, for their purpose:
// "ssh -i key", "kubectl --kubeconfig", "terraform show x.tfstate". A read
// by one of them is not access to the secret; copying programs are never
// owners.
var credentialOwners = map[string]bool{"ssh": true, "ssh-add": true, "ssh-keygen": true,
	"gpg": true, "gpg2": true, "kubectl": true, "helm": true, "k9s": true, "terraform": true,
	"tofu": true, "terragrunt": true, "psql": true, "mysql": true, "vault": true, "twine": true,
	"pass": true}

// metadataOnly programs look at names, sizes and modes, not content.
var metadataOnly = map[string]bool{"ls": true, "stat": true, "test": true, "[": true, "[[": true,
	"file": true, "du": true, "realpath": true, "readlink": true, "dirname": true, "basename": true,
	"chmod": true, "chown": true, "chgrp": true, "touch": true, "mkdir": true, "tree": true,
	"find": true, "exa": true, "eza": true, "getfacl": true, "lsattr": true}

// matchCredRead fires on reads of credential material by path, wherever
// the path comes from: the payload, the shell analysis (globs included),
// or a path-looking MCP argument.
func matchCredRead(in *Input) (string, bool) {
	if u, ok := findPath(in, func(u use) bool {
		if u.access&action.AccessRead == 0 || metadataOnly[u.prog] || credentialOwners[u.prog] ||
			identityArg(in, u.prog, u.path) {
			return false
		}
		if u.glob {
			if dir, name, ok := findScope(in, u.path); ok {
				if name == "" && strings.Contains(u.path, "/**") {
					// An unfiltered recursive read is not a read of each
					// file below: the guard judges what the tree holds.
					return false
				}
				return credentialPaths.matchScope(dir, name, in.Home)
			}
		}
		return isCredential(u.path, u.glob, in.Home)
	}); ok {
		d := tilde(u.path, in.Home)
		if u.prog != "" {
			d += " read by " + u.prog
		}
		return d, true
	}
	if d, ok := credentialValueArg(in); ok {
		return d, true
	}
	if p, ok := in.Action.Payload.(*action.MCPCallPayload); ok {
		for _, t := range p.Texts() {
			if !looksPath(t.Value) {
				continue
			}
			if abs := expandHome(t.Value, in.Home); isCredential(abs, false, in.Home) {
				return tilde(abs, in.Home) + " in " + t.Name, true
			}
		}
	}
	return "", false
}

// looksPath reports whether an argument string is an absolute, ~ or
// file:// path.
func looksPath(s string) bool {
	return len(s) < 4096 && (strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/") ||
		strings.HasPrefix(s, "file://"))
}

// expandHome turns "~/x" and "file:///x" into absolute, clean paths.
func expandHome(s, home string) string {
	s = strings.TrimPrefix(s, "file://")
	if p := resolveArg(s, "", home); p != "" {
		return p
	}
	return s
}

// secretWords in a search pattern mean the search is for secrets.
var secretWords = [...]string{"password", "passwd", "secret", "token", "api_key", "apikey",
	"api-key", "private", "-----begin", "begin rsa", "begin openssh", "akia", "asia[",
	"aws_access", "aws_secret", "credential", "bearer", "ghp_", "xox", "sk-", "glpat"}

// grepLike search file contents; rg, ag and ack recurse by default.
var grepLike = map[string]bool{"grep": false, "egrep": false, "fgrep": false, "zgrep": false,
	"rg": true, "ag": true, "ack": true, "pt": true}

// matchCredSearch fires on the analyser's credential-search fact and on a
// typed search for secret patterns outside the workspace.
func matchCredSearch(in *Input) (string, bool) {
	if fx := in.Effects; fx != nil {
		for _, t := range fx.Tags {
			if t.Kind == shell.TagCredentialSearch && !searchesWorkspaceOnly(in, fx, t.Program) {
				return tagDetail(t), true
			}
		}
	}
	if d, ok := grepForSecrets(in); ok {
		return d, true
	}
	p, ok := in.Action.Payload.(*action.SearchFilesPayload)
	if !ok || inside(p.Path, in.Workspace) {
		return "", false
	}
	pat := strings.ToLower(p.Pattern)
	for _, w := range secretWords {
		if strings.Contains(pat, w) {
			return "search for " + w + " under " + tilde(p.Path, in.Home), true
		}
	}
	return "", false
}

// identityArg reports whether p is the "-i key" of an scp, sftp or rsync
// in the command: the key is used to log in, not sent.
func identityArg(in *Input, prog, p string) bool {
	if in.Effects == nil || !oneOf(prog, "scp", "sftp", "rsync", "ssh") {
		return false
	}
	for _, e := range in.Effects.Execs {
		if e.Name != prog {
			continue
		}
		for i, a := range e.Args {
			v := ""
			switch {
			case a == "-i" && i+1 < len(e.Args):
				v = e.Args[i+1]
			case strings.HasPrefix(a, "-i") && len(a) > 2:
				v = a[2:]
			}
			if v != "" && resolveArg(v, in.Workspace, in.Home) == p {
				return true
			}
		}
	}
	return false
}

// grepForSecrets finds a recursive content search for secret patterns
// over a tree outside the workspace ("grep -r AKIA /home").
func grepForSecrets(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		recursive, known := grepLike[e.Name]
		if !known {
			continue
		}
		if !recursive && !hasFlag(e.Args, 'r', "--recursive") && !hasFlag(e.Args, 'R', "--dereference-recursive") {
			continue
		}
		word := ""
		for _, a := range e.Args {
			la := strings.ToLower(a)
			for _, w := range secretWords {
				if strings.Contains(la, w) {
					word = w
					break
				}
			}
		}
		if word == "" {
			continue
		}
		for _, p := range fx.Paths {
			if p.Program == e.Name && p.Access&action.AccessRead != 0 && !inside(p.Path, in.Workspace) {
				return e.Name + " searches " + tilde(p.Path, in.Home) + " for " + strings.Trim(word, "-["), true
			}
		}
	}
	return "", false
}

// searchesWorkspaceOnly reports whether every path prog reads is inside
// the workspace: looking for "password" in your own code is review, not
// credential hunting.
func searchesWorkspaceOnly(in *Input, fx *shell.Effects, prog string) bool {
	found := false
	for _, p := range fx.Paths {
		if p.Program != prog {
			continue
		}
		if in.Workspace == "" || !inside(p.Path, in.Workspace) {
			return false
		}
		found = true
	}
	return found
}

// findScope recognises the "DIR/*" glob a find -exec hands its command
// and returns what the find reaches: DIR and its -name/-iname filter (""
// when there is none, several, or a negated one). Unlike a shell glob,
// find's reach includes dot files and subdirectories. ok is false when g
// does not come from a find.
func findScope(in *Input, g string) (dir, name string, ok bool) {
	// The analyser's recursive sets: "DIR/**" and "DIR/**/NAME".
	if i := strings.Index(g, "/**"); i >= 0 && (i+3 == len(g) || g[i+3] == '/') &&
		!strings.ContainsAny(g[:i], "*?[") {
		rest := strings.TrimPrefix(g[i+3:], "/")
		if strings.ContainsRune(rest, '/') {
			rest = ""
		}
		return g[:i], rest, true
	}
	dir, ok = strings.CutSuffix(g, "/*")
	if !ok || in.Effects == nil || strings.ContainsAny(dir, "*?[") {
		return "", "", false
	}
	for _, e := range in.Effects.Execs {
		if e.Name != "find" || !findStartsAt(in, e.Args, dir) {
			continue
		}
		negated, count := false, 0
		for i, a := range e.Args {
			switch {
			case (a == "-name" || a == "-iname") && i+1 < len(e.Args):
				name, count = e.Args[i+1], count+1
				negated = negated || i > 0 && (e.Args[i-1] == "!" || e.Args[i-1] == "-not")
			case a == "-o" || a == "-or":
				count++
			}
		}
		if negated || count > 1 || strings.ContainsRune(name, '/') {
			name = ""
		}
		return dir, name, true
	}
	return "", "", false
}

// findStartsAt reports whether dir is one of find's starting points
// (the operands before the first expression; "." when none).
func findStartsAt(in *Input, args []string, dir string) bool {
	starts := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		starts++
		if resolveArg(a, in.Workspace, in.Home) == dir {
			return true
		}
	}
	return starts == 0 && dir == in.Workspace
}

// credentialValueArg finds a credential path handed to a program as a
// value its table does not read: npm config set cafile ~/.ssh/id_rsa,
// pip config set global.cert=~/.ssh/id_rsa. The program stores the path
// and reads the file later, outside the gate's view, so handing it over
// is a read of it. Arguments the analyser recorded as paths are judged
// by findPath; printers and metadata programs read nothing.
func credentialValueArg(in *Input) (string, bool) {
	if in.Effects == nil {
		return "", false
	}
	for _, e := range in.Effects.Execs {
		if e.Name == "" || metadataOnly[e.Name] || credentialOwners[e.Name] || oneOf(e.Name, "echo", "printf") {
			continue
		}
		for _, a := range e.Args {
			v := a
			if i := strings.IndexByte(a, '='); i >= 0 && !looksPath(a) {
				v = a[i+1:] // --key=PATH, name=PATH
			}
			if !looksPath(v) || strings.ContainsAny(v, "*?[") {
				continue
			}
			abs := expandHome(v, in.Home)
			if abs == "" || recordedPath(in, abs) || !isCredential(abs, false, in.Home) || isCredentialDir(abs, in.Home) {
				continue
			}
			return tilde(abs, in.Home) + " handed to " + e.Name, true
		}
	}
	return "", false
}

// recordedPath reports whether the analyser recorded p as a path the
// command touches.
func recordedPath(in *Input, p string) bool {
	for _, u := range in.Effects.Paths {
		if u.Path == p {
			return true
		}
	}
	return false
}

// isCredentialDir reports the credential directories themselves (~/.ssh,
// ~/.aws): a directory handed over as a value is a location, not a key.
func isCredentialDir(p, home string) bool {
	return oneOf(tilde(p, home), "~/.ssh", "~/.gnupg", "~/.aws", "~/.kube", "~/.azure", "~/.password-store")
}
