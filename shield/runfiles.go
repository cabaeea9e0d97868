package shield

import (
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/runfile"
	"github.com/parallax/parallax/verdict"
)

// Code that runs later: a Makefile's recipes, a package.json's scripts,
// a shell script, setup.py, conftest.py, a git hook. The agent writes
// such a file, then runs it through make, npm test, pip install ., pytest
// or git commit: no single action shows what runs. Such files are judged
// by the code they hold (package runfile finds it), as the shell analysis
// would judge that code typed as a command, through the same stages
// (guard, policy, heuristics, information flow) in the same session:
//
//   - a write of a runnable file (write_file, edit_file as the file will be
//     after the edit) is blocked when any part of it would be blocked if
//     run (runfile_code);
//   - a command that runs such a file (the make target and its
//     prerequisites, the npm script with pre/post, the hook git runs)
//     is blocked when what runs would be (runfile_code); when the file
//     was written by the agent (this gate's session memory, or the
//     workspace's activity table across sessions), what would need review
//     needs review (runfile_review), and so does content the analysis
//     cannot read (runfile_unknown). A file the agent never wrote is
//     judged as before for what the analysis cannot read: a complex
//     Makefile in a repository does not start asking.

// Reason codes of code that runs later.
const (
	RuleRunfileCode    = "runfile_code"
	RuleRunfileReview  = "runfile_review"
	RuleRunfileUnknown = "runfile_unknown"
	// LabelAgentWritten marks, in the activity table, a runnable file an
	// agent wrote.
	LabelAgentWritten = "agent_written"
)

// Bounds: nesting of runnable files judged inside one another (a recipe
// that runs ./x.sh), programs of one command looked at, files read per
// command, code judged in one piece.
const (
	maxRunNest    = 2
	maxRunExecs   = 32
	maxRunFiles   = 16
	maxJoinedCode = 48 << 10
)

// runFiles is the stage.
func (g *Gate) runFiles(st *state) (verdict.Verdict, bool) {
	if st.nest >= maxRunNest {
		return verdict.Verdict{}, false
	}
	switch p := st.act.Payload.(type) {
	case *action.WriteFilePayload:
		if !p.Append {
			return g.judgeWrite(st, p.Path, []string{p.Content})
		}
		olds, _ := g.runfileVersions(st, p.Path)
		if len(olds) == 0 {
			olds = []string{""}
		}
		var contents []string
		for _, old := range olds {
			contents = append(contents, old+p.Content)
		}
		return g.judgeWrite(st, p.Path, contents)
	case *action.EditFilePayload:
		if runfile.KindOf(p.Path) == runfile.KindNone {
			return verdict.Verdict{}, false
		}
		olds, _ := g.runfileVersions(st, p.Path)
		var contents []string
		for _, old := range olds {
			if p.Old != "" && strings.Contains(old, p.Old) {
				contents = append(contents, strings.ReplaceAll(old, p.Old, p.New))
			}
		}
		if len(contents) == 0 {
			contents = []string{p.New}
		}
		return g.judgeWrite(st, p.Path, contents)
	case *action.ExecuteCommandPayload:
		return g.judgeRuns(st)
	}
	return verdict.Verdict{}, false
}

// judgeWrite judges a runnable file by every part it holds, in each
// content the write may leave there (the first is what the session
// remembers it wrote).
func (g *Gate) judgeWrite(st *state, file string, contents []string) (verdict.Verdict, bool) {
	if runfile.KindOf(file) == runfile.KindNone {
		return verdict.Verdict{}, false
	}
	st.runContent, st.runContentOK = contents[0], true
	var units []runfile.Unit
	for _, content := range contents {
		if len(content) > runfile.MaxFileBytes {
			return verdict.Verdict{}, false // unknown code: judged when it runs
		}
		u, _ := runfile.FileUnits(file, content)
		units = append(units, u...)
	}
	return g.refuseWritten(st, string(st.act.Type), file, units)
}

// judgeRuns judges what a command runs of the project's files.
func (g *Gate) judgeRuns(st *state) (verdict.Verdict, bool) {
	if st.effects == nil {
		return verdict.Verdict{}, false
	}
	fs := runFS{g: g, st: st}
	var targets []runfile.Target
	for i, e := range st.effects.Execs {
		if i >= maxRunExecs {
			break
		}
		targets = append(targets, runfile.Runs(e.Name, e.Path, e.Args, g.ws, fs)...)
	}
	if v, done := g.judgeDirectives(st); done {
		return v, true
	}
	if v, done := g.judgeWrittenText(st); done {
		return v, true
	}
	for i, t := range targets {
		if i >= maxRunFiles {
			st.escalate(verdict.StageHeuristic, 2, RuleRunfileUnknown,
				"the command runs more than "+itoa(maxRunFiles)+" project files; they were not all read")
			break
		}
		if v, done := g.judgeTarget(st, t); done {
			return v, true
		}
	}
	return verdict.Verdict{}, false
}

// judgeDirectives judges the //go:generate lines a command's words hold
// (sed -i '1i //go:generate …', echo '//go:generate …' >> x.go) as code
// written for later, as a write of a Go file holding them would be: the
// text is code `go generate` runs, whoever runs it.
func (g *Gate) judgeDirectives(st *state) (verdict.Verdict, bool) {
	for i, e := range st.effects.Execs {
		if i >= maxRunExecs {
			break
		}
		for _, a := range e.Args {
			if !runfile.HasDirective(a) {
				continue
			}
			units, _ := runfile.DirectiveUnits(g.ws+"/(inserted text)", g.ws, a)
			v, u := g.judgeUnits(st, units)
			if v.Decision != verdict.Block {
				continue
			}
			what := "a //go:generate line"
			if u.File != "" {
				what = "the //go:generate line " + strconv.Quote(clipCode(u.Code))
			}
			return block(v.Stage, v.Tier, RuleRunfileCode, e.Name+" writes "+what+
				", which go generate would run and which is refused ("+v.Rule+": "+v.Reason+")")
		}
	}
	return verdict.Verdict{}, false
}

// clipCode bounds code quoted in a reason.
func clipCode(s string) string {
	const max = 120
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// judgeTarget judges the parts of one file a command runs.
func (g *Gate) judgeTarget(st *state, t runfile.Target) (verdict.Verdict, bool) {
	if t.Unknown != "" {
		st.escalate(verdict.StageHeuristic, 2, RuleRunfileUnknown, t.Unknown+", code the analysis did not read")
		return verdict.Verdict{}, false
	}
	versions, unknown := g.runfileVersions(st, t.File)
	if len(versions) == 0 && unknown == "" {
		return verdict.Verdict{}, false // nothing there: nothing runs
	}
	var units []runfile.Unit
	for _, content := range versions {
		u, why := runfile.Units(t, content)
		units = append(units, u...)
		if unknown == "" {
			unknown = why
		}
	}
	written := g.agentWrote(st, t.File)
	v, u := g.judgeUnits(st, units)
	what := g.rel(t.File)
	if u.File != "" {
		what = g.unitName(u)
	}
	switch {
	case v.Decision == verdict.Block:
		return block(v.Stage, v.Tier, RuleRunfileCode, "the command runs "+what+", which would run what is refused ("+
			v.Rule+": "+v.Reason+")")
	case !written:
	case v.Decision == verdict.Escalate:
		st.escalate(verdict.StageHeuristic, 2, RuleRunfileReview, "the command runs "+what+
			", written in this workspace by the agent, which needs review ("+v.Rule+": "+v.Reason+")")
	case unknown != "":
		st.escalate(verdict.StageHeuristic, 2, RuleRunfileUnknown, "the command runs "+g.rel(t.File)+
			", written in this workspace by the agent, whose code cannot be read: "+unknown)
	}
	return verdict.Verdict{}, false
}

// judgeUnits judges units, joined when small enough (a flow from one
// recipe to the next is seen), and returns the most severe verdict with
// the unit it came from (zero when it came from the joined code and no
// unit alone reaches it).
func (g *Gate) judgeUnits(st *state, units []runfile.Unit) (verdict.Verdict, runfile.Unit) {
	allow := verdict.Verdict{Decision: verdict.Allow}
	if len(units) == 0 {
		return allow, runfile.Unit{}
	}
	var joined strings.Builder
	for _, u := range units {
		joined.WriteString(g.unitCode(u))
		joined.WriteString("\n")
	}
	if joined.Len() <= maxJoinedCode {
		v := g.judgeCode(st, joined.String())
		if v.Decision == verdict.Allow {
			return v, runfile.Unit{}
		}
		if len(units) == 1 {
			return v, units[0]
		}
		worst, at := v, runfile.Unit{}
		for _, u := range units {
			if uv := g.judgeCode(st, g.unitCode(u)); uv.Decision == v.Decision {
				return uv, u
			}
		}
		return worst, at
	}
	worst, at := allow, runfile.Unit{}
	for _, u := range units {
		uv := g.judgeCode(st, g.unitCode(u))
		if uv.Decision.Severity() > worst.Decision.Severity() {
			worst, at = uv, u
			if uv.Decision == verdict.Block {
				break
			}
		}
	}
	return worst, at
}

// unitCode is a unit as a shell command: shell as it is (in its
// directory), other languages handed to their interpreter.
func (g *Gate) unitCode(u runfile.Unit) string {
	code := u.Code
	switch u.Lang {
	case "sh":
	case "python":
		code = "python3 -c " + shellQuote(code)
	case "ruby", "perl":
		code = u.Lang + " -e " + shellQuote(code)
	case "php":
		code = "php -r " + shellQuote(strings.TrimPrefix(strings.TrimSpace(code), "<?php"))
	default:
		code = "node -e " + shellQuote(code)
	}
	if u.Dir != "" && u.Dir != g.ws {
		code = "cd " + shellQuote(u.Dir) + " || exit\n" + code
	}
	return code
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// subPipeline are the stages code found in a runnable file goes through:
// the deterministic ones, without the fast path and the judge.
var subPipeline = []stage{
	{verdict.StageDecode, (*Gate).decode},
	{verdict.StageVerify, (*Gate).verify},
	{verdict.StageGuard, (*Gate).guardEffects},
	{verdict.StagePolicy, (*Gate).applyPolicy},
	{verdict.StageHeuristic, (*Gate).heuristics},
	{verdict.StageHeuristic, (*Gate).runFiles},
	{verdict.StageIFC, (*Gate).sessionDownloadExec},
	{verdict.StageIFC, (*Gate).flows},
}

// judgeCode judges shell code as a command of the same session would be
// judged by the deterministic stages: BLOCK, ESCALATE (what needs a
// judge or a human) or ALLOW.
func (g *Gate) judgeCode(parent *state, code string) (v verdict.Verdict) {
	payload, err := json.Marshal(action.ExecuteCommandPayload{Command: code})
	if err != nil {
		return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageVerify, Rule: RuleInternalError, Reason: err.Error()}
	}
	sub := &state{ctx: parent.ctx, nest: parent.nest + 1}
	sub.reqv = Request{Session: parent.req.Session, Type: string(action.ExecuteCommand), Payload: payload,
		Env: parent.req.Env} // the file runs with the command's environment
	sub.req = &sub.reqv
	defer func() {
		if sub.guard != nil {
			sub.guard.Release()
		}
	}()
	for _, s := range g.sub {
		if out, done := s.run(g, sub); done {
			return out
		}
	}
	if sub.pending != nil {
		return *sub.pending
	}
	if sub.minTier >= 2 {
		return verdict.Verdict{Decision: verdict.Escalate, Stage: verdict.StagePolicy, Tier: sub.minTier,
			Rule: sub.tierRule, Reason: sub.tierReason}
	}
	return verdict.Verdict{Decision: verdict.Allow}
}

func (g *Gate) rel(p string) string {
	if strings.HasPrefix(p, g.ws+"/") {
		return p[len(g.ws)+1:]
	}
	return p
}

func (g *Gate) unitName(u runfile.Unit) string {
	if u.Part == "" {
		return g.rel(u.File)
	}
	return g.rel(u.File) + " " + u.Part
}

// runfileVersions returns the contents of a runnable file that may run:
// what is on disk (a regular file, at most runfile.MaxFileBytes), and
// what this session wrote there when that differs (a command since, npm
// install adding a dependency to package.json, or a write not yet made).
// Each is judged as a whole file: two package.json documents joined
// would be neither. None when there is nothing; why says what could not
// be read.
func (g *Gate) runfileVersions(st *state, p string) (versions []string, why string) {
	disk, found, why := readBounded(p)
	if found {
		versions = append(versions, disk)
	}
	if mem, remembered := g.written.content(st.req.Session, p); remembered && (!found || mem != disk) {
		versions = append(versions, mem)
	}
	return versions, why
}

// readBounded reads a regular file, at most runfile.MaxFileBytes; a
// larger, unreadable or special file is not read and why says so.
func readBounded(p string) (string, bool, string) {
	fi, err := os.Stat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return "", false, ""
		}
		return "", false, p + " cannot be read"
	}
	if !fi.Mode().IsRegular() {
		return "", false, p + " is not a regular file"
	}
	if fi.Size() > runfile.MaxFileBytes {
		return "", false, p + " is larger than " + itoa(runfile.MaxFileBytes>>10) + " KiB"
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false, p + " cannot be read"
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, runfile.MaxFileBytes+1))
	if err != nil || len(b) > runfile.MaxFileBytes {
		return "", false, p + " cannot be read whole"
	}
	return string(b), true, ""
}

// runFS is what runfile.Runs sees: the disk, and what the session wrote.
type runFS struct {
	g  *Gate
	st *state
}

func (f runFS) Exists(p string) bool {
	if _, ok := f.g.written.content(f.st.req.Session, p); ok {
		return true
	}
	if !f.project(p) {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// project reports whether p may be code the agent wrote or a project
// ships: a file in the workspace, or one outside it the agent is recorded
// as having written (a script under /tmp). An installed program
// (/usr/bin/find) is not read: it is not project code, and reading a
// binary for every command that names it by path would cost more than
// the rest of the decision.
func (f runFS) project(p string) bool {
	if within(p, f.g.ws) {
		return true
	}
	for _, sys := range systemDirs {
		if within(p, sys) {
			return false
		}
	}
	return f.g.agentWrote(f.st, p)
}

// systemDirs hold installed programs and system files, never a file the
// agent wrote without an approval that is itself reviewed.
var systemDirs = [...]string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/etc", "/snap", "/nix", "/proc", "/sys", "/dev"}

// maxListed bounds the entries of one directory runFS lists.
const maxListed = 4096

func (f runFS) List(dir string) (files, dirs []string, ok bool) {
	if !within(dir, f.g.ws) {
		return nil, nil, false
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, nil, false
	}
	defer d.Close()
	ents, err := d.ReadDir(maxListed + 1)
	if err != nil && err != io.EOF || len(ents) > maxListed {
		return nil, nil, false
	}
	for _, e := range ents {
		switch {
		case e.Type().IsRegular():
			files = append(files, e.Name())
		case e.IsDir():
			dirs = append(dirs, e.Name())
		}
	}
	return files, dirs, true
}

func (f runFS) Read(p string) (string, bool) {
	versions, _ := f.g.runfileVersions(f.st, p)
	return strings.Join(versions, "\n"), len(versions) > 0
}

func itoa(n int) string { return strconv.Itoa(n) }
