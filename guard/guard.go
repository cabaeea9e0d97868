package guard

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/memo"
	"github.com/parallax/parallax/verdict"
)

// Level is how strongly a path is protected. Levels are ordered: a higher
// level is stricter.
type Level uint8

// Protection levels, from none to no access at all.
const (
	// None: the path is ordinary.
	None Level = iota
	// Tier1: reads are free; writes and deletes need tier 1.
	Tier1
	// Tier2: reads are free; writes and deletes need tier 2.
	Tier2
	// ReadOnly: reads are free; writes and deletes are blocked.
	ReadOnly
	// Protected: system or user configuration; reads are free, writes
	// and deletes are blocked (persistence points).
	Protected
	// Restricted: secrets; no read, no write, no delete.
	Restricted
	// Sealed: agent internals; no access at all.
	Sealed
)

// String names the level.
func (l Level) String() string {
	switch l {
	case None:
		return "none"
	case Tier1:
		return "tier1"
	case Tier2:
		return "tier2"
	case ReadOnly:
		return "read-only"
	case Protected:
		return "protected"
	case Restricted:
		return "restricted"
	case Sealed:
		return "sealed"
	}
	return "unknown"
}

// maxPathLen is the kernel's PATH_MAX: a longer path cannot be opened,
// and refusing it bounds the work per check.
const maxPathLen = 4096

// Stable reason codes. They are a public contract: audit, UI and tests use them.
const (
	RuleRestricted = "guard_restricted"
	RuleProtected  = "guard_protected"
	RuleSealed     = "guard_sealed"
	RuleReadOnly   = "guard_readonly"
	RuleTier       = "guard_tier"
	RuleBadPath    = "guard_bad_path"
	// RuleTree is a recursive operation over a tree that holds protected
	// entries: it escalates rather than blocks (see CheckGlob).
	RuleTree = "guard_tree"
)

// Finding is what the guard says about one path.
type Finding struct {
	Rule     string           // one of the Rule* codes
	Level    Level            // protection level of the offending path
	Path     string           // the offending path as resolved (never file contents)
	Decision verdict.Decision // Block, or Allow with MinTier for Tier1/Tier2 writes
	MinTier  int              // minimum tier the write needs (Tier1/Tier2), else 0
	Reason   string           // one sentence naming the path (home shown as ~) and why
}

// FS is the part of the filesystem the guard reads to resolve symlinks.
// A value that also has ReadDir(name) ([]fs.DirEntry, error) lets
// CheckGlob expand patterns against what exists.
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

// dirReader is the optional FS extension CheckGlob uses.
type dirReader interface {
	ReadDir(name string) ([]fs.DirEntry, error)
}

// osFS is the real operating system.
type osFS struct{}

func (osFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (osFS) Readlink(name string) (string, error)       { return os.Readlink(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

var (
	_ FS        = osFS{}
	_ dirReader = osFS{}
)

// Option configures a Guard.
type Option func(*Guard)

// WithFS replaces the filesystem used for symlink resolution and glob
// expansion (tests). The default is the real OS.
func WithFS(f FS) Option {
	return func(g *Guard) {
		if f != nil {
			g.fs, g.custom = f, true
		}
	}
}

// WithProtected protects more paths against writes and deletes, like the
// agent configurations of the tables (a Claude Code settings file the
// hook was installed into with --settings). Each must be absolute and
// clean; otherwise every check blocks (fail closed).
func WithProtected(paths ...string) Option {
	return func(g *Guard) {
		g.extra = append(g.extra, paths...)
	}
}

// Guard holds the compiled protection tables for one workspace and home.
// It keeps no state across calls and is safe for concurrent use.
type Guard struct {
	workspace string // cleaned absolute workspace root
	home      string // cleaned absolute home
	fs        FS
	broken    string         // non-empty: every check blocks with this reason
	custom    bool           // fs was given WithFS: file contents are read through it
	hidden    bool           // WithInternalsHidden: the executor hides .parallax
	ids       *identityIndex // identities of the restricted files (identity.go), shared by memos

	prefixes  map[string]*entry // folded absolute path → entry
	ancestors map[string]*entry // folded strict ancestor of an entry → worst entry below
	globs     []globEntry       // entries split in segments, for CheckGlob
	globKeys  []string          // globs[i]'s segments joined by "/", ascending
	globAt    map[string]int    // a key of globKeys → its index

	// cfgDirs are the directories that hold agent configuration (see
	// catGateCfg) below the home or the workspace, such as .claude:
	// creating or replacing one whole (mkdir, mv dir .claude, ln -s)
	// would put a configuration there that no file check saw.
	cfgDirs map[string]*entry
	extra   []string // protected paths added with WithProtected

	// statics remembers what the tables alone say of a glob (globStatic
	// over its own segments): it depends on nothing a decision can
	// change. Shared by every memo of this guard.
	statics *memo.Table[worst]

	// owner is the memo holding this guard, on a guard Memo returned
	// (see Release); nil otherwise.
	owner *memoGuard
}

// New compiles the tables for a workspace and a home directory, both
// absolute. A Guard built from a relative or empty workspace or home
// blocks every path (fail closed).
func New(workspace, home string, opts ...Option) *Guard {
	g := &Guard{fs: defaultFS()}
	for _, o := range opts {
		o(g)
	}
	switch {
	case !isAbs(workspace) || action.CheckPathChars(workspace) != nil:
		g.broken = "the guard has no absolute workspace path"
	case !isAbs(home) || action.CheckPathChars(home) != nil:
		g.broken = "the guard has no absolute home path"
	}
	for _, p := range g.extra {
		if !isAbs(p) || action.CheckPathChars(p) != nil || path.Clean(p) != p || p == "/" {
			g.broken = "a protected path it was given is not a clean absolute path"
		}
	}
	if g.broken != "" {
		return g
	}
	g.workspace = path.Clean(workspace)
	g.home = path.Clean(home)
	g.compile()
	g.statics = memo.New[worst](0)
	g.ids = &identityIndex{}
	return g
}

// Spec returns what the guard was built from, so that another process
// (a confined helper) can build the same guard: the workspace, the home
// and the paths added with WithProtected. A broken guard returns empty
// paths, from which New builds a broken one again.
func (g *Guard) Spec() (workspace, home string, protected []string) {
	if g.broken != "" {
		return "", "", nil
	}
	return g.workspace, g.home, append([]string(nil), g.extra...)
}

// Check says whether acc on path is restricted. The path must be absolute
// ("~" and "~/" expand to the home). ok is false when nothing applies:
// the access is free as far as the guard is concerned. An access set of
// zero is treated as read+write+delete.
func (g *Guard) Check(p string, acc action.Access) (Finding, bool) {
	return g.current().check(p, acc)
}

func (g *Guard) check(p string, acc action.Access) (Finding, bool) {
	return g.checkAs(p, acc, false)
}

// CheckMkdir says whether creating the directory p, empty, is restricted
// (mkdir, create_directory). It is Check(p, write) but for one rule: an
// agent configuration directory (.claude, .vscode, ~/.config, …) may be
// created where nothing exists yet, since an empty directory puts no
// configuration in place. Where p already exists as anything but a
// directory (a symlink above all), cannot be inspected, or is spelled
// with "..", the whole-directory rule applies as to any write.
func (g *Guard) CheckMkdir(p string) (Finding, bool) {
	return g.current().checkAs(p, action.AccessWrite, true)
}

// checkAs is check; mkdir asks for the empty-directory exception of
// CheckMkdir.
func (g *Guard) checkAs(p string, acc action.Access, mkdir bool) (Finding, bool) {
	acc = normAccess(acc)
	raw, clean, bad := g.prepare(p, acc)
	if bad.Rule != "" {
		return bad, true
	}
	whole := !mkdir || !g.emptyDirFree(raw, clean)
	// Resolved first: on a tie the finding names the resolved path.
	var w worst
	res, resolved := g.classifyResolved(&w, clean, clean, acc, whole)
	if raw != clean && hasDotDot(raw) {
		// The kernel applies ".." after following the link before it;
		// a shell command sees that path, not the lexically cleaned one.
		_, _ = g.classifyResolved(&w, clean, strings.TrimRight(raw, "/"), acc, whole)
	}
	g.classify(&w, clean, clean, acc, whole)
	g.classifyDecoded(&w, clean, acc, whole)
	if resolved {
		g.checkIdentity(&w, clean, res, acc, whole)
	}
	if !whole && w.ok && w.f.Decision == verdict.Allow {
		// An empty directory puts no content in place: the tiers review
		// content (AGENTS.md, .claude/skills), judged file by file later.
		return Finding{}, false
	}
	return w.f, w.ok
}

// classifyDecoded judges the percent-decoded spelling of clean as well:
// a tool that decodes it reaches that path (action.PercentDecoded). A
// NUL ends the path there, as C strings do (file.txt%00.png); a decoded
// spelling with another control character names no file the tables
// know, and payload fields refuse it before the guard.
func (g *Guard) classifyDecoded(w *worst, clean string, acc action.Access, whole bool) {
	d, ok := action.PercentDecoded(clean)
	if !ok {
		return
	}
	if i := strings.IndexByte(d, 0); i >= 0 {
		d = d[:i]
	}
	if action.CheckPathChars(d) != nil || !isAbs(d) {
		return
	}
	g.classify(w, clean, path.Clean(d), acc, whole)
}

// emptyDirFree reports whether mkdir of clean (as written: raw) creates
// an empty directory or finds one already there: nothing exists at the
// path, or a directory does (mkdir -p leaves it alone). A symlink, any
// other file, an error other than "does not exist", or a raw spelling
// with ".." (the kernel may resolve it elsewhere) is not free.
func (g *Guard) emptyDirFree(raw, clean string) bool {
	if strings.TrimRight(raw, "/") != clean || clean == "/" {
		return false
	}
	fi, err := g.fs.Lstat(clean)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return fi.IsDir()
}

// classifyResolved resolves p and classifies the result when it differs
// from orig; it returns the resolution (ok false: it failed).
func (g *Guard) classifyResolved(w *worst, orig, p string, acc action.Access, whole bool) (string, bool) {
	res, err := g.resolve(p)
	switch {
	case err != nil:
		w.add(g.badPath(orig, acc, "it cannot be resolved ("+err.Error()+")"), true)
		return "", false
	case res != orig:
		g.classify(w, orig, res, acc, whole)
	}
	return res, true
}

func hasDotDot(p string) bool {
	return strings.Contains(p, "/../") || strings.HasSuffix(p, "/..")
}

// prepare validates a path and expands "~"; it returns the path as
// written and cleaned. A non-empty bad.Rule is the finding.
func (g *Guard) prepare(p string, acc action.Access) (raw, clean string, bad Finding) {
	if g.broken != "" {
		return "", "", Finding{Rule: RuleBadPath, Level: Restricted, Path: quote(p),
			Decision: verdict.Block, Reason: accessVerb(acc) + " " + quote(p) + " is blocked: " + g.broken}
	}
	if err := action.CheckPathChars(p); err != nil {
		return "", "", g.badPath(p, acc, err.Error())
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = g.home + p[1:]
	}
	if len(p) > maxPathLen {
		return "", "", g.badPath(p[:64]+"…", acc, "it is longer than "+strconv.Itoa(maxPathLen)+" bytes")
	}
	if !isAbs(p) {
		return "", "", g.badPath(p, acc, "it is not absolute")
	}
	return p, path.Clean(p), Finding{}
}

func (g *Guard) badPath(p string, acc action.Access, why string) Finding {
	return Finding{Rule: RuleBadPath, Level: Restricted, Path: quote(p), Decision: verdict.Block,
		Reason: accessVerb(acc) + " " + quote(g.show(p)) + " is blocked: " + why}
}

func isAbs(p string) bool { return strings.HasPrefix(p, "/") }

// normAccess treats an empty access set as every access (fail closed).
func normAccess(acc action.Access) action.Access {
	acc &= action.AccessRead | action.AccessWrite | action.AccessDelete
	if acc == 0 {
		return action.AccessRead | action.AccessWrite | action.AccessDelete
	}
	return acc
}

// show renders p with the home as "~".
func (g *Guard) show(p string) string {
	if g.home == "" || g.home == "/" {
		return p
	}
	if p == g.home {
		return "~"
	}
	if strings.HasPrefix(p, g.home) && p[len(g.home)] == '/' {
		return "~" + p[len(g.home):]
	}
	return p
}

// quote keeps odd bytes out of reasons (they are already refused, but a
// reason must never carry control characters).
func quote(p string) string {
	if action.CheckPathChars(p) == nil {
		return p
	}
	return strings.Trim(strconv.Quote(p), `"`)
}
