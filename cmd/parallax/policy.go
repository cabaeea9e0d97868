package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/atomicfile"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Check, explain, test and edit tier 0 policies",
		Long: `Tier 0 of Shield is a YAML policy: deny, verify (minimum tier) and allow
rules, plus Cortex-style priority rules. Three presets are built in
(default, permissive, strict); user rules live in DIR/.parallax/policy.yaml
and ~/.parallax/policy.yaml and are layered over the preset (deny first,
then the highest verify tier, then allow, then fallbacks).

--policy takes a preset name or a policy file. $WORKSPACE in patterns is
--workspace (default: the workspace at or above the current directory, else
the current directory); ~ and $HOME come from HOME.`,
	}
	cmd.AddCommand(newPolicyLintCmd(), newPolicyExplainCmd(), newPolicyTestCmd(),
		newPolicyAddCmd(), newPolicyListCmd(), newPolicyRemoveCmd())
	return cmd
}

// write prints s on the command's output.
func write(cmd *cobra.Command, s string) error {
	if _, err := io.WriteString(cmd.OutOrStdout(), s); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// flush prints what was collected in b.
func flush(cmd *cobra.Command, b *bytes.Buffer) error {
	if _, err := b.WriteTo(cmd.OutOrStdout()); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// policyVars resolves --workspace (default: the workspace at or above
// the current directory, else the current directory) and HOME.
func policyVars(cmd *cobra.Command, workspace string) (policy.Vars, error) {
	ws, err := resolveWorkspace(cmd.ErrOrStderr(), workspace)
	if err != nil {
		return policy.Vars{}, err
	}
	return policy.Vars{Workspace: ws, Home: os.Getenv("HOME")}, nil
}

func newPolicyLintCmd() *cobra.Command {
	var workspace string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "lint FILE|PRESET...",
		Short: "Load policies strictly and report every problem",
		Long: `Lint loads each policy file (or preset) the way the gate does. It prints
"ok: FILE (N rules)" or one line per problem as FILE:LINE: rule "NAME": message,
and warns about rules that can never decide (an allow shadowed by a deny with
the same conditions). Exit status 1 when any file has an error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := policyVars(cmd, workspace)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			bad := 0
			for _, f := range args {
				p, err := policy.Resolve(f, v)
				if err != nil {
					bad++
					fmt.Fprintln(&out, err)
					continue
				}
				fmt.Fprintf(&out, "ok: %s (%d rules)\n", f, p.Rules())
				for _, w := range p.Lint() {
					fmt.Fprintln(&out, w)
				}
				if verbose {
					out.WriteString(p.Compiled())
				}
			}
			if err := flush(cmd, &out); err != nil {
				return err
			}
			if bad > 0 {
				return &exitError{code: 1, err: fmt.Errorf("policy lint: %d of %d policies have errors", bad, len(args))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "directory $WORKSPACE stands for (default: the workspace at or above the current directory)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also print the compiled form")
	return cmd
}

func newPolicyExplainCmd() *cobra.Command {
	var workspace, spec string
	var all bool
	cmd := &cobra.Command{
		Use:   "explain '<action json>'",
		Short: "Show how the whole gate decides an action, step by step, and why",
		Long: `Explain runs one action, {"type": ..., "payload": {...}}, through the real
gate of the workspace (its policy from config.yaml or --policy, with the
user rules of ~/.parallax/policy.yaml and WORKSPACE/.parallax/policy.yaml
layered over it, and its protected paths) and prints what each step made
of it (decode, verify, guard, fast path, policy, heuristics, information
flow, judge: decided, passed with a note, or not reached), the final
verdict, then the policy's own account: the deciding rule and every rule
considered. "-" reads the JSON from stdin.

The action is judged as the first of a fresh session: no session taint is
read, nothing is recorded in the audit chain, and no judge model or human
is asked (what would go to them shows as ESCALATE).`,
		Example: `  parallax policy explain '{"type":"read_file","payload":{"path":"~/.netrc"}}'
  parallax policy explain --policy strict '{"type":"execute_command","payload":{"command":"rm -rf build"}}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := policyVars(cmd, workspace)
			if err != nil {
				return err
			}
			raw := []byte(args[0])
			if args[0] == "-" {
				if raw, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), action.MaxPayloadBytes+4096)); err != nil {
					return fmt.Errorf("read action from stdin: %w", err)
				}
			}
			req, in, err := explainInput(raw, v)
			if err != nil {
				return err
			}
			if v.Home == "" {
				return errors.New("HOME is not set: it decides what ~ means")
			}
			cfg, err := pxworkspace.DryGateConfig(v.Workspace, v.Home, spec)
			if err != nil {
				return err
			}
			gate, err := shield.New(cfg)
			if err != nil {
				return err
			}
			ex := gate.Explain(cmd.Context(), shield.Request{Session: "explain", Type: req.Type, Payload: req.Payload})
			return write(cmd, explainText(cfg, ex)+"\npolicy step on its own (the rules; the gate's verdict is above):\n"+
				gate.Policy().Explain(in).String(all))
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&spec, "policy", "", "preset name ("+strings.Join(policy.PresetNames(), ", ")+") or policy file (default: the workspace's config.yaml, else default)")
	cmd.Flags().BoolVar(&all, "all", false, "also list rules that do not apply to the action's type")
	return cmd
}

// explainText prints the gate's steps and its verdict.
func explainText(cfg shield.Config, ex shield.Explanation) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "gate: workspace %s, policy %s\n", cfg.Workspace, cfg.Policy)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, s := range ex.Steps {
		what := "not reached (an earlier step decided)"
		switch {
		case s.Decided:
			what = verdictText(s.Verdict)
		case s.Reached:
			what = "pass: " + s.Note
		}
		fmt.Fprintf(tw, "  %s\t%s\n", s.Step, what) //nolint:errcheck // the tabwriter writes to a bytes.Buffer; Flush reports errors
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
	fmt.Fprintf(&b, "verdict: %s\n", verdictText(ex.Final))
	return b.String()
}

func verdictText(v verdict.Verdict) string {
	s := fmt.Sprintf("%s (%s, tier %d", v.Decision, v.Stage, v.Tier)
	if v.Rule != "" {
		s += ", rule " + v.Rule
	}
	s += ")"
	if v.Reason != "" {
		s += ": " + oneLine(v.Reason, 200)
	}
	return s
}

// explainRequest is the JSON policy explain reads.
type explainRequest struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// explainInput decodes {"type","payload"} strictly and builds the input
// the policy sees: normalised paths, shell effects, hosts.
func explainInput(raw []byte, v policy.Vars) (explainRequest, *policy.Input, error) {
	var req explainRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, nil, fmt.Errorf("action JSON: want {\"type\": ..., \"payload\": {...}}: %w", err)
	}
	a, err := action.Decode(req.Type, req.Payload)
	if err != nil {
		return req, nil, fmt.Errorf("decode action: %w", err)
	}
	if err := action.Normalize(a, action.Env{Home: v.Home}); err != nil {
		return req, nil, fmt.Errorf("normalize action: %w", err)
	}
	return req, policy.NewInput(a, analyzeFor(a, v)), nil
}

// analyzeFor runs the shell analysis for actions that carry a command.
func analyzeFor(a *action.Action, v policy.Vars) *shell.Effects {
	var cmd string
	switch p := a.Payload.(type) {
	case *action.ExecuteCommandPayload:
		cmd = p.Command
	case *action.CreateSchedulePayload:
		cmd = p.Command
	}
	if cmd == "" {
		return nil
	}
	return shell.Analyze(cmd, shell.Options{Cwd: v.Workspace, Home: v.Home})
}

func newPolicyTestCmd() *cobra.Command {
	var workspace, spec string
	cmd := &cobra.Command{
		Use:   "test FILE",
		Short: "Run a YAML file of actions and expected decisions",
		Long: `Test evaluates each case of FILE and reports PASS or FAIL:

  policy: default              # preset or file (relative to FILE); --policy overrides
  workspace: /home/dev/project # optional; default --workspace, then cwd
  home: /home/dev              # optional; default $HOME
  cases:
    - name: ssh key is denied
      action: {type: read_file, payload: {path: ~/.ssh/id_rsa}}
      expect: deny             # deny | verify | allow | none
      tier: 2                  # optional, verify only
      rule: credential_files   # optional

Only the named policy is used (no user rules), so results are reproducible.
Exit status 1 when a case fails or cannot run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("load cases: %w", err)
			}
			cf, err := policy.ParseCases(args[0], data)
			if err != nil {
				return err
			}
			v, err := policyVars(cmd, workspace)
			if err != nil {
				return err
			}
			if cf.Workspace != "" && workspace == "" {
				v.Workspace = cf.Workspace
			}
			if cf.Home != "" {
				v.Home = cf.Home
			}
			if !cmd.Flags().Changed("policy") && cf.Policy != "" {
				spec = cf.Policy
				if !policy.IsPreset(spec) && !filepath.IsAbs(spec) {
					spec = filepath.Join(filepath.Dir(args[0]), spec)
				}
			}
			p, err := policy.Resolve(spec, v)
			if err != nil {
				return err
			}
			analyze := func(c string, v policy.Vars) *shell.Effects {
				return shell.Analyze(c, shell.Options{Cwd: v.Workspace, Home: v.Home})
			}
			failed := 0
			var out bytes.Buffer
			for _, r := range p.RunCases(cf, v, analyze) {
				if r.Pass {
					fmt.Fprintf(&out, "PASS %s\n", r.Name)
					continue
				}
				failed++
				fmt.Fprintf(&out, "FAIL %s:%d: %s: %s\n", args[0], r.Line, r.Name, r.Msg)
				if r.Got.Reason != "" {
					fmt.Fprintf(&out, "     reason: %s\n", r.Got.Reason)
				}
			}
			fmt.Fprintf(&out, "%d cases, %d failed\n", len(cf.Cases), failed)
			if err := flush(cmd, &out); err != nil {
				return err
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("policy test: %d of %d cases failed", failed, len(cf.Cases))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default: the file's workspace, then cwd)")
	cmd.Flags().StringVar(&spec, "policy", "default", "preset name or policy file (default: the file's policy:)")
	return cmd
}

// ruleFlags are the fields `policy add` can set.
type ruleFlags struct {
	name, section, reason, desc string
	types, paths, outside       []string
	domains, programs, access   []string
	tier                        int
}

func newPolicyAddCmd() *cobra.Command {
	var workspace, spec string
	var f ruleFlags
	cmd := &cobra.Command{
		Use:   "add --name NAME --section deny|verify|allow [flags]",
		Short: "Add a user rule to WORKSPACE/.parallax/policy.yaml",
		Long: `Add appends a rule to the workspace's user policy (created with mode 0600
in a 0700 directory if missing), after checking that the result loads and
that no preset or user rule has the same name. The file is replaced
atomically. User rules are layered over the preset: they can add denials
and raise tiers, but an allow cannot lower a tier the preset requires.

A rule needs at least one condition (--type '*' matches every action).
The change is recorded in the workspace's audit chain (ConfigChanged,
policy_rule_added: the rule name and the SHA-256 of the file before and
after); when the chain cannot record it, nothing is changed.`,
		Example: `  parallax policy add --name no_prod --section deny --path '/srv/prod/**' --reason 'production data'
  parallax policy add --name vendor_api --section verify --type http_request --domain 'api.vendor.test' --tier 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := policyVars(cmd, workspace)
			if err != nil {
				return err
			}
			file := policy.UserFile(v.Workspace)
			doc, err := readUserDoc(file)
			if err != nil {
				return err
			}
			if err := checkNewName(f.name, spec, v, doc, file); err != nil {
				return err
			}
			node, err := f.node()
			if err != nil {
				return err
			}
			appendRule(doc, f.section, node)
			if err := pxworkspace.AuditedFileEdit(cmd.Context(), v.Workspace, file, "policy_rule_added", f.name,
				func() error { return saveUserDoc(file, doc, v) }); err != nil {
				return err
			}
			return write(cmd, fmt.Sprintf("added %s rule %q to %s\n", f.section, f.name, file))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	fl.StringVar(&spec, "policy", "default", "preset or policy file whose rule names must not be reused")
	fl.StringVar(&f.name, "name", "", "rule name (required, unique; letters, digits, _ . -)")
	fl.StringVar(&f.section, "section", "", "deny, verify or allow (required)")
	fl.StringSliceVar(&f.types, "type", nil, "action type or glob (repeatable; default every type)")
	fl.StringSliceVar(&f.paths, "path", nil, "path glob; ~, $HOME, $WORKSPACE expand (repeatable)")
	fl.StringSliceVar(&f.outside, "path-outside", nil, "matches paths outside this glob (repeatable)")
	fl.StringSliceVar(&f.access, "access", nil, "read, write or delete: which path uses --path looks at (repeatable)")
	fl.StringSliceVar(&f.domains, "domain", nil, "host or host glob such as '*.example.com' (repeatable)")
	fl.StringSliceVar(&f.programs, "program", nil, "program base name from shell analysis (repeatable)")
	fl.IntVar(&f.tier, "tier", 0, "minimum tier 1..3 (verify only; required there)")
	fl.StringVar(&f.reason, "reason", "", "short reason shown to the agent")
	fl.StringVar(&f.desc, "description", "", "longer description for humans")
	return cmd
}

// node builds the YAML mapping of the rule; the full load afterwards
// validates every value.
func (f *ruleFlags) node() (*yaml.Node, error) {
	switch {
	case f.name == "":
		return nil, errors.New("policy add: --name is required")
	case f.section != "deny" && f.section != "verify" && f.section != "allow":
		return nil, fmt.Errorf("policy add: --section %q: want deny, verify or allow", f.section)
	case f.section == "verify" && f.tier == 0:
		return nil, errors.New("policy add: a verify rule needs --tier 1, 2 or 3")
	case f.section != "verify" && f.tier != 0:
		return nil, errors.New("policy add: --tier is only for --section verify")
	case len(f.types)+len(f.paths)+len(f.outside)+len(f.access)+len(f.domains)+len(f.programs) == 0:
		// As the policy loader says: a rule without a condition is refused,
		// not read as "every action" (a deny would then block everything).
		return nil, fmt.Errorf("policy add: rule %q has no condition; give --type, --path, --path-outside, "+
			"--domain or --program (--type '*' matches every action)", f.name)
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	str := func(k, val string) {
		if val != "" {
			m.Content = append(m.Content, scalar(k), scalar(val))
		}
	}
	list := func(k string, vals []string) {
		if len(vals) == 0 {
			return
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range vals {
			seq.Content = append(seq.Content, scalar(s))
		}
		m.Content = append(m.Content, scalar(k), seq)
	}
	str("name", f.name)
	str("description", f.desc)
	list("action_types", f.types)
	list("paths", f.paths)
	list("paths_outside", f.outside)
	list("access", f.access)
	list("domains", f.domains)
	list("programs", f.programs)
	if f.tier != 0 {
		m.Content = append(m.Content, scalar("tier"),
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(f.tier)})
	}
	str("reason", f.reason)
	return m, nil
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// readUserDoc loads the user policy as a YAML tree (comments survive
// edits); a missing file is an empty document.
func readUserDoc(file string) (*yaml.Node, error) {
	data, err := os.ReadFile(file) //nolint:gosec // the workspace's own policy file
	if errors.Is(err, os.ErrNotExist) {
		return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read user policy: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read user policy %s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("read user policy %s: want a mapping with deny, verify, allow, rules", file)
	}
	return &doc, nil
}

// userRuleNames lists the names in the user document.
func userRuleNames(doc *yaml.Node) map[string]bool {
	out := map[string]bool{}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		for _, r := range top.Content[i+1].Content {
			for j := 0; j+1 < len(r.Content); j += 2 {
				if r.Content[j].Value == "name" {
					out[r.Content[j+1].Value] = true
				}
			}
		}
	}
	return out
}

func checkNewName(name, spec string, v policy.Vars, doc *yaml.Node, file string) error {
	if userRuleNames(doc)[name] {
		return fmt.Errorf("policy add: rule %q already exists in %s (remove it first)", name, file)
	}
	base, err := policy.Resolve(spec, v)
	if err != nil {
		return err
	}
	if base.Has(name) {
		return fmt.Errorf("policy add: rule %q already exists in %s; choose another name", name, base.Sources()[0])
	}
	return nil
}

func appendRule(doc *yaml.Node, section string, rule *yaml.Node) {
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == section {
			seq := top.Content[i+1]
			if seq.Kind != yaml.SequenceNode { // "deny:" with no value
				*seq = yaml.Node{Kind: yaml.SequenceNode}
			}
			seq.Content = append(seq.Content, rule)
			return
		}
	}
	top.Content = append(top.Content, scalar(section),
		&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{rule}})
}

// saveUserDoc lints the new text and replaces the file atomically.
func saveUserDoc(file string, doc *yaml.Node, v policy.Vars) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode user policy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode user policy: %w", err)
	}
	if _, err := policy.Parse(file, buf.Bytes(), v); err != nil {
		return fmt.Errorf("refusing to save %s, it would not load:\n%w", file, err)
	}
	return atomicfile.Write(file, buf.Bytes(), 0o600)
}

func newPolicyListCmd() *cobra.Command {
	var workspace, spec string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the rules in effect: preset and user rules, with their source",
		Long: `List prints every rule of the policy in evaluation order (deny, verify,
allow, fallbacks, then the rules: chain), with the file and line it came
from: the preset or file given by --policy, then ~/.parallax/policy.yaml,
then WORKSPACE/.parallax/policy.yaml.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := policyVars(cmd, workspace)
			if err != nil {
				return err
			}
			p, err := policy.Layered(spec, v)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			tw := tabwriter.NewWriter(&out, 0, 4, 2, ' ', 0)
			_, _ = tw.Write([]byte("SECTION\tNAME\tEFFECT\tTYPES\tSOURCE\n"))
			for _, r := range p.List() {
				sec, eff := r.Section, r.Effect.String()
				if r.Fallback {
					sec += "/fallback"
				}
				if r.Tier > 0 {
					eff += " tier " + strconv.Itoa(r.Tier)
				}
				types := "*"
				if len(r.ActionTypes) > 0 {
					types = strings.Join(r.ActionTypes, ",")
				}
				if len(types) > 40 {
					types = types[:37] + "..."
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s:%d\n", sec, r.Name, eff, types, r.Source, r.Line) //nolint:errcheck // the tabwriter writes to a bytes.Buffer; Flush reports errors
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return flush(cmd, &out)
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&spec, "policy", "default", "preset name or policy file")
	return cmd
}

func newPolicyRemoveCmd() *cobra.Command {
	var workspace, spec string
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a user rule from WORKSPACE/.parallax/policy.yaml",
		Long: `Remove deletes the named rule from the workspace's user policy and
replaces the file atomically. Preset rules are read-only: to override one,
add a rule (a deny or a higher verify tier wins) or choose another preset.
The change is recorded in the workspace's audit chain (ConfigChanged,
policy_rule_removed); when the chain cannot record it, nothing is changed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := policyVars(cmd, workspace)
			if err != nil {
				return err
			}
			file := policy.UserFile(v.Workspace)
			doc, err := readUserDoc(file)
			if err != nil {
				return err
			}
			if !removeRule(doc, args[0]) {
				if base, err := policy.Resolve(spec, v); err == nil && base.Has(args[0]) {
					return fmt.Errorf("policy remove: rule %q belongs to %s, which is read-only", args[0], base.Sources()[0])
				}
				return fmt.Errorf("policy remove: no rule named %q in %s", args[0], file)
			}
			if err := pxworkspace.AuditedFileEdit(cmd.Context(), v.Workspace, file, "policy_rule_removed", args[0],
				func() error { return saveUserDoc(file, doc, v) }); err != nil {
				return err
			}
			return write(cmd, fmt.Sprintf("removed rule %q from %s\n", args[0], file))
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&spec, "policy", "default", "preset or policy file (to explain read-only rules)")
	return cmd
}

func removeRule(doc *yaml.Node, name string) bool {
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		seq := top.Content[i+1]
		for j, r := range seq.Content {
			for k := 0; k+1 < len(r.Content); k += 2 {
				if r.Content[k].Value == "name" && r.Content[k+1].Value == name {
					seq.Content = append(seq.Content[:j], seq.Content[j+1:]...)
					return true
				}
			}
		}
	}
	return false
}
