package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

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
// its database as the IFC store, its audit chain. home decides what ~
// means.
func (w *Workspace) GateConfig(home string) shield.Config {
	return shield.Config{Workspace: w.Root, Home: home, Policy: w.Config.policySpec(w.Root),
		Store: w.IFCStore(), Audit: w.Audit}
}
