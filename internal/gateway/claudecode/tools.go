package claudecode

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
)

// Each mapper reads the fields of one Claude Code tool into exactly the
// payload fields the catalog defines. A field the catalog lacks is either
// carried where it means the same, or dropped with the reason it cannot
// widen what the tool does; anything else stays unknown (see Mapped).

// mapBash: Bash {command, description, timeout, run_in_background} →
// execute_command {command, timeout_seconds}, run in cwd.
func mapBash(c *mapCtx, f *fields) (Mapped, error) {
	cmd, err := f.str("command", true, true)
	if err != nil {
		return Mapped{}, err
	}
	ms, err := f.num("timeout") // milliseconds
	if err != nil {
		return Mapped{}, err
	}
	// description is a label for the human; run_in_background runs the
	// same command later, with the same effects. Any other field (e.g.
	// dangerouslyDisableSandbox, which switches off the host's sandbox)
	// stays unknown: it goes to a human.
	f.drop("description", "run_in_background")
	judged := cmd
	if c.cwd != filepath.Clean(c.env.Workspace) {
		// The gate analyses commands in the workspace: say where this one
		// runs (the analyser follows cd, DESIGN §1 step 3).
		judged = "cd " + shellQuote(c.cwd) + " && " + cmd
	}
	p := action.ExecuteCommandPayload{Command: judged, TimeoutSeconds: action.Int((ms + 999) / 1000)}
	return payloadOf(Mapped{Type: action.ExecuteCommand, Command: cmd, Cwd: c.cwd}, p)
}

// mapRead: Read {file_path, offset, limit} → read_file {path, offset, limit}.
func mapRead(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "file_path")
	if err != nil {
		return Mapped{}, err
	}
	off, err := f.num("offset")
	if err != nil {
		return Mapped{}, err
	}
	lim, err := f.num("limit")
	if err != nil {
		return Mapped{}, err
	}
	// A page range of a PDF, or permission to read a large file whole:
	// more or less of the same file.
	f.drop("pages", "allow_large")
	return payloadOf(Mapped{Type: action.ReadFile},
		action.ReadFilePayload{Path: p, Offset: action.Int(off), Limit: action.Int(lim)})
}

// mapNotebookRead: NotebookRead {notebook_path, cell_id} → read_file.
func mapNotebookRead(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "notebook_path")
	if err != nil {
		return Mapped{}, err
	}
	f.drop("cell_id") // one cell of the same file
	return payloadOf(Mapped{Type: action.ReadFile}, action.ReadFilePayload{Path: p})
}

// mapWrite: Write {file_path, content} → write_file {path, content}.
func mapWrite(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "file_path")
	if err != nil {
		return Mapped{}, err
	}
	content, err := f.str("content", true, false)
	if err != nil {
		return Mapped{}, err
	}
	return payloadOf(Mapped{Type: action.WriteFile, Files: []string{p}},
		action.WriteFilePayload{Path: p, Content: content})
}

// mapEdit: Edit {file_path, old_string, new_string, replace_all} →
// edit_file {path, old, new}.
func mapEdit(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "file_path")
	if err != nil {
		return Mapped{}, err
	}
	old, repl, err := editTexts(f)
	if err != nil {
		return Mapped{}, err
	}
	return payloadOf(Mapped{Type: action.EditFile, Files: []string{p}},
		action.EditFilePayload{Path: p, Old: old, New: repl})
}

// editTexts reads one edit's old_string and new_string. replace_all
// changes how many places get the same new text in the same file: the
// gate judges the file and the text, so it is dropped.
func editTexts(f *fields) (old, repl string, err error) {
	if old, err = f.str("old_string", true, false); err != nil {
		return "", "", err
	}
	if repl, err = f.str("new_string", true, false); err != nil {
		return "", "", err
	}
	f.drop("replace_all")
	return old, repl, nil
}

// mapMultiEdit: MultiEdit {file_path, edits:[{old_string, new_string,
// replace_all}]} → one edit_file whose old and new are the edits' texts
// joined by newlines: every new text is judged (a pattern split across
// two edits can only add findings, never hide one).
func mapMultiEdit(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "file_path")
	if err != nil {
		return Mapped{}, err
	}
	list, err := f.objects("edits")
	if err != nil {
		return Mapped{}, err
	}
	var olds, news, unknown []string
	for i, raw := range list {
		e, err := newFields(f.tool, "edits["+strconv.Itoa(i)+"].", raw)
		if err != nil {
			return Mapped{}, err
		}
		o, n, err := editTexts(e)
		if err != nil {
			return Mapped{}, err
		}
		olds, news = append(olds, o), append(news, n)
		unknown = append(unknown, e.unknown()...)
	}
	return payloadOf(Mapped{Type: action.EditFile, Files: []string{p}, Unknown: unknown},
		action.EditFilePayload{Path: p, Old: strings.Join(olds, "\n"), New: strings.Join(news, "\n")})
}

// mapNotebookEdit: NotebookEdit {notebook_path, new_source, cell_id,
// cell_type, edit_mode} → edit_file {path, new}.
func mapNotebookEdit(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "notebook_path")
	if err != nil {
		return Mapped{}, err
	}
	src, err := f.str("new_source", false, false)
	if err != nil {
		return Mapped{}, err
	}
	// Which cell, its type and whether it is replaced, inserted or
	// deleted: all change the same file, with new_source as the text.
	f.drop("cell_id", "cell_type", "edit_mode")
	return payloadOf(Mapped{Type: action.EditFile, Files: []string{p}},
		action.EditFilePayload{Path: p, New: src})
}

// mapGlob: Glob {pattern, path} → search_files {path, pattern}. The path
// judged is the literal directory the pattern starts from, so a pattern
// such as "../../.ssh/*" or "/etc/**" is judged where it reaches.
func mapGlob(c *mapCtx, f *fields) (Mapped, error) {
	pat, err := f.str("pattern", true, true)
	if err != nil {
		return Mapped{}, err
	}
	dir, err := c.searchDir(f)
	if err != nil {
		return Mapped{}, err
	}
	base, err := globBase(dir, c.env.Home, pat)
	if err != nil {
		return Mapped{}, err
	}
	return payloadOf(Mapped{Type: action.SearchFiles}, action.SearchFilesPayload{Path: base, Pattern: pat})
}

// mapGrep: Grep {pattern, path, glob, type, output_mode, -i, -n, -A, -B,
// -C, multiline, head_limit, offset} → search_files {path, pattern}.
func mapGrep(c *mapCtx, f *fields) (Mapped, error) {
	pat, err := f.str("pattern", true, true)
	if err != nil {
		return Mapped{}, err
	}
	dir, err := c.searchDir(f)
	if err != nil {
		return Mapped{}, err
	}
	// glob and type filter the files under path; the rest shape the
	// output. None reaches beyond path.
	f.drop("glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C", "multiline", "head_limit", "offset")
	return payloadOf(Mapped{Type: action.SearchFiles}, action.SearchFilesPayload{Path: dir, Pattern: pat})
}

// searchDir is the optional "path" of Glob and Grep, default cwd.
func (c *mapCtx) searchDir(f *fields) (string, error) {
	if !f.present("path") {
		f.known["path"] = true
		return c.cwd, nil
	}
	return c.path(f, "path")
}

// mapLS: LS {path, ignore} → list_directory {path}.
func mapLS(c *mapCtx, f *fields) (Mapped, error) {
	p, err := c.path(f, "path")
	if err != nil {
		return Mapped{}, err
	}
	f.drop("ignore") // hides entries of the same directory
	return payloadOf(Mapped{Type: action.ListDirectory}, action.ListDirectoryPayload{Path: p})
}

// mapWebFetch: WebFetch {url, prompt} → http_request {GET, url}.
func mapWebFetch(_ *mapCtx, f *fields) (Mapped, error) {
	u, err := f.str("url", true, true)
	if err != nil {
		return Mapped{}, err
	}
	// prompt goes to the host's model that summarises the page, not to
	// the site, and offset pages through the same response: the request
	// the site sees is a GET of url.
	f.drop("prompt", "offset")
	return payloadOf(Mapped{Type: action.HTTPRequest}, action.HTTPRequestPayload{Method: "GET", URL: u})
}

// mapWebSearch: WebSearch {query, allowed_domains, blocked_domains} →
// web_search {query}, the catalog's read-only search.
func mapWebSearch(_ *mapCtx, f *fields) (Mapped, error) {
	q, err := f.str("query", true, true)
	if err != nil {
		return Mapped{}, err
	}
	f.drop("allowed_domains", "blocked_domains") // narrow the results
	return payloadOf(Mapped{Type: "web_search"}, map[string]string{"query": q})
}

// mapAgent: Agent (Task before 2.1) {description, prompt, subagent_type,
// model, effort, run_in_background, name, team_name} → create_agent
// {task, model}. The task is the description and the prompt: both are
// instructions the sub-agent receives. mode (its permission mode) and
// isolation ("remote" runs it in the cloud) change where and how freely
// it works: they stay unknown, so a human decides.
func mapAgent(_ *mapCtx, f *fields) (Mapped, error) {
	prompt, err := f.str("prompt", true, true)
	if err != nil {
		return Mapped{}, err
	}
	desc, err := f.str("description", false, false)
	if err != nil {
		return Mapped{}, err
	}
	model, err := f.str("model", false, false)
	if err != nil {
		return Mapped{}, err
	}
	kind, err := f.str("subagent_type", false, false)
	if err != nil {
		return Mapped{}, err
	}
	// How hard it thinks, whether the parent waits for it, and the labels
	// it is listed under: the same task with the same tools.
	f.drop("effort", "run_in_background", "name", "team_name")
	task := prompt
	if desc != "" {
		task = desc + "\n\n" + prompt
	}
	if kind != "" {
		// Which configured agent runs it: its instructions are part of
		// what is handed over.
		task = "[" + kind + "] " + task
	}
	return payloadOf(Mapped{Type: action.CreateAgent}, action.CreateAgentPayload{Task: task, Model: model})
}

// globBase is the literal directory a glob pattern starts from: the
// pattern joined to dir, up to its first component with a wildcard.
func globBase(dir, home, pattern string) (string, error) {
	full, err := resolvePath(dir, home, pattern)
	if err != nil {
		return "", err
	}
	return literalPrefix(full), nil
}

// literalPrefix returns the longest leading run of path components of an
// absolute pattern without wildcard characters (* ? [ {).
func literalPrefix(p string) string {
	parts := strings.Split(p, "/")
	out := "/"
	for _, part := range parts[1:] {
		if strings.ContainsAny(part, "*?[{") {
			break
		}
		out = filepath.Join(out, part)
	}
	return out
}
