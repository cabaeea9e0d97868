package llm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// ProviderKind names a wire protocol and its defaults.
type ProviderKind string

// Providers. openai_compatible, ollama and vllm speak the OpenAI Chat
// Completions API at their base URL.
const (
	ProviderAnthropic        ProviderKind = "anthropic"
	ProviderOpenAI           ProviderKind = "openai"
	ProviderOpenAICompatible ProviderKind = "openai_compatible"
	ProviderOllama           ProviderKind = "ollama"
	ProviderVLLM             ProviderKind = "vllm"
	ProviderGemini           ProviderKind = "gemini"
)

// providerInfo is what a provider kind implies: its default base URL and
// whether it must be given a key.
type providerInfo struct {
	defaultBase string
	needsKey    bool
}

// providers is the static table of supported providers.
var providers = map[ProviderKind]providerInfo{
	ProviderAnthropic:        {defaultBase: "https://api.anthropic.com", needsKey: true},
	ProviderOpenAI:           {defaultBase: "https://api.openai.com/v1", needsKey: true},
	ProviderOpenAICompatible: {},
	ProviderOllama:           {defaultBase: "http://127.0.0.1:11434/v1"},
	ProviderVLLM:             {defaultBase: "http://127.0.0.1:8000/v1"},
	ProviderGemini:           {defaultBase: "https://generativelanguage.googleapis.com", needsKey: true},
	ProviderScripted:         {}, // replays Script; no endpoint, no key (scripted.go)
}

// Role names a use of a model.
type Role string

// Roles a pool maps to models.
const (
	RoleChat      Role = "chat"
	RoleShield    Role = "shield"
	RoleEmbedding Role = "embedding"
	RoleSubAgent  Role = "sub_agent"
)

// Config is the model pool and the roles that use it, as it appears in
// the workspace configuration (YAML).
type Config struct {
	Models []ModelConfig `yaml:"models"`
	Roles  Roles         `yaml:"roles"`
}

// ModelConfig is one entry of the pool. The API key is never in the
// configuration: APIKeyEnv names the environment variable that holds it.
type ModelConfig struct {
	Name      string       `yaml:"name"`
	Provider  ProviderKind `yaml:"provider"`
	Model     string       `yaml:"model"`
	APIKeyEnv string       `yaml:"api_key_env"`
	// BaseURL overrides the provider's default endpoint. Without a key it
	// must be loopback; with a key, a remote one must be https.
	BaseURL string `yaml:"base_url"`
	// Purpose is a free-text note (what the entry is for).
	Purpose string `yaml:"purpose"`
	// Timeout bounds one attempt (for streams: the wait for each event).
	// Default 60s.
	Timeout time.Duration `yaml:"timeout"`
	// MaxTokens is the answer bound used when a request gives none.
	// Default 4096.
	MaxTokens int `yaml:"max_tokens"`
	// Script is the file a scripted entry replays (absolute, or relative
	// to the process's working directory); only for provider scripted.
	Script string `yaml:"script"`
}

// Roles maps each role to a pool entry name; empty means unassigned.
type Roles struct {
	Chat      string `yaml:"chat"`
	Shield    string `yaml:"shield"`
	Embedding string `yaml:"embedding"`
	SubAgent  string `yaml:"sub_agent"`
}

// Defaults for a pool entry.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultMaxTokens = 4096
)

// MaxConfigBytes bounds a configuration file.
const MaxConfigBytes = 1 << 20

// The name checks are compiled on first use: their bounded repetitions
// make large programs, and most processes never read an llm block.
var (
	envNameRE   = lazyRE(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	modelNameRE = lazyRE(`^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$`)
	yamlValueRE = lazyRE("`[^`]*`")
	entryNameRE = lazyRE(`^[a-z0-9][a-z0-9_.-]{0,63}$`)
)

// lazyRE compiles expr once, on the first call of the returned function.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// LoadConfig reads and validates a YAML configuration file.
func LoadConfig(file string) (Config, error) {
	f, err := os.Open(file) // the operator names the configuration file
	if err != nil {
		return Config{}, fmt.Errorf("load llm config %s: %w", file, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Config{}, fmt.Errorf("load llm config %s: %w", file, err)
	}
	return ParseConfig(file, data)
}

// ParseConfig decodes a configuration strictly (unknown keys, a second
// document, a bad entry fail the whole load) and validates it. name is
// used in errors.
func ParseConfig(name string, data []byte) (Config, error) {
	if len(data) > MaxConfigBytes {
		return Config{}, fmt.Errorf("%s: larger than %d bytes", name, MaxConfigBytes)
	}
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: %s", name, yamlMessage(err))
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: want one YAML document", name)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// yamlMessage is a decode error without the values it quotes: a key
// pasted into the wrong field must not reach a log. Line numbers, field
// names and types stay; control characters go.
func yamlMessage(err error) string {
	msg := yamlValueRE().ReplaceAllString(err.Error(), "`…`")
	return strings.Map(func(r rune) rune {
		if r != '\n' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, msg)
}

// Validate checks every entry and role. It does not read the
// environment: a missing key is found when a role is used.
func (c *Config) Validate() error {
	seen := make(map[string]bool, len(c.Models))
	for i := range c.Models {
		m := &c.Models[i]
		if err := m.validate(); err != nil {
			return fmt.Errorf("models[%d] %q: %w", i, m.Name, err)
		}
		if seen[m.Name] {
			return fmt.Errorf("models[%d]: duplicate name %q", i, m.Name)
		}
		seen[m.Name] = true
	}
	for _, r := range c.Roles.list() {
		if r.model != "" && !seen[r.model] {
			return fmt.Errorf("roles.%s: no model named %q in models", r.role, r.model)
		}
	}
	return nil
}

type roleEntry struct {
	role  Role
	model string
}

func (r Roles) list() []roleEntry {
	return []roleEntry{{RoleChat, r.Chat}, {RoleShield, r.Shield},
		{RoleEmbedding, r.Embedding}, {RoleSubAgent, r.SubAgent}}
}

// lookup returns the entry name assigned to role.
func (r Roles) lookup(role Role) (string, bool) {
	for _, e := range r.list() {
		if e.role == role {
			return e.model, true
		}
	}
	return "", false
}

func (m *ModelConfig) validate() error {
	if !entryNameRE().MatchString(m.Name) {
		return errors.New("name must be 1-64 of a-z 0-9 _ . - starting with a letter or digit")
	}
	info, ok := providers[m.Provider]
	if !ok {
		return fmt.Errorf("unknown provider %q (want anthropic, openai, openai_compatible, ollama, vllm, gemini or scripted)", m.Provider)
	}
	if m.Provider == ProviderScripted || m.Script != "" {
		return m.validateScripted()
	}
	if !modelNameRE().MatchString(m.Model) {
		return errors.New("model must be 1-128 characters of letters, digits and ._:/@-")
	}
	if m.APIKeyEnv != "" && !envNameRE().MatchString(m.APIKeyEnv) {
		// Never echo the value: it may be the key itself, pasted here.
		return errors.New("api_key_env must be the name of an environment variable (letters, digits, _), not a key")
	}
	if info.needsKey && m.APIKeyEnv == "" {
		return fmt.Errorf("provider %s needs api_key_env", m.Provider)
	}
	if m.BaseURL == "" && info.defaultBase == "" {
		return fmt.Errorf("provider %s needs base_url", m.Provider)
	}
	if _, err := checkEndpoint(m.baseURL(), m.APIKeyEnv != ""); err != nil {
		return fmt.Errorf("base_url: %w", err)
	}
	if m.Timeout < 0 || m.MaxTokens < 0 {
		return errors.New("timeout and max_tokens must not be negative")
	}
	if len(m.Purpose) > 200 {
		return errors.New("purpose is longer than 200 bytes")
	}
	return nil
}

// validateScripted checks a scripted entry: a script file, and nothing
// that would reach a network (no key, no base URL).
func (m *ModelConfig) validateScripted() error {
	switch {
	case m.Provider != ProviderScripted:
		return fmt.Errorf("script is only for provider scripted, not %s", m.Provider)
	case m.Script == "":
		return errors.New("provider scripted needs script (the file it replays)")
	case m.APIKeyEnv != "" || m.BaseURL != "":
		return errors.New("provider scripted takes no api_key_env or base_url")
	case !modelNameRE().MatchString(m.Model):
		return errors.New("model must be 1-128 characters of letters, digits and ._:/@-")
	}
	return nil
}

// baseURL is the configured base URL or the provider's default.
func (m *ModelConfig) baseURL() string {
	if m.BaseURL != "" {
		return m.BaseURL
	}
	return providers[m.Provider].defaultBase
}

// Endpoint is the base URL the model is reached at: the configured one or
// its provider's default; "" for a provider without one (scripted).
func (m ModelConfig) Endpoint() string { return m.baseURL() }

func (m *ModelConfig) timeout() time.Duration {
	if m.Timeout > 0 {
		return m.Timeout
	}
	return DefaultTimeout
}

func (m *ModelConfig) maxTokens() int {
	if m.MaxTokens > 0 {
		return m.MaxTokens
	}
	return DefaultMaxTokens
}
