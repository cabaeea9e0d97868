package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/atomicfile"
	"github.com/parallax/parallax/internal/flock"
)

// Setting is one configuration key to set: a dotted path into
// config.yaml ("agent.max_tool_rounds") and its value as YAML ("40",
// "on", "[a, b]").
type Setting struct{ Key, Value string }

// SetOptions say who changes the configuration and when.
type SetOptions struct {
	// Session, when set, is the chat session the change comes from
	// (/config set, /model). Only the keys of SessionKeys can be changed
	// from a session; security keys (policy, approval, judge, budgets,
	// the sandbox, model endpoints, command caches) cannot.
	Session string
	// Now is the clock for backup names (default time.Now).
	Now func() time.Time
}

// ConfigChange is what SetConfig did.
type ConfigChange struct {
	// Keys are the keys set, sorted.
	Keys []string
	// Before and After are the file's digests ("none" when it did not
	// exist).
	Before, After string
	// Backup is the copy of the previous file ("" when there was none or
	// nothing changed).
	Backup string
	// Unchanged is set when the file already said all that.
	Unchanged bool
}

// ErrSecurityKey refuses a change to a security key from a session.
var ErrSecurityKey = errors.New("a security setting cannot be changed from inside a session")

// keepBackups is how many previous config files are kept.
const keepBackups = 100

var keySyntax = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`)

// SessionKeys are the keys a session may change: the model it talks to
// and the conversation's limits. Everything else is a security key.
func SessionKeys() []string {
	return []string{"llm.roles.chat", "agent.max_tool_rounds", "agent.context_tokens", "agent.compact_at",
		"agent.max_response_tokens", "agent.command.timeout", "agent.command.output_cap"}
}

// SetConfig is the one writer of config.yaml. It applies sets to the
// file (comments and order kept), refuses a result that would not load,
// then, with the workspace's audit chain open and the config lock held:
// keeps a backup of the previous file (the last 100), writes the new one
// atomically, reloads it to verify, and records a ConfigChanged entry
// with the keys and the file's digests (never values). A failure after
// the write puts the previous file back.
func SetConfig(ctx context.Context, root string, sets []Setting, opt SetOptions) (ch ConfigChange, err error) {
	if len(sets) == 0 {
		return ch, errors.New("config set: no key given")
	}
	for _, s := range sets {
		if !keySyntax.MatchString(s.Key) {
			return ch, fmt.Errorf("config set: %q is not a key (dotted lower-case names such as agent.max_tool_rounds)", s.Key)
		}
		if opt.Session != "" && !slices.Contains(SessionKeys(), s.Key) {
			return ch, fmt.Errorf("config set %s: %w; edit %s outside the session (parallax config set)",
				s.Key, ErrSecurityKey, ConfigPath(root))
		}
		ch.Keys = append(ch.Keys, s.Key)
	}
	sort.Strings(ch.Keys)
	if opt.Now == nil {
		opt.Now = time.Now
	}
	unlock, err := lockConfig(root)
	if err != nil {
		return ch, err
	}
	defer unlock()
	path := ConfigPath(root)
	before, old, err := FileDigest(path)
	if err != nil {
		return ch, err
	}
	next, want, err := applySettings(path, old, sets)
	if err != nil {
		return ch, err
	}
	ch.Before = before
	if old != nil && bytes.Equal(next, old) {
		ch.After, ch.Unchanged = before, true
		return ch, nil
	}
	log, err := OpenChain(root, "configuration change")
	if err != nil {
		return ch, err
	}
	defer func() { err = errors.Join(err, log.Close()) }()
	if old != nil {
		if ch.Backup, err = backupConfig(root, old, opt.Now()); err != nil {
			return ch, err
		}
	}
	if err := atomicfile.Write(path, next, 0o600); err != nil {
		return ch, err
	}
	ch.After, _, err = FileDigest(path)
	if err == nil {
		err = verifyReload(root, want)
	}
	if err == nil {
		code, msg := "config_set", fmt.Sprintf("keys %s; file before %s after %s", strings.Join(ch.Keys, ", "), before, ch.After)
		if opt.Session != "" {
			code, msg = "config_set_session", msg+"; from session "+opt.Session
		}
		_, err = log.Append(context.WithoutCancel(ctx), audit.Event{Type: audit.ConfigChanged, Stage: "human",
			Rule: "config_set", Session: opt.Session, Detail: audit.Detail{Code: code, Path: path, Ref: ch.After, Message: msg}})
	}
	if err != nil {
		undo := atomicfile.Write(path, old, 0o600)
		if old == nil {
			undo = os.Remove(path)
		}
		return ch, errors.Join(fmt.Errorf("config set: the change was undone: %w", err), undo)
	}
	return ch, nil
}

// applySettings returns the file with sets applied and what it decodes to.
func applySettings(path string, old []byte, sets []Setting) ([]byte, Config, error) {
	var doc yaml.Node
	src := old
	if src == nil {
		src = []byte("version: 1\npolicy: default\n")
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	for _, s := range sets {
		val, err := oneValue(s.Value)
		if err != nil {
			return nil, Config{}, fmt.Errorf("config set %s: the value is not one YAML value: %q", s.Key, s.Value)
		}
		if err := setKey(doc.Content[0], strings.Split(s.Key, "."), val.Content[0]); err != nil {
			return nil, Config{}, fmt.Errorf("config set %s: %w", s.Key, err)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, Config{}, fmt.Errorf("config set: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, Config{}, fmt.Errorf("config set: encode: %w", err)
	}
	cfg, err := ParseConfig(path, buf.Bytes())
	if err != nil {
		return nil, Config{}, fmt.Errorf("config set: refused, the file would not load: %w", err)
	}
	return buf.Bytes(), cfg, nil
}

// oneValue parses v as exactly one YAML document holding one value.
func oneValue(v string) (yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(v))
	var val, extra yaml.Node
	if err := dec.Decode(&val); err != nil || len(val.Content) != 1 {
		return val, errors.New("not one value")
	}
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return val, errors.New("more than one document")
	}
	return val, nil
}

// setKey sets path in the mapping m to val, creating mappings on the way.
func setKey(m *yaml.Node, path []string, val *yaml.Node) error {
	if m.Kind != yaml.MappingNode {
		return errors.New("the file's top level is not a mapping")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != path[0] {
			continue
		}
		if len(path) == 1 {
			m.Content[i+1] = val
			return nil
		}
		next := m.Content[i+1]
		if next.Kind != yaml.MappingNode {
			if next.Tag != "!!null" {
				return fmt.Errorf("%s holds a value, not a block of keys", path[0])
			}
			*next = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		return setKey(next, path[1:], val)
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: path[0]}
	if len(path) == 1 {
		m.Content = append(m.Content, key, val)
		return nil
	}
	child := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, key, child)
	return setKey(child, path[1:], val)
}

// verifyReload reads the file back and checks it says what was written.
func verifyReload(root string, want Config) error {
	got, err := LoadConfig(root)
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	if !reflect.DeepEqual(got, want) {
		return errors.New("reload: the file read back differs from the one written")
	}
	return nil
}

// backupConfig copies the previous file to backups/config/ and keeps the
// newest keepBackups copies.
func backupConfig(root string, old []byte, now time.Time) (string, error) {
	dir := filepath.Join(StateDir(root), backupsDir, "config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("config backup: %w", err)
	}
	base := "config-" + now.UTC().Format("20060102T150405.000000000Z")
	name := filepath.Join(dir, base+".yaml")
	for n := 1; ; n++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = filepath.Join(dir, fmt.Sprintf("%s-%d.yaml", base, n))
	}
	if err := atomicfile.Write(name, old, 0o600); err != nil {
		return "", fmt.Errorf("config backup: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return name, fmt.Errorf("config backup: list %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "config-") && strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names) // the time stamp sorts
	for len(names) > keepBackups {
		if err := os.Remove(filepath.Join(dir, names[0])); err != nil {
			return name, fmt.Errorf("config backup: prune: %w", err)
		}
		names = names[1:]
	}
	return name, nil
}

// lockConfig serialises writers of config.yaml.
func lockConfig(root string) (func(), error) {
	p := filepath.Join(StateDir(root), "config.lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600) //nolint:gosec // the workspace's own lock file
	if err != nil {
		return nil, fmt.Errorf("config set: lock: %w", err)
	}
	if err := flock.Lock(f, true); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("config set: lock: %w", err)
	}
	return func() { _ = flock.Unlock(f); _ = f.Close() }, nil
}
