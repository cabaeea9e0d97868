package policy

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// CaseFile is the input of `parallax policy test`: actions and the
// decision tier 0 must reach for each.
//
//	policy: default            # preset or file; the command line may override it
//	workspace: /home/dev/project
//	home: /home/dev
//	cases:
//	  - name: ssh key is denied
//	    action: {type: read_file, payload: {path: ~/.ssh/id_rsa}}
//	    expect: deny            # deny | verify | allow | none
//	    tier: 2                 # optional, for verify
//	    rule: credential_files  # optional
type CaseFile struct {
	Policy    string `yaml:"policy"`
	Workspace string `yaml:"workspace"`
	Home      string `yaml:"home"`
	Cases     []Case `yaml:"cases"`
}

// Case is one expectation.
type Case struct {
	Name   string `yaml:"name"`
	Action struct {
		Type    string         `yaml:"type"`
		Payload map[string]any `yaml:"payload"`
	} `yaml:"action"`
	Expect string `yaml:"expect"`
	Tier   int    `yaml:"tier"`
	Rule   string `yaml:"rule"`
	Line   int    `yaml:"-"`
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Name string
	Line int
	Pass bool
	Got  Result
	Msg  string // what differed, or why the case could not run
}

// Analyzer turns a shell command into effects (the gate passes
// shell.Analyze); nil leaves commands without effects.
type Analyzer func(cmd string, v Vars) *shell.Effects

// ParseCases decodes a case file strictly: unknown keys, a case without
// a name or expectation, or an unknown expectation fail it.
func ParseCases(name string, data []byte) (*CaseFile, error) {
	var cf CaseFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cf); err != nil {
		return nil, fmt.Errorf("load cases %s: %w", name, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) > 0 {
		if cs := mapGet(doc.Content[0], "cases"); cs != nil {
			for i := range cf.Cases {
				if i < len(cs.Content) {
					cf.Cases[i].Line = cs.Content[i].Line
				}
			}
		}
	}
	if len(cf.Cases) == 0 {
		return nil, fmt.Errorf("load cases %s: no cases", name)
	}
	for _, c := range cf.Cases {
		if c.Name == "" || c.Action.Type == "" {
			return nil, fmt.Errorf("load cases %s:%d: a case needs a name and an action type", name, c.Line)
		}
		if e, ok := ParseEffect(c.Expect); !ok || (c.Tier != 0 && e != Verify) {
			return nil, fmt.Errorf("load cases %s:%d: case %q: expect must be deny, verify, allow or none (tier only with verify)", name, c.Line, c.Name)
		}
	}
	return &cf, nil
}

// RunCases evaluates every case against p. Payload paths are normalised
// with v.Home; execute_command (and a scheduled command) is analysed with
// analyze when given.
func (p *Policy) RunCases(cf *CaseFile, v Vars, analyze Analyzer) []CaseResult {
	out := make([]CaseResult, 0, len(cf.Cases))
	for _, c := range cf.Cases {
		res := CaseResult{Name: c.Name, Line: c.Line}
		in, err := caseInput(c, v, analyze)
		if err != nil {
			res.Msg = err.Error()
			out = append(out, res)
			continue
		}
		res.Got = p.Evaluate(in)
		want, _ := ParseEffect(c.Expect)
		switch {
		case res.Got.Effect != want:
			res.Msg = fmt.Sprintf("got %s, want %s", res.Got.Effect, want)
		case c.Tier != 0 && res.Got.Tier != c.Tier:
			res.Msg = fmt.Sprintf("got tier %d, want %d", res.Got.Tier, c.Tier)
		case c.Rule != "" && res.Got.Rule != c.Rule:
			res.Msg = fmt.Sprintf("got rule %q, want %q", res.Got.Rule, c.Rule)
		default:
			res.Pass = true
		}
		out = append(out, res)
	}
	return out
}

func caseInput(c Case, v Vars, analyze Analyzer) (*Input, error) {
	raw, err := json.Marshal(c.Action.Payload)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	a, err := action.Decode(c.Action.Type, raw)
	if err != nil {
		return nil, err
	}
	if err := action.Normalize(a, action.Env{Home: v.Home}); err != nil {
		return nil, err
	}
	var eff *shell.Effects
	if cmd, ok := commandOf(a); ok && analyze != nil {
		eff = analyze(cmd, v)
	}
	return NewInput(a, eff), nil
}
