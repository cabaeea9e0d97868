package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/egress"
	"github.com/parallax/parallax/internal/workspace"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shell"
)

// CommandSandboxConfig is how each executed command's kernel sandbox is
// derived from what the gate analysed.
type CommandSandboxConfig struct {
	// Workspace and Home are absolute, as the gate was built.
	Workspace, Home string
	// Self executes this binary (sandbox.Self: the engine's own open
	// executable): the sandbox is applied by a re-executed copy of it
	// (sandbox.ExecArg) that then execs the command.
	Self string
	// Caches are the shared toolchain caches (absolute). A command sees
	// each through an overlay whose writable layer is the workspace's own
	// (CacheRoot): it adds to a cache, never changes what is there.
	// Missing caches are created, so a fresh home builds.
	Caches []string
	// CacheRoot holds the per-workspace cache layers ("" = the
	// workspace's .parallax/caches).
	CacheRoot string
	// Unreadable are the paths no command may read (guard.Unreadable).
	Unreadable []string
	// TempRoot holds each command's private temp directory ("" =
	// os.TempDir()); inside the sandbox it is /tmp and /var/tmp.
	TempRoot string
	// Limits bound each command's resources (zero fields: the defaults).
	Limits sandbox.Limits
	// Egress, when set, serves a networked command's way out on the
	// listeners its wrapper hands over: the proxy on the first (the hosts
	// the analysis named), and the relay of forward[i] on the one after
	// it, handing seen each connection as it ends. It returns when they
	// are closed and every connection was handed over. Without it, a
	// command whose analysis has network effects has no network at all.
	Egress func(hosts []string, lns []net.Listener, forward []netip.AddrPort, seen func(egress.Conn))
	// Registries are the hosts Egress allows every networked command
	// (the workspace's package registries), for what the model is told.
	Registries []string
	// Forward are the workspace's loopback registries (literal IP:port):
	// inside a networked command's namespace each is relayed to the same
	// address on the host, so that a program that never uses a proxy for
	// loopback (Go's, npm's) reaches a local mirror.
	Forward []netip.AddrPort

	// excludes remembers where the user's git excludes live (set by
	// ready; nil: asked of git for each command).
	excludes *gitExcludes
}

// SandboxHook is the per-command hook of ToolsConfig: the wrapper that
// puts one command in its sandbox, and what to do once it ended.
// done takes the sandbox down and returns how it ended: what the model
// must be told (a limit reached, a host-trusted file the command created
// and the engine moved aside), the command's grants and what it did
// with them outside the workspace.
type SandboxHook func(act *action.Action) (wrap func(*exec.Cmd) error, done func() SandboxEnd, err error)

// cacheRoot is where a workspace keeps its layers of the shared caches.
func cacheRoot(ws string) string { return filepath.Join(ws, ".parallax", "caches") }

// proxyPort is where, inside an isolated command's own network
// namespace, its egress proxy listens.
const proxyPort = 3128

// NewCommandSandbox returns the hook that gives each command a world of
// its own, derived from its analysis (sandbox.CommandSpec.Isolate): its
// own PID namespace (everything it starts dies with it), network
// namespace (loopback only; the egress proxy when the analysis has
// network), /tmp, /var/tmp and /dev/shm; write access to the workspace
// and to exactly the files the analysis names outside it; the caches
// add-only; every workspace's .parallax, ~/.parallax and /run hidden;
// the secret files masked; the workspace's host-trusted files
// read-only; resource limits. What the gate believes a command does is
// what the kernel lets it do.
//
// Isolation needs user namespaces. They are probed once, here, by
// running the whole wrapper in check mode; where the kernel refuses them
// the sandbox is not built and the engine does not start with it on,
// with the reason and the sysctls to look at.
func NewCommandSandbox(cfg CommandSandboxConfig) (SandboxHook, error) {
	if err := cfg.ready(context.Background()); err != nil {
		return nil, err
	}
	return func(act *action.Action) (func(*exec.Cmd) error, func() SandboxEnd, error) {
		code := action.ShellCode(act)
		if code == "" {
			return nil, nil, errors.New("not a shell command")
		}
		plan, err := cfg.plan(code, false)
		if err != nil {
			return nil, nil, err
		}
		return cfg.provision(plan, nil)
	}, nil
}

// ready checks that the kernel can build this sandbox (Landlock,
// seccomp, and the user namespaces that hide .parallax, by running the
// wrapper in check mode) and fills in its defaults.
func (cfg *CommandSandboxConfig) ready(ctx context.Context) error {
	if !filepath.IsAbs(cfg.Workspace) || !filepath.IsAbs(cfg.Home) || !filepath.IsAbs(cfg.Self) {
		return errors.New("command sandbox: workspace, home and self must be absolute")
	}
	if err := sandbox.Support().Usable(); err != nil {
		return fmt.Errorf("command sandbox: %w", err)
	}
	if err := sandbox.ProbeHide(ctx, cfg.Self); err != nil {
		return fmt.Errorf("command sandbox: cannot hide the workspace's .parallax from commands: %w", err)
	}
	if cfg.CacheRoot == "" {
		cfg.CacheRoot = cacheRoot(cfg.Workspace)
	}
	if cfg.excludes == nil {
		cfg.excludes = &gitExcludes{}
	}
	return nil
}

// provision makes what one sandboxed run needs beside its plan (the
// private temp directory, the cgroups as root, the egress proxy when it
// has network) and returns the wrapper that puts a command in it, and
// what to do once it ended (it returns what the model must be told).
// inTemp, when set, is handed the private temp directory (the sandbox's
// /tmp) once it exists, to put something there the run needs.
func (cfg CommandSandboxConfig) provision(plan *commandPlan, inTemp func(tmp string) error) (func(*exec.Cmd) error, func() SandboxEnd, error) {
	var err error
	spec := plan.spec
	tmp, err := os.MkdirTemp(cfg.TempRoot, "parallax-cmd-")
	if err != nil {
		plan.undo()
		return nil, nil, fmt.Errorf("private temp directory: %w", err)
	}
	spec.TempDir = tmp
	var inWS []string
	for _, m := range spec.MaskFiles {
		if within(m, cfg.Workspace) {
			inWS = append(inWS, m)
		}
	}
	gitEnv, err := writeGitExclude(tmp, "/tmp", cfg.excludes, cfg.Home, inWS) // tmp's root is the sandbox's /tmp
	if err != nil {
		plan.undo()
		_ = os.RemoveAll(tmp)
		return nil, nil, fmt.Errorf("private temp directory: %w", err)
	}
	if inTemp != nil {
		if err := inTemp(tmp); err != nil {
			plan.undo()
			_ = os.RemoveAll(tmp)
			return nil, nil, err
		}
	}
	// RLIMIT_NPROC does not bind uid 0 and RLIMIT_DATA no shared
	// mapping: as root, the command's cgroups do.
	var groups *sandbox.CommandCgroup
	if os.Geteuid() == 0 {
		if groups, err = sandbox.NewCommandCgroup(spec.Limits); err == nil {
			spec.Cgroups = groups.Procs()
		}
	}
	var proxy *proxyHandoff
	trusted := cfg.trustedBefore()
	stamps := grantStamps(spec)
	conns := &connLog{}
	done := func() SandboxEnd {
		proxy.close() // every connection was handed to conns once it returns
		end := SandboxEnd{Grants: grantsOf(plan, cfg.Registries), Changed: changedSince(stamps)}
		end.Conns, end.Dropped = conns.take()
		plan.undo()
		_ = os.RemoveAll(tmp)
		notes := groups.Notes()
		// The command's last tasks may still be exiting (its PID
		// namespace was just torn down): the groups go when they are
		// empty, without holding the result back.
		go groups.Remove()
		end.Notes = append(notes, cfg.quarantine(trusted)...)
		return end
	}
	wrap := func(c *exec.Cmd) error {
		if spec.Network && cfg.Egress != nil {
			spec.Proxy = proxyPort
			var fwd []netip.AddrPort
			for _, f := range cfg.Forward {
				if f.Addr().IsLoopback() && !(f.Port() == proxyPort && f.Addr().Is4()) { // the spec refuses anything else
					fwd = append(fwd, f)
					spec.Forward = append(spec.Forward, f.String())
				}
			}
			serve := func(lns []net.Listener) { cfg.Egress(plan.hosts, lns, fwd, conns.add) }
			if proxy, err = newProxyHandoff(1+len(fwd), serve); err != nil {
				return err
			}
			c.ExtraFiles = []*os.File{proxy.child}
		}
		argv := append([]string{c.Path}, c.Args[1:]...)
		sc, err := spec.Command(context.Background(), cfg.Self, argv) // only its path and arguments are taken: the runner owns the process
		if err != nil {
			return err
		}
		c.Path, c.Args = sc.Path, sc.Args
		spec.SetSysProcAttr(c) // the runner adds its process group to these
		c.Env = append(withoutKeys(c.Env, "TMPDIR"), "TMPDIR="+spec.TempDirInside())
		if gitEnv != nil {
			c.Env = append(withoutKeys(c.Env, gitConfigVars...), gitEnv...)
		}
		if spec.Proxy != 0 {
			c.Env = append(withoutKeys(c.Env, proxyVars...), proxyEnv(spec.Proxy)...)
			proxy.start()
		}
		return nil
	}
	return wrap, done, nil
}

// commandPlan is one command's sandbox and what the engine did on disk
// to grant it exactly.
type commandPlan struct {
	spec        sandbox.CommandSpec
	hosts       []string // the hosts the analysis named
	created     []createdFile
	wouldCreate []string // a dry plan's empty files for exact grants
}

// createdFile is an empty file the engine created so that a write the
// verdict named could be granted as that one file.
type createdFile struct {
	path string
	mod  time.Time
}

// undo removes the files created for the grant that the command left
// empty and untouched.
func (p *commandPlan) undo() {
	for _, c := range p.created {
		if st, err := os.Lstat(c.path); err == nil && st.Mode().IsRegular() && st.Size() == 0 && st.ModTime().Equal(c.mod) {
			_ = os.Remove(c.path)
		}
	}
}

// plan derives a command's sandbox from its analysis.
// With dry, nothing is created on disk (the empty files of exact grants,
// missing caches): the plan says what would be.
func (cfg CommandSandboxConfig) plan(code string, dry bool) (*commandPlan, error) {
	eff := shell.Analyze(code, shell.Options{Cwd: cfg.Workspace, Home: cfg.Home})
	s := sandbox.CommandSpec{Workspace: cfg.Workspace, Home: cfg.Home, Isolate: true, Network: networked(eff),
		Limits: cfg.Limits}
	p := &commandPlan{}
	for _, n := range eff.Network {
		if n.Host != "" && !n.Listen {
			p.hosts = append(p.hosts, n.Host)
		}
	}
	hidden := cfg.hidden()
	for _, u := range cfg.Unreadable {
		st, err := os.Lstat(u)
		switch {
		case err != nil:
		case st.IsDir():
			hidden = append(hidden, u)
		case st.Mode().IsRegular():
			s.MaskFiles = append(s.MaskFiles, u)
		}
	}
	s.Hide = dedupe(hidden)
	masked, nestedRO, err := secretFiles(cfg.Workspace, cfg.Home)
	if err != nil {
		return nil, err
	}
	s.MaskFiles = dedupe(append(s.MaskFiles, masked...))
	s.ReadOnly = append(s.ReadOnly, nestedRO...)
	for _, rel := range guard.HostTrusted() {
		s.ReadOnly = append(s.ReadOnly, filepath.Join(cfg.Workspace, rel))
	}
	// The binary the engine runs from may sit in the workspace (a
	// developer's build): the engine never runs it again by path, and no
	// command replaces it for the user either.
	exe, _ := filepath.EvalSymlinks("/proc/self/exe")
	if exe != "" && within(exe, cfg.Workspace) {
		s.ReadOnly = append(s.ReadOnly, exe)
	}
	for _, c := range cfg.Caches {
		o, err := cfg.overlay(c, dry)
		if err != nil {
			return nil, err
		}
		s.Overlays = append(s.Overlays, o)
	}
	seen := map[string]bool{}
	for _, u := range eff.Paths {
		if u.Glob || u.Access&(action.AccessWrite|action.AccessDelete) == 0 || within(u.Path, cfg.Workspace) || seen[u.Path] {
			continue
		}
		seen[u.Path] = true
		if err := cfg.grant(&s, p, u, hidden, exe, dry); err != nil {
			p.undo()
			return nil, err
		}
	}
	// A host-trusted path that is a link (.claude -> dotfiles/claude) is
	// made read-only where it leads.
	for _, r := range s.ReadOnly {
		if st, err := os.Lstat(r); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			if t, err := filepath.EvalSymlinks(r); err == nil {
				s.ReadOnly = append(s.ReadOnly, t)
			}
		}
	}
	p.spec = resolved(s)
	return p, nil
}

// resolved is the spec with every path's directories resolved: the
// wrapper opens each path refusing symlinks on the way, so a home or
// workspace reached through a link (/home -> /var/home) must be named by
// its real path, or its masks would be skipped or refused. The last
// component is kept as it is: a link there is never followed.
func resolved(s sandbox.CommandSpec) sandbox.CommandSpec {
	real := func(p string) string {
		if p == "" || p == "/" {
			return p
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return p // missing: the wrapper skips or refuses it
		}
		return filepath.Join(dir, filepath.Base(p))
	}
	all := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = real(p)
		}
		return out
	}
	whole := func(p string) string { // the workspace and home themselves
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	s.Workspace, s.Home = whole(s.Workspace), whole(s.Home)
	s.Hide, s.MaskFiles, s.ReadOnly = all(s.Hide), all(s.MaskFiles), all(s.ReadOnly)
	s.WriteFiles, s.MakeDirs, s.RemoveTrees = all(s.WriteFiles), all(s.MakeDirs), all(s.RemoveTrees)
	for i, o := range s.Overlays {
		s.Overlays[i] = sandbox.Overlay{Lower: real(o.Lower), Upper: real(o.Upper), Work: real(o.Work)}
	}
	return s
}

// grant adds the exact grant for a write or delete outside the
// workspace: the existing file itself; for a file that does not exist
// yet, an empty one the engine creates and grants (also in a directory
// holding the workspace, such as the home: the grant is the one file);
// directory creation below an existing directory; the removal of an
// existing tree's content. Never the root, a directory holding the
// workspace (for directory creation or removal), the
// private temp trees (a command has its own), the engine's state or its
// executable; a link is never granted. A write that cannot be granted
// exactly fails in the command, where the model reads why.
func (cfg CommandSandboxConfig) grant(s *sandbox.CommandSpec, p *commandPlan, u shell.PathUse, hidden []string, exe string, dry bool) error {
	path := u.Path
	for _, t := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if within(path, t) && !within(path, cfg.Workspace) && !within(path, cfg.Home) {
			return nil // the command's own
		}
	}
	for _, h := range append(hidden, filepath.Join(cfg.Home, ".parallax")) {
		if within(path, h) {
			return nil
		}
	}
	if path == "/" || within(cfg.Workspace, path) || within(cfg.Home, path) && u.Access&action.AccessDelete != 0 {
		return nil
	}
	if exe != "" && (path == exe || path == filepath.Dir(exe)) {
		return nil // the engine's own executable and its directory
	}
	st, err := os.Lstat(path)
	switch {
	case err == nil && st.Mode().IsRegular():
		if u.Access&action.AccessWrite != 0 {
			s.WriteFiles = append(s.WriteFiles, path)
		}
	case err == nil && st.IsDir():
		if u.Access&action.AccessDelete != 0 {
			s.RemoveTrees = append(s.RemoveTrees, path)
		}
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		if dst, err := os.Lstat(dir); err != nil || !dst.IsDir() || dir == "/" {
			return nil
		}
		if u.Mkdir {
			// Directory creation covers the whole directory: never one
			// holding the workspace (the home, for most).
			if !within(cfg.Workspace, dir) {
				s.MakeDirs = append(s.MakeDirs, dir)
			}
			return nil
		}
		if u.Access&action.AccessWrite == 0 {
			return nil
		}
		if dry {
			p.wouldCreate = append(p.wouldCreate, path)
			s.WriteFiles = append(s.WriteFiles, path)
			return nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil // not grantable exactly: the write fails in the command
		}
		st, err := f.Stat()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return fmt.Errorf("create %s for its exact grant: %w", path, err)
		}
		p.created = append(p.created, createdFile{path: path, mod: st.ModTime()})
		s.WriteFiles = append(s.WriteFiles, path)
	}
	return nil
}

// hidden lists the directories no command may see: every registered
// workspace's .parallax (this one's included), ~/.parallax, and the
// user's runtime directory when it lies outside /run.
func (cfg CommandSandboxConfig) hidden() []string {
	out := []string{filepath.Join(cfg.Workspace, ".parallax"), filepath.Join(cfg.Home, ".parallax")}
	roots, _ := workspace.Registered(cfg.Home) // unreadable: only the known ones are hidden
	for _, r := range roots {
		out = append(out, filepath.Join(r, ".parallax"))
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) && !within(x, "/run") {
		out = append(out, filepath.Clean(x))
	}
	var dirs []string
	for _, d := range out {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// overlay prepares one cache's overlay: the shared cache (created when
// missing) and the workspace's writable layer over it.
func (cfg CommandSandboxConfig) overlay(lower string, dry bool) (sandbox.Overlay, error) {
	name := strings.NewReplacer("/", "_", ".", "").Replace(strings.TrimPrefix(lower, cfg.Home+"/"))
	root := realPath(cfg.CacheRoot)
	o := sandbox.Overlay{Lower: realPath(lower), Upper: filepath.Join(root, name, "upper"),
		Work: filepath.Join(root, name, "work")}
	if dry {
		return o, nil
	}
	if err := sandbox.PrepareOverlays([]sandbox.Overlay{o}); err != nil {
		return o, fmt.Errorf("cache overlay: %w", err)
	}
	return o, nil
}

// maxSecretWalk bounds the entries secretFiles looks at in the
// workspace, and secretDepth how many levels it enters.
const (
	maxSecretWalk = 20000
	secretDepth   = 6
)

// secretSkip are directories not searched for secret files.
var secretSkip = map[string]bool{".git": true, "node_modules": true, ".parallax": true, "vendor": true}

// secretFiles lists what no command may open among the files it can
// reach: files named like secrets (the guard's name rules) and pathname
// Unix sockets (an agent's, a daemon's: a command that may connect to
// one speaks for the user), in the home (three levels deep) and in the
// workspace (its dependency trees aside). It also lists the host-trusted
// paths of the projects nested in the workspace (a repository's
// .git/config and hooks, a .claude/ below the root), which the command
// may read but not change.
//
// Both walks go level by level, so a large tree (a cache of 20,000
// files) cannot use up the budget before a shallower name is seen: the
// first levels (the home's first, the workspace's first two) are read
// whole, and a directory too large to read whole there is an error (the
// command is refused, not run with a secret unseen); deeper levels stop
// at the budget.
func secretFiles(ws, home string) (masked, readOnly []string, err error) {
	trusted := map[string]bool{} // the host-trusted names of one component: .claude, .envrc, …
	for _, t := range guard.HostTrusted() {
		if !strings.Contains(t, "/") {
			trusted[t] = true
		}
	}
	visit := func(root string, nested bool) func(p string, d fs.DirEntry) {
		return func(p string, d fs.DirEntry) {
			if nested && filepath.Dir(p) != root { // the root's own are guard.HostTrusted
				if d.IsDir() && d.Name() == ".git" {
					for _, sub := range []string{"config", "hooks", "info"} {
						readOnly = append(readOnly, filepath.Join(p, sub))
					}
				}
				if trusted[d.Name()] {
					readOnly = append(readOnly, p)
				}
			}
			switch {
			case d.Type()&fs.ModeSocket != 0 || d.Type().IsRegular() && guard.SecretName(d.Name()):
				masked = append(masked, p)
			case d.Type()&fs.ModeSymlink != 0 && guard.SecretName(d.Name()):
				// A link named like a secret (.env -> ../shared/env): its
				// target is what a read reaches, so the target is masked.
				if t, err := filepath.EvalSymlinks(p); err == nil {
					if st, err := os.Stat(t); err == nil && st.Mode().IsRegular() {
						masked = append(masked, t)
					}
				}
			}
		}
	}
	if err := walkLevels(home, homeDepth, 1, maxHomeWalk, homeSkip, visit(home, false)); err != nil {
		return nil, nil, err
	}
	if err := walkLevels(ws, secretDepth, 2, maxSecretWalk, secretSkip, visit(ws, true)); err != nil {
		return nil, nil, err
	}
	return masked, readOnly, nil
}

// maxWholeLevel bounds the entries of the levels a walk reads whole.
const maxWholeLevel = 200000

// walkLevels visits the entries below root breadth first, down to depth
// levels (1: root's own entries), entering no directory named in skip
// and following no link. Levels up to whole are read completely (more
// than maxWholeLevel entries is an error); deeper ones stop once budget
// entries were visited.
func walkLevels(root string, depth, whole, budget int, skip map[string]bool, visit func(string, fs.DirEntry)) error {
	level := []string{root}
	seen := 0
	for l := 1; l <= depth && len(level) > 0; l++ {
		var next []string
		for _, dir := range level {
			ents, err := os.ReadDir(dir)
			if err != nil {
				continue // unreadable or gone: nothing the command can reach through it either
			}
			for _, e := range ents {
				seen++
				if l <= whole && seen > maxWholeLevel {
					return fmt.Errorf("command sandbox: more than %d entries in the first %d levels of %s: "+
						"its secret files cannot all be found, so the command is not run", maxWholeLevel, whole, root)
				}
				if l > whole && seen > budget {
					return nil
				}
				p := filepath.Join(dir, e.Name())
				visit(p, e)
				if e.IsDir() && !skip[e.Name()] {
					next = append(next, p)
				}
			}
		}
		level = next
	}
	return nil
}

// The walks' bounds, and what they do not enter.
const (
	homeDepth   = 3
	maxHomeWalk = 20000
)

var homeSkip = map[string]bool{"go": true, "node_modules": true, ".parallax": true, ".npm": true, ".rustup": true,
	".cargo": true}

// networked reports whether the analysis found network effects: a
// destination, or a program that talks to the network by its nature
// (npm install, pip download, cargo build) whatever its arguments name.
func networked(eff *shell.Effects) bool {
	if len(eff.Network) > 0 {
		return true
	}
	for _, x := range eff.Execs {
		if x.Name != "" && shell.Networked(x.Name, x.Args) {
			return true
		}
	}
	return false
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, p := range in {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// proxyVars are the variables through which programs find a proxy.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
	"NO_PROXY", "no_proxy"}

// proxyEnv points every program of the command at its egress proxy, for
// loopback too: a registry reached through the proxy has its requests
// read by DLP, where the relay of a loopback registry (for programs that
// never proxy loopback) only copies bytes.
func proxyEnv(port int) []string {
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	var out []string
	for _, v := range proxyVars[:6] {
		out = append(out, v+"="+u)
	}
	return out
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func withoutKeys(env []string, keys ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(keys, name) {
			out = append(out, kv)
		}
	}
	return out
}

// trustedState is which of the workspace's host-trusted paths existed
// before a command, and whether it had a .git.
type trustedState struct {
	existed map[string]bool
	git     bool
}

func (cfg CommandSandboxConfig) trustedBefore() trustedState {
	st := trustedState{existed: map[string]bool{}}
	for _, rel := range guard.HostTrusted() {
		if _, err := os.Lstat(filepath.Join(cfg.Workspace, rel)); err == nil {
			st.existed[rel] = true
		}
	}
	_, err := os.Lstat(filepath.Join(cfg.Workspace, ".git"))
	st.git = err == nil
	return st
}

// quarantine moves aside the host-trusted paths a command created (the
// existing ones were read-only to it): a .claude/settings.json, .envrc
// or hook the user's own tools would obey or run next. In a repository
// the command created itself (git init), only what runs code is moved:
// hooks other than git's samples, and a config that names a program.
// What was moved goes to .parallax/quarantine/, never deleted.
func (cfg CommandSandboxConfig) quarantine(before trustedState) []string {
	var moved []string
	dest := filepath.Join(cfg.Workspace, ".parallax", "quarantine", time.Now().UTC().Format("20060102T150405.000000000Z"))
	move := func(rel string) {
		src := filepath.Join(cfg.Workspace, rel)
		dst := filepath.Join(dest, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err == nil {
			if err := os.Rename(src, dst); err == nil {
				moved = append(moved, rel)
				return
			}
		}
		// Not movable: remove it rather than leave it for the user's tools.
		if os.RemoveAll(src) == nil {
			moved = append(moved, rel+" (removed)")
		}
	}
	for _, rel := range guard.HostTrusted() {
		if before.existed[rel] {
			continue
		}
		p := filepath.Join(cfg.Workspace, rel)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		switch {
		case !before.git && rel == ".git/hooks":
			ents, _ := os.ReadDir(p)
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".sample") {
					move(filepath.Join(rel, e.Name()))
				}
			}
		case !before.git && rel == ".git/config":
			if gitConfigRunsCode(p) {
				move(rel)
			}
		case !before.git && strings.HasPrefix(rel, ".git/"):
		default:
			move(rel)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	return []string{"moved aside what the command created among the files the user's own tools obey (" +
		strings.Join(moved, ", ") + "): commands cannot create them; propose the change with write_file"}
}

// realPath resolves the links of p's longest existing ancestor and keeps
// the rest: the real path of something that may not exist yet.
func realPath(p string) string {
	rest := ""
	for q := p; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		if q == filepath.Dir(q) {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}
