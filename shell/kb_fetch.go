package shell

import "strings"

// Code fetched at run time (issue 13 item 7; ATT&CK T1105 Ingress Tool
// Transfer, T1195.002 Supply Chain Compromise, T1059): a package runner
// told to run a package named by a URL or a repository, a pip/npm install
// of a URL or VCS spec (the build or the lifecycle scripts run the
// downloaded code), and a patch tool fed a download. Each is
// TagDownloadExec: the gate cannot see the code the network will supply.
//
// A registry package (npx prettier, uvx ruff, pip install requests) is
// not: its source is the default registry, judged by package_install.

// runnerFlags are the options of package runners whose value names the
// package that provides the command run.
var runnerFlags = []string{"-p", "--package", "--spec", "--from", "--with"}

// checkRunnerFetch tags a runner (npx, npm exec, pipx run, uvx, uv tool
// run, uv run) whose package or command is a URL, a VCS spec or a
// GitHub shorthand.
func checkRunnerFetch(c *Call) {
	for _, n := range runnerFlags {
		if w, ok := c.Flags[n]; ok {
			fetchedSpec(c, w, n)
		}
	}
	if len(c.Positional) > 0 {
		fetchedSpec(c, c.Positional[0], "")
	}
}

// fetchedSpec tags w when it names code from outside the default
// registry. An unknown word is left to the unresolved-command rules.
func fetchedSpec(c *Call, w Word, flag string) {
	v := w.Value
	if !w.Known || !(isRemoteSpec(v) || npmRunnerName(c.Name) && githubShorthand(v)) {
		return
	}
	what := c.Name + " runs " + v
	if flag != "" {
		what = c.Name + " " + flag + " " + v
	}
	c.Tag(TagDownloadExec, what)
	if i := strings.Index(v, "://"); i >= 0 {
		u := v
		if j := strings.IndexByte(u, '+'); j >= 0 && j < i {
			u = u[j+1:]
		}
		c.URL(Word{Value: u, Known: true}, false)
	}
}

func npmRunnerName(n string) bool { return n == "npx" || n == "npm" || n == "yarn" || n == "pnpm" }

// githubShorthand reports whether an npm spec is "user/repo[#ref]", which
// npm fetches from GitHub. Scoped names (@scope/pkg) and paths are not.
func githubShorthand(s string) bool {
	if s == "" || strings.ContainsAny(s[:1], "@./~-") {
		return false
	}
	s, _, _ = strings.Cut(s, "#")
	user, repo, ok := strings.Cut(s, "/")
	return ok && user != "" && repo != "" && !strings.ContainsAny(repo, "/:")
}

// checkInstallFetch tags pip/npm installs of URL or VCS specs as
// downloaded code executed: an sdist or a repository is built by running
// its setup code, a wheel drops .pth files every interpreter start runs,
// an npm tarball runs its install scripts (unless --ignore-scripts).
func checkInstallFetch(c *Call) {
	if _, ok := c.Flag("--ignore-scripts"); ok {
		return
	}
	for _, w := range c.Positional {
		if w.Known && isRemoteSpec(w.Value) {
			c.Tag(TagDownloadExec, c.Name+" installs "+w.Value)
		}
	}
}

// checkPipInstallRun is checkPipInstall for commands that install.
func checkPipInstallRun(c *Call) { checkPipInstall(c); checkInstallFetch(c) }

// checkNpmInstallRun is checkNpmInstall for commands that install.
func checkNpmInstallRun(c *Call) { checkNpmInstall(c); checkInstallFetch(c) }

// checkNpxRun is checkNpx and the fetched-package check.
func checkNpxRun(c *Call) { checkNpx(c); checkRunnerFetch(c) }

// checkPatchFetched tags a patch tool (patch, git apply, git am) that
// applies a download: from a pipe fed by the network, a process
// substitution of a download, or a file the same command downloaded.
// The patch is code written into the tree unseen, and the tools
// interpret it (GNU patch ran ed scripts, CVE-2018-1000156; git apply
// wrote through symlinks the patch created, CVE-2023-23946).
func checkPatchFetched(c *Call) {
	if c.stdin != nil && c.stdin.piped && c.stdin.net {
		c.Tag(TagDownloadExec, c.Name+" applies a patch from "+c.stdin.from)
		return
	}
	ws := c.Positional
	if w, ok := c.Flag("-i", "--input"); ok {
		ws = append(ws[:len(ws):len(ws)], w)
	}
	for _, w := range ws {
		if w.flags&wNet != 0 {
			c.Tag(TagDownloadExec, c.Name+" applies a downloaded patch")
			return
		}
		if p, ok := c.Abs(w); ok && c.an.isDownloaded(p) {
			c.Tag(TagDownloadExec, c.Name+" applies "+p)
			return
		}
	}
}

// checkRunnerWith: uv run runs a local command; only its --with
// packages are fetched.
func checkRunnerWith(c *Call) {
	if w, ok := c.Flags["--with"]; ok {
		fetchedSpec(c, w, "--with")
	}
}
