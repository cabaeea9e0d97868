package mcpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shield"
)

// Mapped is a tool call as the gate sees it.
type Mapped struct {
	// Shape is the id of the shape that matched ("mcp_call" when none).
	Shape string
	// Primary is the action the call amounts to.
	Primary shield.Request
	// More are further actions of the same call (each edit of a
	// multi-edit, each file of a multi-read).
	More []shield.Request
	// Paths are, for the arguments of an mcp_call, a write_file per
	// path-like argument: whatever the tool does with a path, the gate
	// judges it as a write there (guard, denylist, protected files), so
	// no trust can skip those checks. They are judged only: Chronicle
	// does not snapshot them (a directory argument would mean the whole
	// tree, for a tool that may only read it).
	Paths []shield.Request
	// Extra, when set, is an mcp_call carrying the arguments the shape
	// did not explain and that could matter (long, structured, path- or
	// URL-like, or holding anything DLP finds). It is judged too; the
	// worse verdict wins.
	Extra *shield.Request
}

// Requests are every action of the call: Primary, More, Paths, Extra.
func (m Mapped) Requests() []shield.Request {
	out := append([]shield.Request{m.Primary}, m.More...)
	out = append(out, m.Paths...)
	if m.Extra != nil {
		out = append(out, *m.Extra)
	}
	return out
}

// MapEnv is what mapping needs to know about the server.
type MapEnv struct {
	Server    string // the server's name, for mcp_call
	Dir       string // the server's working directory (absolute): commands run here
	Workspace string // the gate's workspace: commands elsewhere get "cd DIR && "
	// Roots is how the server resolves a relative path argument (not
	// against Dir: server-filesystem uses its allowed directories). A
	// relative path with no known base refuses the call (PathError).
	Roots Roots
	// Home is what ~ means to the server (its HOME); empty leaves ~ to
	// the gate.
	Home string
	// Sensitive reports whether DLP finds anything in a string; nil
	// treats every string as sensitive.
	Sensitive func(string) bool
}

// Argument names of the shapes, in preference order.
var (
	commandKeys = []string{"command", "cmd"}
	argvKeys    = []string{"args", "arguments", "argv"}
	cwdKeys     = []string{"cwd", "workdir", "working_directory", "working_dir", "dir", "directory"}
	pathKeys    = []string{"path", "file_path", "filepath", "file", "filename", "file_name", "target_file"}
	contentKeys = []string{"content", "contents", "text", "data", "body"}
	oldKeys     = []string{"old_string", "old_str", "old_text", "oldText", "old", "search"}
	newKeys     = []string{"new_string", "new_str", "new_text", "newText", "new", "replace", "replacement"}
	editsKeys   = []string{"edits", "changes", "replacements"}
	pathsKeys   = []string{"paths", "files", "file_paths", "filepaths"}
	excludeKeys = []string{"excludePatterns", "exclude_patterns", "exclude"}
	patternKeys = []string{"pattern", "query", "regex", "glob"}
	urlKeys     = []string{"url", "uri", "href", "link"}
	srcKeys     = []string{"source", "src", "from", "source_path"}
	dstKeys     = []string{"destination", "dest", "dst", "to", "destination_path", "target"}
)

// shape is one known tool shape: which tool-name words and argument
// names it needs, and how it builds the action.
type shape struct {
	id    string
	verbs []string   // one of these words must be in the tool name (nil: any name)
	also  []string   // and, when set, one of these
	keys  [][]string // each group needs one present string argument
	build func(m *mapper, got []string) (action.Type, map[string]any, error)
	// readOnly shapes do not apply to a tool whose name says it changes
	// something (mutatingVerbs): judging a truncate_file as a read would
	// be looser than the truth, so such a call stays an mcp_call.
	readOnly bool
}

// mutatingVerbs are tool-name words that say a call changes or sends
// something.
var mutatingVerbs = []string{"write", "save", "create", "put", "append", "overwrite", "update", "edit",
	"upload", "delete", "remove", "rm", "unlink", "del", "trash", "truncate", "move", "rename", "mv",
	"copy", "cp", "chmod", "chown", "set", "patch", "modify", "replace", "insert", "mkdir", "touch",
	"exec", "execute", "run", "install", "uninstall", "kill", "send", "post", "push", "commit", "publish",
	"deploy", "drop", "reset", "merge", "submit", "email", "message", "notify", "share", "invite"}

// shapes is the static, ordered table; the first match wins.
var shapes = []shape{
	{id: "shell_command", keys: [][]string{commandKeys}, build: buildCommand},
	{id: "file_move", verbs: []string{"move", "rename", "mv"}, keys: [][]string{srcKeys, dstKeys}, build: buildTransfer(action.MoveFile)},
	{id: "file_copy", verbs: []string{"copy", "cp"}, keys: [][]string{srcKeys, dstKeys}, build: buildTransfer(action.CopyFile)},
	{id: "download", verbs: []string{"download", "fetch", "save", "get"}, keys: [][]string{urlKeys, pathKeys}, build: buildDownload},
	{id: "file_edit", verbs: []string{"edit", "replace", "patch", "modify", "update"}, keys: [][]string{pathKeys, oldKeys, newKeys}, build: buildEdit},
	{id: "file_edits", verbs: []string{"edit", "replace", "patch", "modify", "update"}, keys: [][]string{pathKeys, editsKeys}, build: buildEdits},
	{id: "file_write", verbs: []string{"write", "save", "create", "put", "append", "overwrite", "update", "edit", "upload"},
		keys: [][]string{pathKeys, contentKeys}, build: buildWrite},
	{id: "file_delete", verbs: []string{"delete", "remove", "rm", "unlink", "del", "trash", "rmdir"}, keys: [][]string{pathKeys}, build: buildPathRecursive(action.DeleteFile)},
	{id: "directory_create", verbs: []string{"create", "make", "new", "mkdir", "makedirs", "mkdirs"},
		also: []string{"directory", "dir", "folder", "mkdir", "makedirs", "mkdirs"}, keys: [][]string{pathKeys},
		build: buildPathOnly(action.CreateDirectory)},
	{id: "directory_list", verbs: []string{"list", "ls", "tree", "readdir", "dir"}, keys: [][]string{pathKeys}, build: buildPathRecursive(action.ListDirectory), readOnly: true},
	{id: "file_search", verbs: []string{"search", "grep", "find", "glob"}, keys: [][]string{pathKeys, patternKeys}, build: buildSearch, readOnly: true},
	{id: "file_read", keys: [][]string{pathKeys}, build: buildPathOnly(action.ReadFile), readOnly: true},
	{id: "file_read_many", keys: [][]string{pathsKeys}, build: buildReadMany, readOnly: true},
	{id: "url_request", keys: [][]string{urlKeys}, build: buildHTTP, readOnly: true},
}

// ShapeIDs returns the ids of the shapes in table order.
func ShapeIDs() []string {
	out := make([]string, len(shapes))
	for i, s := range shapes {
		out[i] = s.id
	}
	return out
}

// mapper holds one call's arguments while a shape builds its action.
type mapper struct {
	env      MapEnv
	words    map[string]bool
	args     map[string]json.RawMessage
	consumed map[string]bool
	more     []shield.Request // further actions a build adds
}

// Map turns a tool call into the actions the gate judges. The arguments
// must be a JSON object without duplicate keys (or empty).
func Map(tool string, args json.RawMessage, env MapEnv) (Mapped, error) {
	if err := action.CheckBounds(args); err != nil {
		return Mapped{}, fmt.Errorf("arguments of tool %q: %w", tool, err)
	}
	fields, err := objectFields(args)
	if err != nil {
		return Mapped{}, fmt.Errorf("arguments of tool %q: %w", tool, err)
	}
	m := &mapper{env: env, words: nameWords(tool), args: fields}
	for i := range shapes {
		s := &shapes[i]
		got, ok := m.match(s)
		if !ok {
			continue
		}
		m.consumed = map[string]bool{}
		for _, k := range got {
			m.consumed[k] = true
		}
		m.more = nil
		typ, payload, err := s.build(m, got)
		var perr *PathError
		var plerr *PlaceError
		if errors.As(err, &perr) || errors.As(err, &plerr) {
			return Mapped{}, err // the path is the problem, not the shape
		}
		if err != nil {
			continue // this shape does not fit these values; try the next
		}
		req, err := request(typ, payload)
		if err != nil {
			return Mapped{}, err
		}
		out := Mapped{Shape: s.id, Primary: req, More: m.more}
		if rest := m.leftovers(); rest != nil {
			extra, err := mcpCall(env.Server, tool, rest)
			if err != nil {
				return Mapped{}, err
			}
			out.Extra = &extra
			writes, err := m.pathWrites(rest)
			if err != nil {
				return Mapped{}, err
			}
			out.Paths = writes
		}
		return out, nil
	}
	if len(fields) == 0 {
		args = json.RawMessage("{}")
	}
	req, err := mcpCall(env.Server, tool, args)
	if err != nil {
		return Mapped{}, err
	}
	writes, err := m.pathWrites(args)
	return Mapped{Shape: "mcp_call", Primary: req, Paths: writes}, err
}

// match reports whether s applies and which argument it uses per group.
func (m *mapper) match(s *shape) ([]string, bool) {
	if s.verbs != nil && !m.named(s.verbs) || s.also != nil && !m.named(s.also) {
		return nil, false
	}
	if s.readOnly && m.named(mutatingVerbs) {
		if _, explicit := m.args["method"]; !explicit || s.id != "url_request" {
			return nil, false
		}
	}
	got := make([]string, 0, len(s.keys))
	for _, group := range s.keys {
		k := m.first(group)
		if k == "" {
			return nil, false
		}
		got = append(got, k)
	}
	return got, true
}

// named reports whether the tool name holds one of words.
func (m *mapper) named(words []string) bool {
	for _, w := range words {
		if m.words[w] {
			return true
		}
	}
	return false
}

// first returns the first key of group present in the arguments.
func (m *mapper) first(group []string) string {
	for _, k := range group {
		if _, ok := m.args[k]; ok {
			return k
		}
	}
	return ""
}

// str reads argument k as a string.
func (m *mapper) str(k string) (string, error) {
	var s string
	if err := json.Unmarshal(m.args[k], &s); err != nil {
		return "", fmt.Errorf("argument %q is not a string", k)
	}
	return s, nil
}

// optional reads the first present key of group as a string and marks it
// consumed; absent or not a string is "".
func (m *mapper) optional(group []string) string {
	k := m.first(group)
	if k == "" {
		return ""
	}
	s, err := m.str(k)
	if err != nil {
		return ""
	}
	m.consumed[k] = true
	return s
}

// flag reads an optional boolean argument and marks it consumed.
func (m *mapper) flag(k string) bool {
	var b bool
	if raw, ok := m.args[k]; ok && json.Unmarshal(raw, &b) == nil {
		m.consumed[k] = true
		return b
	}
	return false
}

// path reads argument k as a path (see place).
func (m *mapper) path(k string) (string, error) {
	p, err := m.str(k)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", fmt.Errorf("argument %q is empty", k)
	}
	return m.place(p)
}

// place makes a path argument absolute the way the server will: file://
// is read (fileURL; server-filesystem knows no URIs: to it
// "file:///a/../../.bashrc" is a relative path, its root's .bashrc), ~
// is the server's home (left for the gate when unknown), a relative path
// resolves against the server's roots (Roots.Resolve: a PathError when
// they do not say); for server-filesystem, a name missing as written is
// the entry it opens instead (Roots.OnDisk).
func (m *mapper) place(p string) (string, error) {
	p, err := m.absolute(p)
	if err != nil || !filepath.IsAbs(p) {
		return p, err
	}
	if m.env.Roots.Filesystem {
		return m.env.Roots.OnDisk(filepath.Clean(p))
	}
	// Any server may be server-filesystem launched in a way Parallax
	// does not recognise (a wrapper, sh -c): a name that exists only as
	// an entry equal to it in Unicode is refused, since the server may
	// open that entry and the gate cannot know. (What cannot be
	// inspected here cannot be opened by a server of the same user.)
	clean := filepath.Clean(p)
	if q, err := (Roots{Dirs: []string{"/"}}).OnDisk(clean); err == nil && q != clean {
		return "", &PlaceError{Path: p, Why: fmt.Sprintf("it does not exist as written, but %s does, which is the same name "+
			"in Unicode (NFC) and which a server may open instead; give the name as it is on disk", q)}
	}
	return p, nil
}

// absolute is place before the server's Unicode matching.
func (m *mapper) absolute(p string) (string, error) {
	if !m.env.Roots.Filesystem {
		var err error
		if p, _, err = fileURL(p); err != nil {
			return "", err
		}
	}
	switch {
	case p == "":
		return "", errors.New("empty path")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if m.env.Home == "" {
			return p, nil
		}
		return filepath.Join(m.env.Home, p[1:]), nil
	case filepath.IsAbs(p):
		return p, nil
	}
	return m.env.Roots.Resolve(m.env.Server, p)
}

// leftovers returns the unconsumed arguments that could matter, as a JSON
// object, or nil when there are none.
func (m *mapper) leftovers() json.RawMessage {
	rest := map[string]json.RawMessage{}
	for k, raw := range m.args {
		if !m.consumed[k] && m.significant(raw) {
			rest[k] = raw
		}
	}
	if len(rest) == 0 {
		return nil
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return json.RawMessage(`{"unencodable":"arguments"}`)
	}
	return b
}

// significant: numbers, booleans, null and short plain strings are
// options; structures, long strings, path-, URL- or address-like strings
// and anything DLP finds are data the gate must see.
func (m *mapper) significant(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return false
	}
	switch b[0] {
	case '{', '[':
		return true
	case '"':
	default:
		return false
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return true
	}
	if len(s) > 200 || strings.ContainsAny(s, "/\\~@") {
		return true
	}
	return m.env.Sensitive == nil || m.env.Sensitive(s)
}

func buildCommand(m *mapper, got []string) (action.Type, map[string]any, error) {
	cmd, err := commandString(m.args[got[0]])
	if err != nil {
		return "", nil, err
	}
	if k := m.first(argvKeys); k != "" {
		var argv []string
		if err := json.Unmarshal(m.args[k], &argv); err == nil {
			m.consumed[k] = true
			for _, a := range argv {
				cmd += " " + shellQuote(a)
			}
		}
	}
	dir := m.env.Dir
	if cwd := m.optional(cwdKeys); cwd != "" {
		if filepath.IsAbs(cwd) || cwd == "~" || strings.HasPrefix(cwd, "~/") {
			dir = cwd
		} else {
			dir = filepath.Join(m.env.Dir, cwd)
		}
	}
	if dir != "" && filepath.Clean(dir) != filepath.Clean(m.env.Workspace) {
		cmd = "cd " + shellQuote(dir) + " && " + cmd
	}
	return action.ExecuteCommand, map[string]any{"command": cmd}, nil
}

// commandString reads a command given as a string or as an argv array.
func commandString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return "", errors.New("empty command")
		}
		return s, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil || len(argv) == 0 {
		return "", errors.New("command is neither a string nor a list of strings")
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " "), nil
}

func buildTransfer(t action.Type) func(*mapper, []string) (action.Type, map[string]any, error) {
	return func(m *mapper, got []string) (action.Type, map[string]any, error) {
		src, err := m.path(got[0])
		if err != nil {
			return "", nil, err
		}
		dst, err := m.path(got[1])
		if err != nil {
			return "", nil, err
		}
		return t, map[string]any{"source": src, "destination": dst}, nil
	}
}

func buildDownload(m *mapper, got []string) (action.Type, map[string]any, error) {
	u, err := m.str(got[0])
	if err != nil || !isHTTP(u) {
		return "", nil, errors.New("not an http(s) URL")
	}
	p, err := m.path(got[1])
	if err != nil {
		return "", nil, err
	}
	return "download_file", map[string]any{"url": u, "path": p}, nil
}

func buildEdit(m *mapper, got []string) (action.Type, map[string]any, error) {
	p, err := m.path(got[0])
	if err != nil {
		return "", nil, err
	}
	o, err1 := m.str(got[1])
	n, err2 := m.str(got[2])
	if err := errors.Join(err1, err2); err != nil {
		return "", nil, err
	}
	return action.EditFile, map[string]any{"path": p, "old": o, "new": n}, nil
}

// buildEdits maps a list of edits ({path, edits:[{oldText,newText}],
// dryRun}, server-filesystem's edit_file): one edit_file per edit, the
// first as the primary action. A dry run is judged as the edit it
// previews.
func buildEdits(m *mapper, got []string) (action.Type, map[string]any, error) {
	p, err := m.path(got[0])
	if err != nil {
		return "", nil, err
	}
	var edits []map[string]json.RawMessage
	if err := json.Unmarshal(m.args[got[1]], &edits); err != nil {
		return "", nil, fmt.Errorf("argument %q is not a list of edits", got[1])
	}
	payloads := make([]map[string]any, 0, len(edits))
	for i, e := range edits {
		o, n, err := editPair(e)
		if err != nil {
			return "", nil, fmt.Errorf("edit %d: %w", i, err)
		}
		payloads = append(payloads, map[string]any{"path": p, "old": o, "new": n})
	}
	m.flag("dryRun")
	m.flag("dry_run")
	if len(payloads) == 0 {
		return action.EditFile, map[string]any{"path": p}, nil
	}
	for _, pl := range payloads[1:] {
		r, err := request(action.EditFile, pl)
		if err != nil {
			return "", nil, err
		}
		m.more = append(m.more, r)
	}
	return action.EditFile, payloads[0], nil
}

// editPair reads one edit: an old and a new string and nothing else.
func editPair(e map[string]json.RawMessage) (string, string, error) {
	var o, n string
	var haveOld, haveNew bool
	for k, raw := range e {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", "", fmt.Errorf("field %q is not a string", k)
		}
		switch {
		case slices.Contains(oldKeys, k) && !haveOld:
			o, haveOld = s, true
		case slices.Contains(newKeys, k) && !haveNew:
			n, haveNew = s, true
		default:
			return "", "", fmt.Errorf("unexpected field %q", k)
		}
	}
	if !haveOld || !haveNew {
		return "", "", errors.New("wants an old and a new text")
	}
	return o, n, nil
}

// buildReadMany maps a list of paths to read: one read_file each.
func buildReadMany(m *mapper, got []string) (action.Type, map[string]any, error) {
	var raw []string
	if err := json.Unmarshal(m.args[got[0]], &raw); err != nil || len(raw) == 0 {
		return "", nil, fmt.Errorf("argument %q is not a non-empty list of paths", got[0])
	}
	paths := make([]string, len(raw))
	for i, r := range raw {
		p, err := m.place(r)
		if err != nil {
			return "", nil, err
		}
		paths[i] = p
	}
	for _, p := range paths[1:] {
		r, err := request(action.ReadFile, map[string]any{"path": p})
		if err != nil {
			return "", nil, err
		}
		m.more = append(m.more, r)
	}
	return action.ReadFile, map[string]any{"path": paths[0]}, nil
}

// excludes consumes a list of exclusion globs (strings only).
func (m *mapper) excludes() {
	k := m.first(excludeKeys)
	var globs []string
	if k != "" && json.Unmarshal(m.args[k], &globs) == nil {
		m.consumed[k] = true
	}
}

// pathWords are argument-name words that say the value is a path.
var pathWords = []string{"path", "paths", "file", "files", "filename", "filepath", "dir", "dirs",
	"directory", "directories", "folder", "cwd"}

// pathWrites finds the path-like strings in the arguments of an mcp_call
// (absolute, ~, a file URL, ./ or ../, any string under a path-named
// key, one that looks like a path under a placeKeys key, at any depth) and returns a write_file with no content for each:
// what an unknown tool does at a path is judged as the worst it could,
// a write, so the guard, the denylist and the protected files always
// apply. A relative one with no known base is a PathError.
func (m *mapper) pathWrites(args json.RawMessage) ([]shield.Request, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	var paths []string
	var werr error
	var memo keyMemo
	seen := map[string]bool{} // placing may read the disk: once per string
	done := eachString(v, func(key, s string) bool {
		if seen[s] || !memo.pathLike(key, s) {
			return true
		}
		seen[s] = true
		p, err := m.place(s)
		if err != nil {
			werr = err
			return false
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
		return true
	})
	if werr != nil {
		return nil, werr
	}
	if !done {
		// Only the depth bound stops the walk without an error: the paths
		// below it were not seen, so nothing is judged.
		return nil, fmt.Errorf("decode arguments: %w: more than %d levels", action.ErrTooDeep, maxWalkDepth)
	}
	out := make([]shield.Request, 0, len(paths))
	for _, p := range paths {
		r, err := request(action.WriteFile, map[string]any{"path": p, "content": ""})
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// placeKeys are argument names that say where a tool reads or puts
// something; their value is a path when it looks like one (a slash or a
// leading dot): "target": ".git/hooks/pre-commit", not "target": "fr".
var placeKeys = map[string]bool{"source": true, "src": true, "destination": true, "dest": true, "dst": true,
	"target": true, "output": true}

// pathLike reports whether a string argument under key names a path.
func pathLike(key, s string) bool { return new(keyMemo).pathLike(key, s) }

// keyFacts is what an argument name says of the strings under it.
type keyFacts struct {
	pathNamed bool // a path word ("path", "file", …) is in the name
	place     bool // a placeKeys name
}

// keyMemo examines each argument name once. A walk passes the same key
// to every string under it; examining it per string cost its length per
// string (a 30 KB key over 4,000 strings: 2.6 GB and 2 s).
type keyMemo struct {
	key string
	f   keyFacts
	ok  bool
}

// pathLike is the package's pathLike with the facts of key remembered.
func (m *keyMemo) pathLike(key, s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	if action.IsFileURL(s) {
		return true
	}
	if strings.Contains(s, "://") {
		return false
	}
	if !m.ok || key != m.key {
		m.key, m.f, m.ok = key, keyFacts{place: placeKeys[strings.ToLower(key)]}, true
		words := nameWords(key)
		for _, w := range pathWords {
			m.f.pathNamed = m.f.pathNamed || words[w]
		}
	}
	if m.f.pathNamed {
		return true
	}
	if strings.ContainsAny(s, "\n\x00") || len(s) > 4096 {
		return false // text that happens to start like a path
	}
	if m.f.place && (strings.Contains(s, "/") || strings.HasPrefix(s, ".")) {
		return true
	}
	return s == "~" || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "/") ||
		strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || s == "." || s == ".."
}

func buildWrite(m *mapper, got []string) (action.Type, map[string]any, error) {
	p, err := m.path(got[0])
	if err != nil {
		return "", nil, err
	}
	c, err := m.str(got[1])
	if err != nil {
		return "", nil, err
	}
	payload := map[string]any{"path": p, "content": c}
	if m.words["append"] || m.flag("append") {
		payload["append"] = true
	}
	return action.WriteFile, payload, nil
}

// buildPathRecursive builds the actions that take a path and an optional
// recursive flag (delete_file, list_directory).
func buildPathRecursive(t action.Type) func(*mapper, []string) (action.Type, map[string]any, error) {
	return func(m *mapper, got []string) (action.Type, map[string]any, error) {
		p, err := m.path(got[0])
		if err != nil {
			return "", nil, err
		}
		payload := map[string]any{"path": p}
		if m.flag("recursive") || t == action.ListDirectory && m.words["tree"] {
			payload["recursive"] = true
		}
		if t == action.ListDirectory {
			m.excludes() // they narrow what is listed
		}
		return t, payload, nil
	}
}

func buildSearch(m *mapper, got []string) (action.Type, map[string]any, error) {
	p, err := m.path(got[0])
	if err != nil {
		return "", nil, err
	}
	pat, err := m.str(got[1])
	if err != nil {
		return "", nil, err
	}
	m.excludes() // they narrow what is searched
	return action.SearchFiles, map[string]any{"path": p, "pattern": pat}, nil
}

func buildPathOnly(t action.Type) func(*mapper, []string) (action.Type, map[string]any, error) {
	return func(m *mapper, got []string) (action.Type, map[string]any, error) {
		p, err := m.path(got[0])
		if err != nil {
			return "", nil, err
		}
		return t, map[string]any{"path": p}, nil
	}
}

func buildHTTP(m *mapper, got []string) (action.Type, map[string]any, error) {
	u, err := m.str(got[0])
	if err != nil {
		return "", nil, err
	}
	if action.IsFileURL(u) {
		p, err := m.path(got[0])
		if err != nil {
			return "", nil, err
		}
		return action.ReadFile, map[string]any{"path": p}, nil
	}
	if !isHTTP(u) {
		return "", nil, errors.New("not an http(s) URL")
	}
	method := strings.ToUpper(m.optional([]string{"method"}))
	if method == "" {
		method = "GET"
	}
	payload := map[string]any{"method": method, "url": u}
	if raw, ok := m.args["headers"]; ok {
		var h map[string]string
		if json.Unmarshal(raw, &h) == nil {
			payload["headers"] = h
			m.consumed["headers"] = true
		}
	}
	for _, k := range []string{"body", "data", "json"} {
		raw, ok := m.args[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			payload["body"] = s
		} else {
			payload["body"] = string(raw)
		}
		m.consumed[k] = true
		break
	}
	return action.HTTPRequest, payload, nil
}

func isHTTP(u string) bool {
	l := strings.ToLower(u)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// request builds a gate request from a type and a payload.
func request(t action.Type, payload map[string]any) (shield.Request, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return shield.Request{}, fmt.Errorf("encode %s payload: %w", t, err)
	}
	return shield.Request{Type: string(t), Payload: b}, nil
}

// mcpCall builds an mcp_call request carrying args.
func mcpCall(server, tool string, args json.RawMessage) (shield.Request, error) {
	b, err := json.Marshal(struct {
		Server    string          `json:"server"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}{server, tool, args})
	if err != nil {
		return shield.Request{}, fmt.Errorf("encode mcp_call payload: %w", err)
	}
	return shield.Request{Type: string(action.MCPCall), Payload: b}, nil
}

// objectFields decodes a JSON object's members, refusing duplicates (a
// server could read a different one than the gate judged) and anything
// that is not an object.
func objectFields(raw json.RawMessage) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return out, nil
	}
	if b[0] != '{' {
		return nil, errors.New("must be a JSON object")
	}
	if err := checkDuplicates(b); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return out, nil
}

// checkDuplicates walks the JSON value and refuses an object that names a
// key twice, at any depth.
func checkDuplicates(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		seen := map[string]bool{}
		for dec.More() {
			if d == '{' {
				kt, err := dec.Token()
				if err != nil {
					return fmt.Errorf("decode: %w", err)
				}
				k, _ := kt.(string)
				if seen[k] {
					return fmt.Errorf("duplicate key %q", k)
				}
				seen[k] = true
			}
			if err := walk(); err != nil {
				return err
			}
		}
		_, err = dec.Token() // closing delimiter
		return err
	}
	return walk()
}

// nameWords splits a tool name into lower-case words at _, -, ., /,
// spaces and camelCase boundaries.
func nameWords(name string) map[string]bool {
	words := map[string]bool{}
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words[strings.ToLower(string(cur))] = true
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) ||
			(i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// plainWord is what a shell word may be without quotes.
var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`) })

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if plainWord().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
