package corpus

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
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Intents a case can have.
const (
	IntentAttack = "attack"
	IntentLegit  = "legit"
)

// Step is one proposed action of a case.
type Step struct {
	Type    string
	Payload json.RawMessage // the YAML payload mapping, as JSON
	Result  string          // what the tool returned, if it ran; optional
	// Session names a sub-agent session the step runs in ("" is the
	// case's own session); Parent names the session that spawned it
	// ("main" is the case's own).
	Session, Parent string
	Line            int
}

// Case is one corpus entry.
type Case struct {
	ID          string
	Category    string
	Intent      string
	Description string
	Must        bool
	// Policy is the preset the case is judged under (gate and flows);
	// "" is the runner's default.
	Policy string
	// Visible: the case is judged as the gate in front of an agent we do
	// not own judges it (the Claude Code hook, the MCP proxy, the HTTP
	// API), where an allowed command sees the workspace's .parallax
	// ("internals: visible"). By default ("hidden") it is judged as the
	// own agent's engine, whose per-command sandbox hides it.
	Visible bool
	// Env is the environment every step's command runs with
	// (shield.Request.Env), as the own agent's engine passes it: "env:
	// {TMPDIR: /tmp}" judges $TMPDIR and mktemp's names as the engine's
	// per-command sandbox sets them. Empty: the request carries none
	// (the hook, the MCP proxy, the HTTP API).
	Env    map[string]string
	Expect verdict.Decision
	Steps  []Step
	File   string
	Line   int
}

// Where renders file:line.
func (c *Case) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

var (
	caseKeys = []string{"id", "category", "intent", "description", "must", "policy", "internals", "env", "expect", "steps"}
	stepKeys = []string{"type", "payload", "result", "session", "parent"}
)

// Load reads cases from files and directories; directories are walked for
// *.yaml files in lexical order. It fails on the first malformed case and on
// ids used twice across everything loaded.
func Load(paths ...string) ([]Case, error) {
	if len(paths) == 0 {
		return nil, errors.New("load corpus: no paths given")
	}
	var out []Case
	seen := map[string]string{}
	for _, root := range paths {
		files, err := yamlFiles(root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			cases, err := loadFile(f.path, f.dir)
			if err != nil {
				return nil, err
			}
			for _, c := range cases {
				if prev, dup := seen[c.ID]; dup {
					return nil, fmt.Errorf("%s: duplicate case id %q (first at %s)", c.Where(), c.ID, prev)
				}
				seen[c.ID] = c.Where()
				out = append(out, c)
			}
		}
	}
	return out, nil
}

type corpusFile struct {
	path string
	dir  string // the directory a walked file sits in = its cases' category; "" for a named file
}

func yamlFiles(root string) ([]corpusFile, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	if !st.IsDir() {
		return []corpusFile{{path: root}}, nil
	}
	var out []corpusFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || filepath.Ext(p) != ".yaml" {
			return nil
		}
		// Cases found by walking must sit in their category's directory.
		out = append(out, corpusFile{path: p, dir: filepath.Base(filepath.Dir(p))})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load corpus %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

func loadFile(path, dir string) ([]Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	return Parse(path, dir, b)
}

// Parse decodes one corpus file's bytes: a single YAML document holding a
// list of cases. path names the file in errors and in each case's File; a
// non-empty dir requires every case's category to equal it. Duplicate ids
// across files are Load's concern.
func Parse(path, dir string, b []byte) ([]Case, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file: want a list of cases", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, fmt.Errorf("%s:%d: want one YAML document, found more", path, extra.Line)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty file: want a list of cases", path)
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of cases", path, list.Line)
	}
	out := make([]Case, 0, len(list.Content))
	for _, n := range list.Content {
		c, err := decodeCase(n)
		if err != nil {
			line := n.Line
			var le *lineError
			if errors.As(err, &le) {
				line = le.line
			}
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		c.File, c.Line = path, n.Line
		if dir != "" && c.Category != dir {
			return nil, fmt.Errorf("%s:%d: case %q: category %q does not match its directory %q",
				path, n.Line, c.ID, c.Category, dir)
		}
		out = append(out, c)
	}
	return out, nil
}

// lineError pins an error to a line more precise than its case's.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

func atLine(line int, err error) error { return &lineError{line, err} }

// checkKeys refuses keys outside allowed, naming the key's own line.
func checkKeys(n *yaml.Node, what string, allowed []string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s must be a mapping", what)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ok := false
		for _, a := range allowed {
			if k.Value == a {
				ok = true
				break
			}
		}
		if !ok {
			return atLine(k.Line, fmt.Errorf("unknown %s key %q (want one of %s)",
				what, k.Value, strings.Join(allowed, ", ")))
		}
	}
	return nil
}

type rawCase struct {
	ID          string            `yaml:"id"`
	Category    string            `yaml:"category"`
	Intent      string            `yaml:"intent"`
	Description string            `yaml:"description"`
	Must        bool              `yaml:"must"`
	Policy      string            `yaml:"policy"`
	Internals   string            `yaml:"internals"`
	Env         map[string]string `yaml:"env"`
	Expect      string            `yaml:"expect"`
	Steps       []yaml.Node       `yaml:"steps"`
}

func decodeCase(n *yaml.Node) (Case, error) {
	if err := checkKeys(n, "case", caseKeys); err != nil {
		return Case{}, err
	}
	var r rawCase
	if err := n.Decode(&r); err != nil {
		return Case{}, fmt.Errorf("decode case: %w", err)
	}
	c := Case{ID: r.ID, Category: r.Category, Intent: r.Intent, Description: r.Description, Must: r.Must,
		Policy: r.Policy, Env: r.Env}
	if err := c.checkEnv(); err != nil {
		return Case{}, err
	}
	if err := c.checkHeader(r.Expect); err != nil {
		return Case{}, err
	}
	switch r.Internals {
	case "", "hidden":
	case "visible":
		c.Visible = true
	default:
		return Case{}, fmt.Errorf("case %q: internals %q (want hidden or visible)", c.ID, r.Internals)
	}
	if c.Policy != "" && !slices.Contains(policy.PresetNames(), c.Policy) {
		return Case{}, fmt.Errorf("case %q: policy %q is not a preset (want one of %s)", c.ID, c.Policy,
			strings.Join(policy.PresetNames(), ", "))
	}
	d, err := verdict.Parse(r.Expect)
	if err != nil {
		return Case{}, fmt.Errorf("case %q: expect: %w", c.ID, err)
	}
	c.Expect = d
	if len(r.Steps) == 0 {
		return Case{}, fmt.Errorf("case %q has no steps", c.ID)
	}
	for i := range r.Steps {
		s, err := decodeStep(&r.Steps[i])
		if err != nil {
			return Case{}, fmt.Errorf("case %q step %d: %w", c.ID, i+1, err)
		}
		c.Steps = append(c.Steps, s)
	}
	return c, nil
}

func (c *Case) checkHeader(expect string) error {
	switch {
	case c.ID == "":
		return errors.New("case has no id")
	case c.Category == "":
		return fmt.Errorf("case %q has no category", c.ID)
	case c.Intent != IntentAttack && c.Intent != IntentLegit:
		return fmt.Errorf("case %q: intent %q (want attack or legit)", c.ID, c.Intent)
	case c.Description == "":
		return fmt.Errorf("case %q has no description", c.ID)
	case expect == "":
		return fmt.Errorf("case %q expects nothing: set expect to BLOCK, ESCALATE or ALLOW", c.ID)
	}
	return nil
}

func decodeStep(n *yaml.Node) (Step, error) {
	if err := checkKeys(n, "step", stepKeys); err != nil {
		return Step{}, err
	}
	var r struct {
		Type    string    `yaml:"type"`
		Payload yaml.Node `yaml:"payload"`
		Result  string    `yaml:"result"`
		Session string    `yaml:"session"`
		Parent  string    `yaml:"parent"`
	}
	if err := n.Decode(&r); err != nil {
		return Step{}, fmt.Errorf("decode step: %w", err)
	}
	if r.Type == "" {
		return Step{}, errors.New("step has no type")
	}
	if r.Parent != "" && r.Session == "" {
		return Step{}, errors.New("step names a parent but no session of its own")
	}
	if r.Session == "main" {
		return Step{}, errors.New(`step session "main" is the case's own session: leave it out`)
	}
	payload := json.RawMessage("{}")
	if r.Payload.Kind != 0 {
		if r.Payload.Kind != yaml.MappingNode {
			return Step{}, atLine(r.Payload.Line, errors.New("payload must be a mapping"))
		}
		var v any
		if err := r.Payload.Decode(&v); err != nil {
			return Step{}, fmt.Errorf("decode payload: %w", err)
		}
		b, err := json.Marshal(jsonable(v))
		if err != nil {
			return Step{}, atLine(r.Payload.Line, fmt.Errorf("payload is not representable as JSON: %w", err))
		}
		payload = b
	}
	return Step{Type: r.Type, Payload: payload, Result: r.Result, Session: r.Session, Parent: r.Parent,
		Line: n.Line}, nil
}

// jsonable turns YAML maps with non-string keys into string-keyed maps.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonable(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonable(e)
		}
		return t
	}
	return v
}

// checkEnv refuses an environment variable the gate would not use
// (shield.EnvNames()): a case must not look as if it tested one.
func (c *Case) checkEnv() error {
	for name := range c.Env {
		if !slices.Contains(shield.EnvNames(), name) {
			return fmt.Errorf("case %q: env %q is not one the gate uses (want one of %s)", c.ID, name,
				strings.Join(shield.EnvNames(), ", "))
		}
	}
	return nil
}
