package mcpproxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parallax/parallax/internal/atomicfile"
	"github.com/parallax/parallax/internal/flock"
)

// PinsVersion is the format version of pins.json.
const PinsVersion = 1

// Why a tool is pending approval.
const (
	PendingChanged  = "changed"  // its definition differs from the pinned one (rug pull)
	PendingPoisoned = "poisoned" // its definition reads as instructions to the agent
)

// maxPinnedText bounds the description kept for review in pins.json.
const maxPinnedText = 2048

// PinFile is .parallax/mcp/pins.json: per server, the hash of every tool
// definition it was trusted with, and the definitions waiting for a human.
type PinFile struct {
	Version int                    `json:"version"`
	Servers map[string]*ServerPins `json:"servers"`
}

// ServerPins are the pins of one server identity.
type ServerPins struct {
	// Command is the server command line, DLP-redacted, for humans.
	Command string `json:"command,omitempty"`
	// Name and ServerVersion are what the server said at initialize.
	Name          string                 `json:"name,omitempty"`
	ServerVersion string                 `json:"server_version,omitempty"`
	Tools         map[string]ToolPin     `json:"tools"`
	Pending       map[string]PendingTool `json:"pending,omitempty"`
	// Trusted are the tools whose escalations a human lifted in advance
	// (parallax mcp trust), each for one definition: the trust is void
	// once the definition's hash changes.
	Trusted map[string]ToolTrust `json:"trusted,omitempty"`
}

// ToolTrust is a standing approval of a tool's escalations (never of a
// BLOCK), for the definition with Hash.
type ToolTrust struct {
	Hash      string    `json:"hash"`
	TrustedAt time.Time `json:"trusted_at"`
}

// ErrNotPinned is returned by Trust for a tool with no pinned definition.
var ErrNotPinned = errors.New("no pinned definition")

// Trust records a standing approval of tool's escalations on server, for
// its pinned definition. A tool held for review cannot be trusted.
func Trust(ctx context.Context, s PinStore, server, tool string, now time.Time) (ToolTrust, error) {
	var got ToolTrust
	err := s.Update(ctx, server, func(sp *ServerPins) error {
		if _, held := sp.Pending[tool]; held {
			return fmt.Errorf("trust %s on %s: its definition is held for review; run `parallax mcp pins approve %s %s` first",
				tool, server, server, tool)
		}
		pin, ok := sp.Tools[tool]
		if !ok {
			return fmt.Errorf("trust %s on %s: %w (run the proxy once so it pins the tool)", tool, server, ErrNotPinned)
		}
		got = ToolTrust{Hash: pin.Hash, TrustedAt: now.UTC()}
		if sp.Trusted == nil {
			sp.Trusted = map[string]ToolTrust{}
		}
		sp.Trusted[tool] = got
		return nil
	})
	return got, err
}

// Untrust removes the standing approval of tool on server; ok is false
// when there was none.
func Untrust(ctx context.Context, s PinStore, server, tool string) (ok bool, err error) {
	err = s.Update(ctx, server, func(sp *ServerPins) error {
		_, ok = sp.Trusted[tool]
		delete(sp.Trusted, tool)
		return nil
	})
	return ok, err
}

// Trusted reports whether tool on server is trusted for the definition
// with hash.
func (pf *PinFile) Trusted(server, tool, hash string) bool {
	sp := pf.Servers[server]
	if sp == nil || hash == "" {
		return false
	}
	t, ok := sp.Trusted[tool]
	return ok && t.Hash == hash
}

// ToolPin is a trusted tool definition.
type ToolPin struct {
	Hash        string    `json:"hash"`
	PinnedAt    time.Time `json:"pinned_at"`
	Approved    bool      `json:"approved,omitempty"` // by a human (pins approve), not on first use
	Description string    `json:"description,omitempty"`
	// HashVersion is HashVersion when Hash covers the output schema,
	// _meta and icons (0: a pin from before; see v1Definition).
	HashVersion int `json:"hash_version,omitempty"`
}

// HashVersion is the version of ToolHash that pins record: 2 covers the
// output schema, _meta and icons too.
const HashVersion = 2

// PendingTool is a definition held until a human approves it.
type PendingTool struct {
	Hash        string    `json:"hash"`
	Reason      string    `json:"reason"` // PendingChanged or PendingPoisoned
	Rules       []string  `json:"rules,omitempty"`
	SeenAt      time.Time `json:"seen_at"`
	Description string    `json:"description,omitempty"`
	HashVersion int       `json:"hash_version,omitempty"` // as ToolPin's
}

// PinStore keeps pins. Update runs fn on the current pins of one server
// (created empty when unknown) and saves what fn leaves, atomically with
// respect to other processes using the same store.
type PinStore interface {
	Update(ctx context.Context, server string, fn func(*ServerPins) error) error
	Load(ctx context.Context) (*PinFile, error)
}

// ErrNoPending is returned by Approve for a tool with nothing to approve.
var ErrNoPending = errors.New("nothing to approve")

// serverIDPattern is what a server identity may be: it names the server
// in pins.json, the audit chain and `parallax mcp pins approve`.
var serverIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// nonIDChars are replaced in a program name that becomes part of an id.
var nonIDChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// CheckServerID refuses identities outside [A-Za-z0-9._-] (64 bytes).
func CheckServerID(id string) error {
	if !serverIDPattern().MatchString(id) {
		return fmt.Errorf("server name %q: want 1-64 of [A-Za-z0-9._-], starting with a letter or digit", id)
	}
	return nil
}

// ServerID derives the identity of a server from its command line: the
// program's base name and the first 8 bytes of the SHA-256 of the
// NUL-joined argv. The same command line keeps its pins across runs; a
// different one starts its own.
func ServerID(argv []string) string {
	h := sha256.New()
	for _, a := range argv {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	base := "server"
	if len(argv) > 0 {
		base = nonIDChars().ReplaceAllString(filepath.Base(argv[0]), "_")
		base = trimTo(base, 40)
		if base == "" || base[0] == '.' || base[0] == '_' || base[0] == '-' {
			base = "server" + base
		}
	}
	return base + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// ToolHash is the SHA-256 of a tool's canonical definition, as JSON with
// sorted keys: everything the proxy serves of it (name, title,
// description, input schema, annotations, and the output schema, _meta
// and icons when it has them). Any change a client could show the agent
// changes the hash.
func ToolHash(t *mcp.Tool) (string, error) {
	def := v1Definition(t)
	if t.OutputSchema != nil {
		def["outputSchema"] = t.OutputSchema
	}
	if len(t.Meta) > 0 {
		def["_meta"] = t.Meta
	}
	if len(t.Icons) > 0 {
		def["icons"] = t.Icons
	}
	return hashDefinition(t.Name, def)
}

// v1Definition is what pins covered before the output schema, _meta and
// icons were pinned. A tool without those hashes as it did then; one
// with them gets a new hash, which decide accepts once (repinned) for a
// pin made before (HashVersion 0) that is its v1 hash, when what was
// added reads as no orders.
func v1Definition(t *mcp.Tool) map[string]any {
	return map[string]any{"name": t.Name, "title": t.Title, "description": t.Description,
		"inputSchema": t.InputSchema, "annotations": t.Annotations}
}

// v1ToolHash is ToolHash as it was before the output schema, _meta and
// icons were pinned (see v1Definition).
func v1ToolHash(t *mcp.Tool) (string, error) { return hashDefinition(t.Name, v1Definition(t)) }

func hashDefinition(name string, def map[string]any) (string, error) {
	b, err := canonicalJSON(def)
	if err != nil {
		return "", fmt.Errorf("hash tool %q: %w", name, err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// canonicalJSON re-encodes v with object keys sorted at every level and
// numbers as written.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic) // maps encode with sorted keys
}

// Approve moves the pending definition of tool on server to the pins.
func Approve(ctx context.Context, s PinStore, server, tool string, now time.Time) (PendingTool, error) {
	var got PendingTool
	err := s.Update(ctx, server, func(sp *ServerPins) error {
		p, ok := sp.Pending[tool]
		if !ok {
			return fmt.Errorf("approve %s on %s: %w (no held definition)", tool, server, ErrNoPending)
		}
		got = p
		sp.Tools[tool] = ToolPin{Hash: p.Hash, PinnedAt: now.UTC(), Approved: true, Description: p.Description, HashVersion: p.HashVersion}
		delete(sp.Pending, tool)
		return nil
	})
	return got, err
}

// FilePins keeps pins in a JSON file (mode 0600, in a 0700 directory).
// Updates hold an exclusive lock on a sibling .lock file and replace the
// file by rename, so readers never see half a file and two proxies never
// lose each other's pins.
type FilePins struct{ Path string }

var _ PinStore = FilePins{}

// Load reads the file; a missing file is an empty set of pins.
func (f FilePins) Load(_ context.Context) (*PinFile, error) {
	return readPins(f.Path)
}

// Update runs fn under the lock and writes the result.
func (f FilePins) Update(_ context.Context, server string, fn func(*ServerPins) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("update pins %s: %w", f.Path, err)
	}
	lock, err := os.OpenFile(f.Path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("update pins %s: %w", f.Path, err)
	}
	defer func() { err = errors.Join(err, lock.Close()) }()
	if err := flock.Lock(lock, true); err != nil {
		return fmt.Errorf("update pins %s: %w", f.Path, err)
	}
	defer func() { err = errors.Join(err, flock.Unlock(lock)) }()
	pf, err := readPins(f.Path)
	if err != nil {
		return err
	}
	before, err := json.Marshal(pf)
	if err != nil {
		return fmt.Errorf("update pins %s: %w", f.Path, err)
	}
	if err := fn(pf.server(server)); err != nil {
		return err
	}
	after, err := json.MarshalIndent(pf, "", "  ")
	if err != nil {
		return fmt.Errorf("update pins %s: %w", f.Path, err)
	}
	if compact, _ := json.Marshal(pf); bytes.Equal(compact, before) {
		return nil // nothing changed: no write
	}
	return atomicfile.Write(f.Path, append(after, '\n'), 0o600)
}

// readPins reads and checks a pins file strictly.
func readPins(path string) (*PinFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &PinFile{Version: PinsVersion, Servers: map[string]*ServerPins{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pins %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var pf PinFile
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("read pins %s: %w", path, err)
	}
	if pf.Version != PinsVersion {
		return nil, fmt.Errorf("read pins %s: version %d is not supported (want %d)", path, pf.Version, PinsVersion)
	}
	if pf.Servers == nil {
		pf.Servers = map[string]*ServerPins{}
	}
	for id, sp := range pf.Servers {
		if err := CheckServerID(id); err != nil || sp == nil {
			return nil, fmt.Errorf("read pins %s: bad server entry %q", path, id)
		}
	}
	return &pf, nil
}

// server returns the pins of id, creating them.
func (pf *PinFile) server(id string) *ServerPins {
	sp := pf.Servers[id]
	if sp == nil {
		sp = &ServerPins{}
		pf.Servers[id] = sp
	}
	if sp.Tools == nil {
		sp.Tools = map[string]ToolPin{}
	}
	if sp.Pending == nil {
		sp.Pending = map[string]PendingTool{}
	}
	return sp
}

// MemoryPins keeps pins for the life of the process (--no-workspace).
type MemoryPins struct {
	mu sync.Mutex
	pf *PinFile
}

var _ PinStore = (*MemoryPins)(nil)

// NewMemoryPins returns an empty in-memory store.
func NewMemoryPins() *MemoryPins {
	return &MemoryPins{pf: &PinFile{Version: PinsVersion, Servers: map[string]*ServerPins{}}}
}

// Update runs fn on a copy and keeps it when fn succeeds.
func (m *MemoryPins) Update(_ context.Context, server string, fn func(*ServerPins) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp, err := clonePins(m.pf)
	if err != nil {
		return err
	}
	if err := fn(cp.server(server)); err != nil {
		return err
	}
	m.pf = cp
	return nil
}

// Load returns a copy of the pins.
func (m *MemoryPins) Load(_ context.Context) (*PinFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return clonePins(m.pf)
}

func clonePins(pf *PinFile) (*PinFile, error) {
	b, err := json.Marshal(pf)
	if err != nil {
		return nil, fmt.Errorf("copy pins: %w", err)
	}
	var out PinFile
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("copy pins: %w", err)
	}
	if out.Servers == nil {
		out.Servers = map[string]*ServerPins{}
	}
	return &out, nil
}

// SortedServers returns the server ids of pf in order.
func (pf *PinFile) SortedServers() []string {
	ids := make([]string, 0, len(pf.Servers))
	for id := range pf.Servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// trimTo cuts s to at most n bytes at a rune boundary.
func trimTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
