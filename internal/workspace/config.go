package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/shield"
)

// Config is .parallax/config.yaml.
type Config struct {
	// Version of the file format (1).
	Version int `yaml:"version"`
	// Policy is the base policy: a preset name (default, permissive,
	// strict) or a file relative to .parallax. Rules in
	// .parallax/policy.yaml are layered on top of it by the gate.
	Policy string `yaml:"policy"`
	// Approval configures tier 3 (human approval); absent: escalations
	// are reported as ESCALATE and nobody is asked.
	Approval *ApprovalConfig `yaml:"approval"`
	// LLM is the model pool (models[], roles{}); the model of the shield
	// role is the tier 2 judge. Absent: no judge, escalations go on.
	LLM *llm.Config `yaml:"llm"`
	// Judge tunes tier 2.
	Judge *JudgeConfig `yaml:"judge"`
	// Agent configures the own agent's runtime (agentconfig.go).
	Agent *AgentConfig `yaml:"agent"`
}

// JudgeConfig is the judge: block of config.yaml.
type JudgeConfig struct {
	DailyBudget      int64 `yaml:"daily_budget"`       // default 100
	SessionPerMinute int   `yaml:"session_per_minute"` // default 20
}

// ApprovalConfig is the approval: block of config.yaml.
type ApprovalConfig struct {
	Timeout     Duration `yaml:"timeout"`      // default 300s
	HourlyLimit int      `yaml:"hourly_limit"` // default 10
	GrantTTL    Duration `yaml:"grant_ttl"`    // default 1h
	// Webhook posts each request to URL, signed with the secret held in
	// the environment variable SecretEnv (never in this file); answers
	// come back to parallax serve at /v1/approvals/webhook.
	Webhook *WebhookConfig `yaml:"webhook"`
}

// WebhookConfig is the approval webhook channel.
type WebhookConfig struct {
	URL       string `yaml:"url"`
	SecretEnv string `yaml:"secret_env"`
}

// Duration is a time.Duration written as "300s", "1h".
type Duration struct{ time.Duration }

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration such as 300s or 1h", n.Line, n.Value)
	}
	d.Duration = v
	return nil
}

// ConfigPath is the workspace configuration file.
func ConfigPath(root string) string { return filepath.Join(StateDir(root), "config.yaml") }

// DefaultConfig is what a workspace without config.yaml uses.
func DefaultConfig() Config { return Config{Version: 1, Policy: "default"} }

// LoadConfig reads config.yaml strictly: unknown keys, a second document
// or a version this binary does not know are errors naming the file. A
// missing file is the default configuration.
func LoadConfig(root string) (Config, error) {
	path := ConfigPath(root)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", path, err)
	}
	cfg := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: want one YAML document", path)
	}
	if cfg.Version != 1 {
		return Config{}, fmt.Errorf("%s: version %d is not supported (want 1)", path, cfg.Version)
	}
	if cfg.Policy == "" {
		return Config{}, fmt.Errorf("%s: policy is empty (want a preset name or a file)", path)
	}
	if err := cfg.Agent.validate(); err != nil {
		return Config{}, fmt.Errorf("%s: agent.%w", path, err)
	}
	if a := cfg.Approval; a != nil {
		if a.HourlyLimit < 0 {
			return Config{}, fmt.Errorf("%s: approval.hourly_limit must not be negative", path)
		}
		if w := a.Webhook; w != nil && (w.URL == "" || w.SecretEnv == "") {
			return Config{}, fmt.Errorf("%s: approval.webhook needs url and secret_env", path)
		}
	}
	return cfg, nil
}

// policySpec resolves the configured policy: a preset name as is, a
// relative file under .parallax.
func (c Config) policySpec(root string) string {
	switch c.Policy {
	case "default", "permissive", "strict":
		return c.Policy
	}
	if filepath.IsAbs(c.Policy) {
		return c.Policy
	}
	return filepath.Join(StateDir(root), c.Policy)
}

// GateConfig is the gate configuration for this workspace: its policy,
// its database as the IFC store, its audit chain, its extra protected
// paths. home decides what ~
// means.
func (w *Workspace) GateConfig(home string) shield.Config {
	cfg := shield.Config{Workspace: w.Root, Home: home, Policy: w.Config.policySpec(w.Root),
		Store: w.IFCStore(), Audit: w.Audit, Protected: w.protected}
	if w.judge != nil {
		cfg.Judge = w.judge
	}
	if w.super != nil {
		cfg.Supervisor = w.super
	}
	return cfg
}

// DryGateConfig is the gate as the workspace at root configures it (its
// policy from config.yaml, its extra protected paths) without its state:
// no database, no audit chain, no judge or approver, so nothing is read
// from or written to the workspace's sessions or chain and no model or
// human is asked. policyFlag, when set, overrides config.yaml. A
// directory that is not a workspace gets the default configuration.
func DryGateConfig(root, home, policyFlag string) (shield.Config, error) {
	cfg := DefaultConfig()
	var protected []string
	if Initialised(root) {
		var err error
		if cfg, err = LoadConfig(root); err != nil {
			return shield.Config{}, err
		}
		if protected, err = LoadProtected(root); err != nil {
			return shield.Config{}, err
		}
	}
	spec := cfg.policySpec(root)
	if policyFlag != "" {
		spec = policyFlag
	}
	return shield.Config{Workspace: root, Home: home, Policy: spec, Protected: protected}, nil
}
