package shell

import (
	"path"
	"strings"

	"github.com/parallax/parallax/action"
)

// This file records effects: tags, paths, network destinations, flows.

// progName is the program a call concerns ("" without a call).
func progName(c *Call) string {
	if c == nil {
		return ""
	}
	return c.Name
}

// tagf records a tag once.
func (a *analyzer) tagf(c *Call, k TagKind, detail string) {
	t := Tag{Kind: k, Program: progName(c), Detail: detail}
	for _, x := range a.eff.Tags {
		if x == t {
			return
		}
	}
	a.eff.Tags = append(a.eff.Tags, t)
}

func (a *analyzer) tag(c *Call, k TagKind, detail string) { a.tagf(c, k, detail) }

// absPath resolves p against the current directory and home; ok is false
// when p is relative and the directory is unknown.
func (a *analyzer) absPath(cwd, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if p[0] == '~' {
		p = a.tilde(p)
	}
	if p[0] != '/' {
		if cwd == "" {
			return "", false
		}
		p = cwd + "/" + p
	}
	if isClean(p) {
		return p, true
	}
	return path.Clean(p), true
}

// isClean reports whether an absolute path is already as path.Clean
// would make it (no "//", "." or ".." segments, no trailing slash).
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if p == "" || p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		// p[i+1:] starts a segment: it must not be empty, "." or "..".
		j := i + 1
		if j == len(p) || p[j] == '/' {
			return false
		}
		if p[j] == '.' && (j+1 == len(p) || p[j+1] == '/' ||
			p[j+1] == '.' && (j+2 == len(p) || p[j+2] == '/')) {
			return false
		}
	}
	return true
}

// tilde expands a leading ~ or ~user.
func (a *analyzer) tilde(p string) string {
	user, rest, _ := strings.Cut(p[1:], "/")
	var home string
	switch user {
	case "":
		// ~ is $HOME, as the command may have set it.
		if w, _, found := a.getVar("HOME"); found && w.Known && w.Value != "" {
			home = w.Value
		}
		if home == "" {
			return p // unknown home: resolved as opaque
		}
	case "root":
		home = "/root"
	case "+":
		home = a.cwd
	default:
		home = "/home/" + user
	}
	if rest == "" {
		return home
	}
	return home + "/" + rest
}

func (a *analyzer) abs(c *Call, w Word) (string, bool) {
	if !w.Known {
		return "", false
	}
	return a.absPath(callCwd(a, c), w.Value)
}

// callCwd is the directory a call works in.
func callCwd(a *analyzer, c *Call) string {
	if c != nil {
		return c.Cwd
	}
	return a.cwd
}

// use records that a call touches the path named by w.
func (a *analyzer) use(c *Call, w Word, acc action.Access) {
	if w.flags&wPiece != 0 {
		a.piece = true
		defer func() { a.piece = false }()
	}
	if c != nil && c.delSet != nil && acc == action.AccessDelete {
		for _, s := range c.delSet {
			a.useSet(c, s, acc) // find -delete removes its set, not its roots
		}
		return
	}
	if w.proc > 0 || (w.Known && (w.Value == "-" || w.Value == "")) {
		return // stdin/stdout or a process substitution
	}
	meta := metaRead(c, acc)
	if w.Known && !w.Glob {
		if p, ok := a.absPath(callCwd(a, c), w.Value); ok {
			a.usePath(c, p, acc, false)
			return
		}
		a.metaOrOpaque(c, meta, "relative path in unknown directory")
		return
	}
	if w.Known || w.flags&wSet != 0 {
		a.useSet(c, w, acc)
		return
	}
	pat := w.pattern()
	if acc == action.AccessRead && progWord(w) {
		// A program file where PATH finds it: no secret to read.
		a.metaOrOpaque(c, true, "")
		return
	}
	if pat != "" && pat[0] != '*' && pat[0] != '?' && pat[0] != '[' {
		if p, ok := a.absPath(callCwd(a, c), pat); ok {
			a.usePath(c, p, acc, true) // the known prefix stays judged
			a.metaOrOpaque(c, meta, "path partly unresolved: "+p)
			return
		}
	}
	a.metaOrOpaque(c, meta, "unresolved path")
}

// metaOrOpaque tags an operand known only at run time as opaque, unless
// meta: then the call's output is marked as carrying what the program
// printed of it, so that piped or passed into a network program it is
// still an upload of command output, judged as with a known path.
func (a *analyzer) metaOrOpaque(c *Call, meta bool, detail string) {
	if !meta {
		a.tagf(c, TagOpaque, detail)
		return
	}
	a.wsrc = append(a.wsrc, source{kind: SourceCommand, name: progName(c)})
}

// metaRead reports whether acc is a plain read by a program whose output
// reveals no file content (Program.NoContent): an operand known only at
// run time then names a file whose hash or metadata is printed, which is
// not a reason to escalate. Writes, deletes and every other program keep
// such operands opaque.
func metaRead(c *Call, acc action.Access) bool {
	return acc == action.AccessRead && c != nil && c.prog != nil && c.prog.NoContent
}

// progWord reports whether w is exactly where PATH finds a program:
// "$(which NAME)", "$(command -v NAME)", "$(type -P NAME)" or a variable
// holding one, with nothing before or after it (pattern "*/NAME").
func progWord(w Word) bool {
	if w.flags&wProg == 0 || w.Known {
		return false
	}
	name, ok := strings.CutPrefix(w.pattern(), "*/")
	return ok && name != "" && !strings.ContainsAny(name, "/*?[\\")
}

// useSet records a glob or a set word: its pattern is a sound superset of
// the paths it names, even where it starts with a wildcard.
func (a *analyzer) useSet(c *Call, w Word, acc action.Access) {
	pat := w.pattern()
	if i := strings.Index(pat, "**"); i >= 0 && dotDotSeg(pat[i:]) {
		// ".." after "**" climbs out of an unknown depth.
		a.tagf(c, TagOpaque, "unresolved path")
		return
	}
	p, ok := a.absPath(callCwd(a, c), pat)
	if !ok {
		a.metaOrOpaque(c, metaRead(c, acc), "relative path in unknown directory")
		return
	}
	rec := w.flags&wRec != 0 || a.globRec && w.Glob
	if root, ok := setRoot(p); ok && rec && metaRead(c, acc) {
		// Digests and metadata of the files below a directory (find /
		// -exec ls -l {} +) are what find itself prints with -ls: the
		// walk is recorded as find's is, a read of where it starts. A
		// restricted directory named as the root is still judged so.
		a.usePath(c, root, acc, false)
		return
	}
	var sel *Selection
	if rec {
		sel = w.sel.withSearch(grepSearch(c))
	}
	a.usePathSel(c, p, acc, true, rec, sel)
}

// setRoot is the directory a recursive set of everything below it
// ("ROOT/**") starts at; ok is false when ROOT has a wildcard or a name
// narrows the set ("ROOT/**/id_*" aims at names: judged as the set it is).
func setRoot(p string) (string, bool) {
	i := len(p) - len("/**")
	if i < 0 || p[i:] != "/**" || strings.ContainsAny(p[:i], "*?[\\") {
		return "", false
	}
	if i == 0 {
		return "/", true
	}
	return p[:i], true
}

// dotDotSeg reports whether p holds a ".." path segment.
func dotDotSeg(p string) bool {
	for {
		i := strings.Index(p, "..")
		if i < 0 {
			return false
		}
		if (i == 0 || p[i-1] == '/') && (i+2 == len(p) || p[i+2] == '/') {
			return true
		}
		p = p[i+2:]
	}
}

// useMkdir records a directory mkdir creates. A known, literal path is a
// write marked Mkdir (empty directories, see PathUse.Mkdir); anything
// else is recorded as a plain write.
func (a *analyzer) useMkdir(c *Call, w Word) {
	if w.proc > 0 || !w.Known || w.Glob || w.Value == "" || w.Value == "-" {
		a.use(c, w, action.AccessWrite)
		return
	}
	p, ok := a.absPath(callCwd(a, c), w.Value)
	if !ok || p == "/" {
		a.use(c, w, action.AccessWrite)
		return
	}
	a.addPath(c, PathUse{Path: p, Access: action.AccessWrite, Mkdir: true, Program: progName(c)})
}

// usePath records an absolute path.
func (a *analyzer) usePath(c *Call, p string, acc action.Access, glob bool) {
	a.usePathSet(c, p, acc, glob, false)
}

// usePathSet records an absolute path or pattern; rec marks find
// semantics (PathUse.Recursive).
func (a *analyzer) usePathSet(c *Call, p string, acc action.Access, glob, rec bool) {
	a.usePathSel(c, p, acc, glob, rec, nil)
}

// usePathSel is usePathSet with the selection of a recursive set.
func (a *analyzer) usePathSel(c *Call, p string, acc action.Access, glob, rec bool, sel *Selection) {
	if p == "" || p == "/dev/null" || p == "/dev/stdin" || p == "/dev/stdout" ||
		p == "/dev/stderr" || p == "/dev/tty" || strings.HasPrefix(p, "/dev/fd/") {
		return
	}
	u := PathUse{Path: p, Access: acc, Glob: glob, Recursive: rec && glob, Program: progName(c), Split: a.piece}
	if u.Recursive {
		u.Select = sel
	}
	a.addPath(c, u)
}

// addPath records a path use once.
func (a *analyzer) addPath(c *Call, u PathUse) {
	if a.seenPath(u) {
		return
	}
	a.eff.Paths = append(a.eff.Paths, u)
	if p := u.Path; u.Access&action.AccessWrite != 0 {
		if isDevice(p) {
			a.tagf(c, TagDeviceWrite, p)
		}
		if c != nil && c.prog != nil && c.prog.Network {
			a.downloaded = append(a.downloaded, p)
		}
	}
}

// isDevice reports whether p is a block device or raw memory.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	d := p[5:]
	switch d {
	case "mem", "kmem", "port":
		return true
	}
	for _, pre := range [...]string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk/", "mapper/", "md", "dm-", "loop", "sr"} {
		if strings.HasPrefix(d, pre) {
			return true
		}
	}
	return false
}

// isDownloaded reports whether p was written with network data earlier.
func (a *analyzer) isDownloaded(p string) bool {
	for _, d := range a.downloaded {
		if d == p {
			return true
		}
	}
	return false
}

// url records a URL a call talks to.
func (a *analyzer) url(c *Call, w Word, upload bool) {
	s := w.Value
	if !w.Known {
		s = w.pattern()
	}
	d := NetDest{Program: progName(c), URL: s, Upload: upload}
	rest := s
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	d.Host, d.Port = hostPort(rest)
	if strings.ContainsAny(d.Host, "*?[") {
		d.Host = ""
	}
	a.addNet(c, d)
}

// host records a host a call talks to ("user@host", "host:port").
func (a *analyzer) host(c *Call, w Word, port string, upload, listen bool) {
	d := NetDest{Program: progName(c), Port: port, Upload: upload, Listen: listen}
	if w.Known {
		h := w.Value
		if i := strings.LastIndexByte(h, '@'); i >= 0 {
			h = h[i+1:]
		}
		host, p := hostPort(h)
		d.Host = host
		if p != "" && port == "" {
			d.Port = p
		}
	}
	if d.Host == "" && !listen {
		a.tagf(c, TagOpaque, "unresolved host")
	}
	a.addNet(c, d)
}

// hostPort splits "host:port" and "[v6]:port"; a bare IPv6 literal
// stays whole.
func hostPort(s string) (host, port string) {
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			host = s[1:i]
			if strings.HasPrefix(s[i+1:], ":") {
				port = s[i+2:]
			}
			return strings.ToLower(host), port
		}
	}
	if strings.Count(s, ":") == 1 {
		host, port, _ = strings.Cut(s, ":")
		return strings.ToLower(host), port
	}
	return strings.ToLower(s), ""
}

func (a *analyzer) addNet(c *Call, d NetDest) {
	for _, x := range a.eff.Network {
		if x == d {
			return
		}
	}
	a.eff.Network = append(a.eff.Network, d)
}

// addFlow records a flow once.
func (a *analyzer) addFlow(f Flow) {
	for _, x := range a.eff.Flows {
		if x == f {
			return
		}
	}
	a.eff.Flows = append(a.eff.Flows, f)
}

// pathIndexFrom is how many path uses a command records before they are
// indexed: below it a scan is cheaper than a map.
const pathIndexFrom = 16

// seenPath reports whether u was recorded already, and indexes it when
// it was not and the list is long (brace expansions, loops).
func (a *analyzer) seenPath(u PathUse) bool {
	if len(a.eff.Paths) < pathIndexFrom {
		for i := range a.eff.Paths {
			if a.eff.Paths[i] == u {
				return true
			}
		}
		return false
	}
	if len(a.pathIdx) == 0 {
		if a.pathIdx == nil {
			a.pathIdx = make(map[PathUse]struct{}, 2*pathIndexFrom)
		}
		for _, v := range a.eff.Paths {
			a.pathIdx[v] = struct{}{}
		}
	}
	if _, ok := a.pathIdx[u]; ok {
		return true
	}
	a.pathIdx[u] = struct{}{}
	return false
}
