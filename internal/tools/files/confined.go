//go:build linux

package files

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/tools"
	"github.com/parallax/parallax/sandbox"
)

// ConfinedArg is the hidden subcommand that runs one file operation in
// its confined helper: `self __files-exec`, the request on stdin, the
// answer on stdout. A program that runs Confined executors dispatches it
// first thing in main (ConfinedMain).
const ConfinedArg = "__files-exec"

// maxConfinedRequest and maxConfinedAnswer bound what crosses the
// helper's pipes: a request holds at most an edit's payload, an answer at
// most a read's output escaped as JSON.
const (
	maxConfinedRequest = 64 << 20
	maxConfinedAnswer  = 32 << 20
)

// Confined runs each file operation in a helper process confined by the
// kernel to the paths of its decided plan (Plan.Confinement): the
// executor's own checks of the plan (pinned identities) are the second
// layer, not the only one.
type Confined struct {
	// Self is the program to start, holding ConfinedArg
	// (sandbox.Self: the engine's own open executable).
	Self string
	// Config bounds the operation as Executor's does. Its Judge is not
	// used: the helper judges walked entries with a guard built from
	// Guard's Spec; without Guard every walk is refused (no_guard).
	Config Config
	Guard  *guard.Guard
}

var _ tools.Executor = (*Confined)(nil)

// confinedRequest is what the helper reads, gob-encoded: gob keeps
// strings byte for byte (a file name or content that is not UTF-8
// arrives as it is, where JSON would replace its bytes).
type confinedRequest struct {
	Spec   sandbox.FilesSpec
	Config Config
	Guard  *guardSpec
	Action *action.Action
	Plan   *Plan
}

type guardSpec struct {
	Workspace, Home string
	Protected       []string
}

// confinedAnswer is what the helper writes, gob-encoded: the result,
// and the error the operation failed with ("" when none).
type confinedAnswer struct {
	Result tools.Result
	Code   string
	Err    string
	// Confined says the helper checked its confinement from inside: the
	// root directory, which no spec grants, could not be opened.
	Confined bool
}

// registerPayloads tells gob the payload types of the file actions.
var registerPayloads = sync.OnceFunc(func() {
	for _, p := range []action.Payload{&action.ReadFilePayload{}, &action.WriteFilePayload{}, &action.EditFilePayload{},
		&action.DeleteFilePayload{}, &action.TransferPayload{}, &action.ListDirectoryPayload{},
		&action.SearchFilesPayload{}, &action.CreateDirectoryPayload{}} {
		gob.Register(p)
	}
})

// Execute starts the helper with the call and its plan, and returns its
// answer. A helper that cannot be confined, dies or answers nothing
// readable is a sandbox_refused or io_error failure: the operation is
// never run unconfined instead.
func (c *Confined) Execute(ctx context.Context, call tools.Call) (tools.Result, error) {
	if call.Action == nil || call.Action.Payload == nil {
		return tools.Fail(tools.Errorf(tools.CodeBadInput, "execute", "", "no action"))
	}
	op := string(call.Action.Type)
	plan, err := planFor(call)
	if err != nil {
		return tools.Fail(err)
	}
	spec, err := plan.Confinement()
	if err != nil {
		return tools.Fail(err)
	}
	req := confinedRequest{Spec: spec, Config: c.Config, Action: call.Action, Plan: plan}
	req.Config.Judge = nil
	if c.Guard != nil {
		ws, home, prot := c.Guard.Spec()
		req.Guard = &guardSpec{Workspace: ws, Home: home, Protected: prot}
	}
	registerPayloads()
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(&req); err != nil {
		return tools.Fail(tools.Errorf(tools.CodeBadInput, op, "", "encode the request: %v", err))
	}
	cmd := exec.CommandContext(ctx, c.Self, ConfinedArg)
	cmd.Env = []string{} // nothing of the engine's environment
	cmd.Dir = "/"
	cmd.Stdin = &in
	var out, errb bounded
	out.max, errb.max = maxConfinedAnswer, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return tools.Fail(tools.Errorf(tools.CodeCanceled, op, "", "%v", ctx.Err()))
	}
	var ans confinedAnswer
	if out.over {
		return tools.Fail(tools.Errorf(tools.CodeTooLarge, op, "", "the confined helper's answer is over %d bytes", maxConfinedAnswer))
	}
	if err := gob.NewDecoder(&out.buf).Decode(&ans); err != nil {
		why := strings.TrimSpace(strings.ToValidUTF8(errb.buf.String(), "?"))
		if runErr != nil && why == "" {
			why = runErr.Error()
		}
		return tools.Fail(tools.Errorf(tools.CodeSandbox, op, "", "the confined helper gave no answer: %s", why))
	}
	if ans.Err != "" {
		return ans.Result, &tools.Error{Code: ans.Code, Op: op, Msg: ans.Err}
	}
	if !ans.Confined {
		return tools.Fail(tools.Errorf(tools.CodeSandbox, op, "", "the helper answered without proving its confinement"))
	}
	if runErr != nil {
		return tools.Fail(tools.Errorf(tools.CodeSandbox, op, "", "the confined helper failed: %v", runErr))
	}
	return ans.Result, nil
}

// ConfinedMain is the helper: it reads one request, confines itself to
// the request's paths (before anything else is opened), runs the
// operation with the plan and writes the answer. Its exit status is 0
// when it answered, 1 when it could not.
func ConfinedMain(stdin io.Reader, stdout io.Writer) int {
	answer := func(a confinedAnswer) int {
		if err := gob.NewEncoder(stdout).Encode(&a); err != nil {
			fmt.Fprintf(os.Stderr, "parallax files: write the answer: %v\n", err)
			return 1
		}
		return 0
	}
	fail := func(err error) int {
		r, _ := tools.Fail(err)
		return answer(confinedAnswer{Result: r, Code: tools.CodeOf(err), Err: err.Error()})
	}
	raw, err := io.ReadAll(io.LimitReader(stdin, maxConfinedRequest+1))
	if err != nil || len(raw) > maxConfinedRequest {
		return fail(tools.Errorf(tools.CodeBadInput, "confined", "", "the request is unreadable or too large"))
	}
	registerPayloads()
	var req confinedRequest
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&req); err != nil {
		return fail(tools.Errorf(tools.CodeBadInput, "confined", "", "decode the request: %v", err))
	}
	act := req.Action
	if act == nil || act.Payload == nil || req.Plan == nil || req.Plan.Type != act.Type {
		return fail(tools.Errorf(tools.CodeBadPlan, "confined", "", "no action, or no plan for it"))
	}
	// The guard judges a walk's entries; it is built before confinement
	// (it reads nothing but its tables), for every type that may walk.
	cfg := req.Config
	if req.Guard != nil && !walkless[act.Type] {
		cfg.Judge = GuardJudge(guard.New(req.Guard.Workspace, req.Guard.Home, guard.WithProtected(req.Guard.Protected...)))
	}
	// What the kernel grants must be what the plan needs: the helper
	// derives it again and refuses a request whose spec differs.
	if want, err := req.Plan.Confinement(); err != nil || !sameSpec(want, req.Spec) {
		return fail(tools.Errorf(tools.CodeSandbox, "confined", "", "the request's confinement is not its plan's"))
	}
	if err := sandbox.ConfineFiles(req.Spec); err != nil {
		return fail(tools.Errorf(tools.CodeSandbox, string(act.Type), "", "%v", err))
	}
	// The probe: no spec grants the root directory, so a confined helper
	// cannot open it.
	if fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		_ = unix.Close(fd)
		return fail(tools.Errorf(tools.CodeSandbox, string(act.Type), "", "the helper is not confined: it can read /"))
	}
	res, err := New(cfg).Execute(context.Background(), tools.Call{Action: act, Plan: req.Plan})
	if err != nil {
		return answer(confinedAnswer{Result: res, Code: tools.CodeOf(err), Err: err.Error(), Confined: true})
	}
	return answer(confinedAnswer{Result: res, Confined: true})
}

// walkless are the operations that never walk a directory: their helper
// needs no guard.
var walkless = map[action.Type]bool{action.ReadFile: true, action.WriteFile: true, action.EditFile: true,
	action.CreateDirectory: true}

// Confinement is the kernel confinement of the plan's operation: what it
// reads, the directories in which it creates, replaces or removes
// entries. A read is granted on the resolved file or tree; a write,
// delete, move or copy destination on the directory holding the resolved
// path (or its deepest existing ancestor, where directories are to be
// made). Landlock rules reach everything beneath their directory, so the
// pinned identities remain the check of the exact file. The root
// directory is never granted.
func (p *Plan) Confinement() (sandbox.FilesSpec, error) {
	var s sandbox.FilesSpec
	for i := range p.Paths {
		pp := &p.Paths[i]
		reads := p.Type == action.ReadFile || p.Type == action.ListDirectory || p.Type == action.SearchFiles ||
			p.Type == action.CopyFile && pp.Field == "source"
		if reads {
			if pp.Resolved == "/" {
				return sandbox.FilesSpec{}, tools.Errorf(tools.CodeSandbox, string(p.Type), pp.Path,
					"the root directory cannot be read by a confined operation")
			}
			if pp.Exists() {
				s.Read = appendNew(s.Read, pp.Resolved)
			}
			continue
		}
		dir := existingParent(pp)
		if dir == "/" {
			return sandbox.FilesSpec{}, tools.Errorf(tools.CodeSandbox, string(p.Type), pp.Path,
				"a change in the root directory cannot be confined")
		}
		s.Modify = appendNew(s.Modify, dir)
	}
	return s, nil
}

// existingParent is the directory holding pp's resolved path, or its
// deepest ancestor that exists.
func existingParent(pp *PathPlan) string {
	comps := components(pp.Resolved)
	n := min(len(pp.Chain)-1, len(comps)-1)
	if n <= 0 {
		return "/"
	}
	return filepath.Join(append([]string{"/"}, comps[:n]...)...)
}

func appendNew(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

func sameSpec(a, b sandbox.FilesSpec) bool {
	return slices.Equal(a.Read, b.Read) && slices.Equal(a.Modify, b.Modify)
}

// bounded is a buffer that keeps at most max bytes and notes the excess.
type bounded struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *bounded) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}
