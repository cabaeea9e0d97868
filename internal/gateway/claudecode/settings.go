package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parallax/parallax/internal/atomicfile"
)

// matcherGroup and commandHook are the entry Install adds, with keys in
// the order Claude Code's documentation writes them.
type matcherGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []commandHook `json:"hooks"`
}

type commandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout (seconds) is written explicitly: Claude Code runs a tool
	// unchecked once a hook outlasts it, so the hook's own deadline
	// (30 s, after which it denies) must be known to lie well inside it.
	Timeout int `json:"timeout,omitempty"`
}

// HookTimeoutSeconds is the timeout Install writes into each entry.
const HookTimeoutSeconds = 60

// HookCommand is the settings command that runs the hook with binary (an
// absolute path), quoted for the shell Claude Code runs it with.
func HookCommand(binary string) string {
	return shellWord(binary) + " hook claude-code"
}

func shellWord(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._+-", c) >= 0) {
			return shellQuote(s)
		}
	}
	return s
}

// IsHookCommand reports whether a settings command runs the Parallax
// hook: any binary followed by "hook claude-code" (the form HookCommand
// writes), whatever the binary's path.
func IsHookCommand(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 3 && f[len(f)-2] == "hook" && f[len(f)-1] == "claude-code"
}

// Install registers command as a hook (matcher "*") for every event of
// Events (PreToolUse, PostToolUse, PostToolUseFailure) in the Claude Code
// settings file at path, creating it when missing. Any other Parallax
// hook entry (IsHookCommand: an older binary, another path) is removed,
// under every event, so installing with another binary replaces the old
// entry. It is idempotent: an event that already has exactly this
// command keeps it. Everything else in the file is kept: keys keep their
// order and values their content; only whitespace is rewritten
// (two-space indentation, as Claude Code writes it). The file is
// replaced atomically and keeps its mode (new files: 0600). It reports
// whether the file changed.
func Install(path, command string) (bool, error) {
	return editSettings(path, func(hooks *object) (bool, error) {
		changed, err := removeHooks(hooks, func(event string, hk commandHook) bool {
			return IsHookCommand(hk.Command) && (hk.Command != command || hk.Timeout != HookTimeoutSeconds ||
				!slices.Contains(Events(), event))
		})
		if err != nil {
			return false, err
		}
		for _, ev := range Events() {
			groups, err := hooks.array(ev)
			if err != nil {
				return false, err
			}
			if hasCommand(groups, command) {
				continue
			}
			g, _ := json.Marshal(matcherGroup{Matcher: "*", Hooks: []commandHook{{"command", command, HookTimeoutSeconds}}}) // always marshals
			hooks.set(ev, mustArray(append(groups, g)))
			changed = true
		}
		return changed, nil
	})
}

// Uninstall removes every Parallax hook entry (IsHookCommand, whatever
// its binary) under every event of the settings file at path; a matcher
// group left without hooks is removed, then an empty event list, then an
// empty "hooks" object. Nothing else changes. A missing file is no
// change. It reports whether the file changed.
func Uninstall(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return editSettings(path, func(hooks *object) (bool, error) {
		return removeHooks(hooks, func(_ string, hk commandHook) bool { return IsHookCommand(hk.Command) })
	})
}

// HasHook reports whether the settings file at path holds a Parallax
// hook entry (IsHookCommand) under any event. A missing file holds none;
// a file that cannot be read or parsed is an error. The file is not
// changed.
func HasHook(path string) (bool, error) {
	found := false
	_, err := editSettings(path, func(hooks *object) (bool, error) {
		var err error
		found, err = removeHooks(hooks, func(_ string, hk commandHook) bool { return IsHookCommand(hk.Command) })
		return false, err // an edit of the copy in memory only: nothing is written
	})
	return found, err
}

// removeHooks drops the command hooks drop selects from every event of
// hooks, then matcher groups left empty, then empty event lists.
func removeHooks(hooks *object, drop func(event string, hk commandHook) bool) (bool, error) {
	changed := false
	for _, ev := range slices.Clone(hooks.keys) {
		groups, err := hooks.array(ev)
		if err != nil {
			return false, err
		}
		kept, here := groups[:0:0], false
		for _, g := range groups {
			ng, removed, empty := removeCommands(g, func(hk commandHook) bool { return drop(ev, hk) })
			here = here || removed
			if !empty {
				kept = append(kept, ng)
			}
		}
		switch {
		case !here:
		case len(kept) == 0:
			hooks.del(ev)
		default:
			hooks.set(ev, mustArray(kept))
		}
		changed = changed || here
	}
	return changed, nil
}

// editSettings reads the settings file, hands its "hooks" object to edit
// and writes the file back when edit changed something.
func editSettings(path string, edit func(hooks *object) (bool, error)) (bool, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the settings file the user named
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	root, err := parseObject(b)
	if err != nil {
		return false, fmt.Errorf("%s: %w; fix it by hand, nothing was changed", path, err)
	}
	hooks := &object{vals: map[string]json.RawMessage{}}
	if raw, ok := root.vals["hooks"]; ok {
		if hooks, err = parseObject(raw); err != nil {
			return false, fmt.Errorf("%s: \"hooks\": %w; fix it by hand, nothing was changed", path, err)
		}
	}
	changed, err := edit(hooks)
	if err != nil {
		return false, fmt.Errorf("%s: %w; fix it by hand, nothing was changed", path, err)
	}
	if !changed {
		return false, nil
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.encode())
	}
	var out bytes.Buffer
	if err := json.Indent(&out, root.encode(), "", "  "); err != nil {
		return false, fmt.Errorf("encode %s: %w", path, err)
	}
	out.WriteByte('\n')
	if err := writeAtomic(path, out.Bytes()); err != nil {
		return false, err
	}
	return true, nil
}

// hasCommand reports whether a matcher group holds a command hook with
// exactly command.
func hasCommand(groups []json.RawMessage, command string) bool {
	for _, g := range groups {
		var grp struct {
			Hooks []commandHook `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil {
			continue
		}
		for _, h := range grp.Hooks {
			if h.Type == "command" && h.Command == command && h.Timeout == HookTimeoutSeconds {
				return true
			}
		}
	}
	return false
}

// removeCommands drops the command hooks whose command drop selects
// from one matcher group. empty says the group has no hooks left because
// of that. A group it cannot read is returned unchanged.
func removeCommands(g json.RawMessage, drop func(hk commandHook) bool) (out json.RawMessage, removed, empty bool) {
	grp, err := parseObject(g)
	if err != nil {
		return g, false, false
	}
	var hooks []json.RawMessage
	if json.Unmarshal(grp.vals["hooks"], &hooks) != nil {
		return g, false, false
	}
	kept := hooks[:0:0]
	for _, h := range hooks {
		var hk commandHook
		if json.Unmarshal(h, &hk) == nil && hk.Type == "command" && drop(hk) {
			removed = true
			continue
		}
		kept = append(kept, h)
	}
	if !removed {
		return g, false, false
	}
	if len(kept) == 0 {
		return nil, true, true
	}
	grp.set("hooks", mustArray(kept))
	return grp.encode(), true, false
}

// object is a JSON object that keeps its key order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject reads one JSON object, refusing duplicate keys and
// trailing data.
func parseObject(b []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		k, _ := kt.(string)
		if _, dup := o.vals[k]; dup {
			return nil, fmt.Errorf("key %q appears twice", k)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("invalid JSON at key %q: %w", k, err)
		}
		o.keys = append(o.keys, k)
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON object")
	}
	return o, nil
}

// array reads key as an array (missing: empty).
func (o *object) array(key string) ([]json.RawMessage, error) {
	raw, ok := o.vals[key]
	if !ok {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("\"hooks\".%q is not an array", key)
	}
	return list, nil
}

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// encode writes the object compactly, keys in order.
func (o *object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k) // strings always marshal
		b.Write(kb)
		b.WriteByte(':')
		_ = json.Compact(&b, o.vals[k]) // values came from the decoder: valid JSON
	}
	b.WriteByte('}')
	return b.Bytes()
}

func mustArray(list []json.RawMessage) json.RawMessage {
	if list == nil {
		list = []json.RawMessage{}
	}
	b, _ := json.Marshal(list) // raw values from the decoder always marshal
	return b
}

// writeAtomic replaces path with data, keeping the mode of the file it
// replaces (0600 for a new one). A symlinked settings file is written
// through to its target.
func writeAtomic(path string, data []byte) error {
	target := path
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return fmt.Errorf("resolve %s: %w", path, err)
		}
	}
	return atomicfile.Write(target, data, 0o600)
}

// HookBinaries lists the binaries of the Parallax hook entries
// (IsHookCommand) of the settings file at path, as HookCommand wrote
// them (a single-quoted word unquoted). A missing file has none.
func HookBinaries(path string) ([]string, error) {
	b, err := os.ReadFile(path) //nolint:gosec // a settings file of the workspace or home
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []commandHook `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Type != "command" || !IsHookCommand(h.Command) {
					continue
				}
				bin := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(h.Command), "hook claude-code"))
				if len(bin) >= 2 && bin[0] == '\'' && bin[len(bin)-1] == '\'' {
					bin = strings.ReplaceAll(bin[1:len(bin)-1], `'\''`, "'")
				}
				if !slices.Contains(out, bin) {
					out = append(out, bin)
				}
			}
		}
	}
	return out, nil
}
