//go:build linux

package files

import (
	"context"
	"io/fs"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/tools"
	"github.com/parallax/parallax/verdict"
)

// Config bounds what one file action may read, list or return. Zero
// fields take the defaults below.
type Config struct {
	MaxReadBytes       int64       // read_file: bytes returned (1 MiB)
	MaxEditBytes       int64       // edit_file, copy_file: file size (8 MiB)
	MaxListEntries     int         // list_directory: entries (1000)
	MaxSearchFiles     int         // search_files: entries visited (5000)
	MaxSearchFileBytes int64       // search_files: larger files are skipped (1 MiB)
	MaxSearchMatches   int         // search_files: matches reported (200)
	MaxOutputBytes     int         // list and search output (64 KiB)
	MaxCopyEntries     int         // copy_file of a directory: entries (10000)
	NewFileMode        fs.FileMode // new files; 0 means 0644 less the umask
	// Judge judges every entry a directory walk (list_directory,
	// search_files over a directory) meets, before it is shown, read or
	// entered. The engine passes GuardJudge of the gate's guard. nil
	// refuses every walk (no_guard): a walk is never unguarded.
	Judge Judge `json:"-"`
}

// Judge says whether a walk withholds the entry at the absolute path p:
// neither shown nor read nor entered. why is a short class ("sealed",
// "restricted"), never a name or contents; the answer counts the
// withheld entries by class.
type Judge func(p string) (withhold bool, why string)

// GuardJudge judges walked entries as the gate judges a read of each:
// an entry the guard does not let be read (sealed, restricted, a path it
// cannot judge) is withheld. A nil guard gives a nil Judge.
func GuardJudge(g *guard.Guard) Judge {
	if g == nil {
		return nil
	}
	return func(p string) (bool, string) {
		f, ok := g.Check(p, action.AccessRead)
		if !ok || f.Decision == verdict.Allow {
			return false, ""
		}
		return true, f.Level.String()
	}
}

// Defaults.
const (
	DefaultMaxReadBytes       = 1 << 20
	DefaultMaxEditBytes       = 8 << 20
	DefaultMaxListEntries     = 1000
	DefaultMaxSearchFiles     = 5000
	DefaultMaxSearchFileBytes = 1 << 20
	DefaultMaxSearchMatches   = 200
	DefaultMaxOutputBytes     = 64 << 10
	DefaultMaxCopyEntries     = 10000
	dirMode                   = 0o755
)

// Executor runs the file actions of the catalog against the plan taken
// at decision time.
type Executor struct {
	cfg Config
}

var _ tools.Executor = (*Executor)(nil)

// New returns an executor with cfg's zero fields set to the defaults.
func New(cfg Config) *Executor {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxReadBytes, DefaultMaxReadBytes)
	def(&cfg.MaxEditBytes, DefaultMaxEditBytes)
	def(&cfg.MaxSearchFileBytes, DefaultMaxSearchFileBytes)
	defInt(&cfg.MaxListEntries, DefaultMaxListEntries)
	defInt(&cfg.MaxSearchFiles, DefaultMaxSearchFiles)
	defInt(&cfg.MaxSearchMatches, DefaultMaxSearchMatches)
	defInt(&cfg.MaxOutputBytes, DefaultMaxOutputBytes)
	defInt(&cfg.MaxCopyEntries, DefaultMaxCopyEntries)
	return &Executor{cfg: cfg}
}

// handled reports whether the package runs actions of type t.
func handled(t action.Type) bool {
	switch t {
	case action.ReadFile, action.WriteFile, action.EditFile, action.DeleteFile, action.MoveFile,
		action.CopyFile, action.CreateDirectory, action.ListDirectory, action.SearchFiles:
		return true
	}
	return false
}

// Execute runs one file action. Every path is checked against the plan
// first; any difference refuses the action with path_changed.
func (e *Executor) Execute(ctx context.Context, call tools.Call) (tools.Result, error) {
	if call.Action == nil || call.Action.Payload == nil {
		return tools.Fail(tools.Errorf(tools.CodeBadInput, "execute", "", "no action"))
	}
	if !handled(call.Action.Type) {
		return tools.Fail(tools.Errorf(tools.CodeUnsupported, string(call.Action.Type), "", "not a file action"))
	}
	plan, err := planFor(call)
	if err != nil {
		return tools.Fail(err)
	}
	if err := ctx.Err(); err != nil {
		return tools.Fail(tools.Errorf(tools.CodeCanceled, string(call.Action.Type), "", "%v", err))
	}
	var res tools.Result
	switch p := call.Action.Payload.(type) {
	case *action.ReadFilePayload:
		res, err = e.read(&plan.Paths[0], p)
	case *action.WriteFilePayload:
		res, err = e.write(&plan.Paths[0], p)
	case *action.EditFilePayload:
		res, err = e.edit(&plan.Paths[0], p)
	case *action.DeleteFilePayload:
		res, err = e.remove(ctx, &plan.Paths[0], p)
	case *action.TransferPayload:
		if call.Action.Type == action.MoveFile {
			res, err = e.move(&plan.Paths[0], &plan.Paths[1])
		} else {
			res, err = e.copy(ctx, &plan.Paths[0], &plan.Paths[1])
		}
	case *action.CreateDirectoryPayload:
		res, err = e.mkdir(&plan.Paths[0])
	case *action.ListDirectoryPayload:
		res, err = e.list(ctx, &plan.Paths[0], p)
	case *action.SearchFilesPayload:
		res, err = e.search(ctx, &plan.Paths[0], p)
	default:
		err = tools.Errorf(tools.CodeUnsupported, string(call.Action.Type), "", "unexpected payload %T", p)
	}
	if err != nil {
		return tools.Fail(err)
	}
	return res, nil
}
