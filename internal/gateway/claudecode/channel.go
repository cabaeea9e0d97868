package claudecode

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// Channels to the model that carry no tool result: the memory files
// Claude Code loads by itself (SessionStart, InstructionsLoaded,
// DirectoryAdded), the user's prompt (UserPromptSubmit,
// UserPromptExpansion), and a Monitor's output (monitor.go). What they
// show the model is classified like a tool result (the same DLP, and the
// paths' labels) and raises the session's taint.

// RuleChannelUnclassified is the audit rule of a source the hook could not
// classify (unreadable, over a bound, output it cannot see): the session
// is then taken to have seen critical data.
const RuleChannelUnclassified = "hook_channel_unclassified"

// managedDir is where the managed memory is read (a test seam).
func (o Options) managedDir() string {
	if o.managed != "" {
		return o.managed
	}
	return defaultManagedDir
}

// observeChannel classifies what an event without a tool call shows the
// model and raises the session's taint to it: first in the taint
// journal, before the workspace is opened, as for a tool result. A
// source that cannot be classified counts as critical; an error says
// what was not classified.
func observeChannel(ctx context.Context, opts Options, in *Input) (err error) {
	root := ""
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error in the Parallax hook while classifying %s", in.HookEventName)
			if root != "" {
				err = journalCritical(root, in.SessionID, in.HookEventName, err)
			}
		}
	}()
	if root, err = hookRoot(opts, in); err != nil {
		return fmt.Errorf("what %s showed the model was not classified: %w", in.HookEventName, err)
	}
	opts.at(faultChannel)
	sc, err := scanChannel(opts, root, in)
	if err != nil {
		return journalCritical(root, in.SessionID, in.HookEventName, err)
	}
	if f, ok := sc.top(); ok {
		if err := workspace.JournalTaint(root, in.SessionID, int(f.Level), f.source()); err != nil {
			return unrecorded(root, err)
		}
	}
	ws, err := openRoot(ctx, root)
	if err != nil {
		return journalCritical(root, in.SessionID, in.HookEventName, err)
	}
	defer func() { err = errors.Join(err, ws.Close()) }()
	return recordFindings(ctx, ws, in.SessionID, in.HookEventName, sc)
}

// scanChannel reads and classifies what the event shows the model.
func scanChannel(opts Options, root string, in *Input) (*scanner, error) {
	sc, err := newChannelScanner(root, opts.Home)
	if err != nil {
		return nil, err
	}
	switch in.HookEventName {
	case EventUserPromptSubmit, EventUserPromptExpansion:
		sc.text("prompt", in.PromptText())
	case EventSessionStart:
		dirs := []string{in.Cwd, root}
		if opts.ProjectDir != "" {
			dirs = append(dirs, filepath.Clean(opts.ProjectDir))
		}
		sc.memory(opts.Home, memoryFiles(memoryEnv{home: opts.Home, managed: opts.managedDir()}, dirs...))
	case EventDirectoryAdded:
		sc.memory(opts.Home, memoryDirFiles(in.Directory))
	case EventInstructionsLoaded:
		what := "memory file"
		if in.ParentFilePath != "" {
			what = "imported by " + in.ParentFilePath
		}
		sc.memory(opts.Home, []memorySource{{in.FilePath, what}})
	}
	return sc, nil
}

// newChannelScanner is a scanner with the DLP a tool result is classified
// with and the workspace's path labels.
func newChannelScanner(root, home string) (*scanner, error) {
	paths, err := ifc.NewPaths(ifc.Env{Workspace: root, Home: home})
	if err != nil {
		return nil, err
	}
	cls, err := shield.NewClassifier()
	if err != nil {
		return nil, err
	}
	return newScanner(cls, paths), nil
}

// memory classifies memory files and, to MaxImportDepth, what they
// import. A file reached again by a shorter chain has its imports
// followed again from there; a cycle ends at a file already seen.
// Missing files, directories and special files are skipped, as Claude
// Code skips them.
func (s *scanner) memory(home string, roots []memorySource) {
	type visit struct {
		depth int
		data  []byte
		ok    bool
	}
	visited := map[string]*visit{}
	var load func(src memorySource, depth int)
	load = func(src memorySource, depth int) {
		v := visited[src.path]
		if v != nil && v.depth <= depth {
			return
		}
		if v == nil {
			data, st := s.file(src.path, src.what)
			v = &visit{data: data, ok: st == readOK}
			visited[src.path] = v
		}
		v.depth = depth
		if !v.ok || depth >= MaxImportDepth {
			return
		}
		for _, p := range memoryImports(v.data, src.path, home) {
			load(memorySource{p, "imported by " + src.path}, depth+1)
		}
	}
	for _, r := range roots {
		load(r, 0)
	}
}

// recordFindings raises the session's taint to each finding (with the
// activity table's label of its file, when higher) and audits it: one
// IFCClassified entry per finding above Public, and one that sums up.
// When a raise fails, the session is raised to critical and the failure
// audited.
func recordFindings(ctx context.Context, ws *workspace.Workspace, session, event string, sc *scanner) error {
	store := ws.IFCStore()
	kind := actionLabel(event)
	var errs []error
	top := ifc.Public
	for _, f := range sc.found {
		f, err := withActivity(ctx, store, f)
		if err != nil {
			errs = append(errs, err)
		}
		if f.Level <= ifc.Public {
			continue
		}
		top = max(top, f.Level)
		if err := store.RaiseTaint(ctx, session, f.Level, f.source()); err != nil {
			errs = append(errs, fmt.Errorf("raise the taint of session %s: %w", session, err))
		}
		e := audit.Event{Type: audit.IFCClassified, Session: session, ActionType: kind, Stage: stageHook,
			Detail: audit.Detail{Code: "channel_" + f.Level.String(), Path: f.Path, Labels: f.Labels, Message: f.What}}
		if f.Unclassified != "" {
			e.Rule, e.Reason = RuleChannelUnclassified, clip("not classified ("+f.Unclassified+"); the session is "+
				"treated as having seen critical data")
		}
		if _, err := ws.Audit.Append(ctx, e); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := ws.Audit.Append(ctx, audit.Event{Type: audit.IFCClassified, Session: session, ActionType: kind,
		Stage: stageHook, Detail: audit.Detail{Code: "channel_classified", Count: int64(len(sc.found)),
			Message: fmt.Sprintf("%d sources classified, the highest %s", len(sc.found), top)}}); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		terr := store.RaiseTaint(ctx, session, ifc.Critical, "unclassified "+event)
		return errors.Join(fmt.Errorf("what %s showed the model was not recorded (%w); session %s is now "+
			"treated as having seen critical data", event, err, session), terr)
	}
	return nil
}

// withActivity raises a file's finding to the activity table's label of
// the file (data written there before), when higher.
func withActivity(ctx context.Context, store ifc.Store, f finding) (finding, error) {
	if f.Path == "" || f.Level >= ifc.Critical {
		return f, nil
	}
	a, ok, err := store.TopActivity(ctx, f.Path, false, f.Level+1)
	if err != nil || !ok {
		return f, err
	}
	f.Level, f.Labels, f.PathRule = a.Level, a.Labels, "written with data from "+a.Source
	return f, nil
}
