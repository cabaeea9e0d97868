//go:build linux

package files

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// maxSymlinkHops bounds symlink resolution, as the kernel's MAXSYMLINKS.
const maxSymlinkHops = 40

// Ident is the identity of a file system object: device, inode and type.
type Ident struct {
	Dev, Ino uint64
	Type     fs.FileMode // fs.ModeDir, fs.ModeSymlink, … ; 0 for a regular file
}

// String renders the type in words, for messages.
func (id Ident) String() string { return typeName(id.Type) }

// PathPlan is one payload path as the gate decided on it.
type PathPlan struct {
	Field    string // payload field, e.g. "source"
	Path     string // the path as the action names it (normalised)
	Resolved string // absolute, symlinks resolved through the deepest existing ancestor
	// FollowLast says whether a symlink in the last place was followed
	// (read, write, list) or is the object itself (delete, move source).
	FollowLast bool
	// Chain is the identity of "/" and of every existing component of
	// Resolved, in order; shorter than the components when the path (or
	// an ancestor) does not exist yet.
	Chain []Ident
}

// Exists reports whether the resolved path existed at decision time.
func (pp *PathPlan) Exists() bool { return len(pp.Chain) == len(components(pp.Resolved))+1 }

// Last returns the identity of the resolved path (valid when Exists).
func (pp *PathPlan) Last() Ident { return pp.Chain[len(pp.Chain)-1] }

// Plan is the file system state the gate decided on: every path of the
// action resolved, with the identity of what exists along it.
type Plan struct {
	Type  action.Type
	Paths []PathPlan
}

// ActionType implements tools.Plan.
func (p *Plan) ActionType() action.Type { return p.Type }

var _ tools.Plan = (*Plan)(nil)

// Prepare resolves every path of a file action at decision time. The
// action's paths must already be normalised (absolute, clean). Execute
// refuses with path_changed when a path no longer resolves to the same
// objects.
func Prepare(act *action.Action) (*Plan, error) {
	if act == nil || act.Payload == nil {
		return nil, tools.Errorf(tools.CodeBadInput, "prepare", "", "no action")
	}
	if !handled(act.Type) {
		return nil, tools.Errorf(tools.CodeUnsupported, string(act.Type), "", "not a file action")
	}
	plan := &Plan{Type: act.Type}
	for _, pf := range act.Payload.PathFields() {
		follow := followLast(act.Type, pf.Name)
		res, chain, err := resolve(*pf.Path, follow)
		if err != nil {
			return nil, wrapPathErr(string(act.Type), pf.Name, *pf.Path, err)
		}
		plan.Paths = append(plan.Paths, PathPlan{Field: pf.Name, Path: *pf.Path, Resolved: res,
			FollowLast: follow, Chain: chain})
	}
	return plan, nil
}

// followLast says whether an operation acts on what a final symlink
// points to, or on the link itself: deleting or moving a link touches
// the link, never its target.
func followLast(t action.Type, field string) bool {
	switch {
	case t == action.DeleteFile:
		return false
	case t == action.MoveFile && field == "source":
		return false
	}
	return true
}

// components splits a clean absolute path into its names ("/" has none).
func components(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// resolve walks p from the root, following symlinks (the last one only
// when followLast), through the deepest existing ancestor; the missing
// rest is appended as written. It returns the resolved path and the
// identities of its existing components.
func resolve(p string, followLast bool) (string, []Ident, error) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return "", nil, errf(tools.CodeBadInput, "resolve", p, "path must be absolute and clean")
	}
	root, err := lstatIdent("/")
	if err != nil {
		return "", nil, err
	}
	chain := []Ident{root}
	var done []string
	todo := components(p)
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		missing := len(chain)-1 < len(done)
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			if len(done) > 0 {
				if !missing {
					chain = chain[:len(chain)-1]
				}
				done = done[:len(done)-1]
			}
			continue
		case missing:
			done = append(done, c)
			continue
		}
		cur := "/" + strings.Join(append(done, c), "/")
		var st unix.Stat_t
		err := unix.Lstat(cur, &st)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			done = append(done, c)
			continue
		}
		if err != nil {
			return "", nil, &fs.PathError{Op: "lstat", Path: cur, Err: err}
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK && (len(todo) > 0 || followLast) {
			if hops++; hops > maxSymlinkHops {
				return "", nil, errf(tools.CodeBadInput, "resolve", p, "more than %d symlinks (a loop?)", maxSymlinkHops)
			}
			target, err := readlink(cur)
			if err != nil {
				return "", nil, err
			}
			if strings.HasPrefix(target, "/") {
				done, chain = nil, chain[:1]
			}
			todo = append(strings.Split(target, "/"), todo...)
			continue
		}
		done = append(done, c)
		chain = append(chain, identOf(&st))
	}
	return "/" + strings.Join(done, "/"), chain, nil
}

func readlink(p string) (string, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlink(p, buf)
		if err != nil {
			return "", &fs.PathError{Op: "readlink", Path: p, Err: err}
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		if len(buf) >= 1<<16 {
			return "", &fs.PathError{Op: "readlink", Path: p, Err: unix.ENAMETOOLONG}
		}
		buf = make([]byte, 2*len(buf))
	}
}

func lstatIdent(p string) (Ident, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return Ident{}, &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	return identOf(&st), nil
}

func identOf(st *unix.Stat_t) Ident {
	return Ident{Dev: uint64(st.Dev), Ino: st.Ino, Type: modeType(st.Mode)} //nolint:unconvert // Dev is uint32 on some platforms
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFREG:
		return 0
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return fs.ModeDevice
}

func typeName(t fs.FileMode) string {
	switch {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a device"
}

// verify re-resolves a planned path and refuses with path_changed when
// it resolves elsewhere or any existing component is another object.
func verify(op string, pp *PathPlan) error {
	res, chain, err := resolve(pp.Path, pp.FollowLast)
	if err != nil {
		return wrapPathErr(op, pp.Field, pp.Path, err)
	}
	if res != pp.Resolved {
		return tools.Errorf(tools.CodePathChanged, op, pp.Path,
			"resolves to %s now, to %s at decision", res, pp.Resolved)
	}
	return compareChain(op, pp, chain)
}

// compareChain names the first component that differs from the plan.
func compareChain(op string, pp *PathPlan, chain []Ident) error {
	comps := components(pp.Resolved)
	for i := 0; i < len(chain) || i < len(pp.Chain); i++ {
		at := "/" + strings.Join(comps[:max(i, 0)], "/")
		switch {
		case i >= len(pp.Chain):
			return changed(op, pp, at, "did not exist at decision, now "+chain[i].String())
		case i >= len(chain):
			return changed(op, pp, at, "was "+pp.Chain[i].String()+" at decision, now gone")
		case chain[i].Type != pp.Chain[i].Type:
			return changed(op, pp, at, "was "+pp.Chain[i].String()+" at decision, now "+chain[i].String())
		case chain[i] != pp.Chain[i]:
			return changed(op, pp, at, "replaced by another "+strings.TrimPrefix(chain[i].String(), "a ")+" since the decision")
		}
	}
	return nil
}

func changed(op string, pp *PathPlan, at, what string) error {
	part := pp.Path
	if at != pp.Resolved {
		what = at + " " + what
	}
	return tools.Errorf(tools.CodePathChanged, op, part, "%s", what)
}

// wrapPathErr classifies a system error on a payload path.
func wrapPathErr(op, field, path string, err error) error {
	var te *tools.Error
	if errors.As(err, &te) {
		return err
	}
	code := tools.CodeIO
	switch {
	case errors.Is(err, unix.ENOENT):
		code = tools.CodeNotFound
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		code = tools.CodePermission
	case errors.Is(err, unix.ELOOP):
		code = tools.CodePathChanged
	case errors.Is(err, unix.ENOTDIR):
		code = tools.CodeNotDir
	case errors.Is(err, unix.EISDIR):
		code = tools.CodeIsDir
	}
	part := path
	if field != "" && field != "path" {
		part = field + " " + path
	}
	return &tools.Error{Code: code, Op: op, Part: part, Err: err}
}

// planFor checks that plan was taken for act and returns it.
func planFor(call tools.Call) (*Plan, error) {
	act := call.Action
	op := string(act.Type)
	p, ok := call.Plan.(*Plan)
	if !ok || p == nil {
		return nil, tools.Errorf(tools.CodeBadPlan, op, "", "no file plan taken at decision time")
	}
	fields := act.Payload.PathFields()
	if p.Type != act.Type || len(p.Paths) != len(fields) {
		return nil, tools.Errorf(tools.CodeBadPlan, op, "", "plan was taken for another action (%s)", p.Type)
	}
	for i, pf := range fields {
		if p.Paths[i].Field != pf.Name || p.Paths[i].Path != *pf.Path {
			return nil, tools.Errorf(tools.CodeBadPlan, op, *pf.Path,
				"plan was taken for %s %q", p.Paths[i].Field, p.Paths[i].Path)
		}
	}
	return p, nil
}

func errf(code, op, part, format string, args ...any) error {
	return tools.Errorf(code, op, part, format, args...)
}
