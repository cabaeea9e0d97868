package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
)

// Options are the pool's dependencies; the zero value uses the real
// environment, clock and randomness.
type Options struct {
	// Getenv reads API keys. Default os.Getenv.
	Getenv func(string) string
	// Clock times retries. Default: the system clock.
	Clock Clock
	// Jitter returns a number in [0, 1) for backoff jitter. Default
	// math/rand/v2.
	Jitter func() float64
	// Retry bounds retries; zero fields take DefaultRetryPolicy's values.
	Retry RetryPolicy
	// Logger receives retry events (never keys or prompts). Default:
	// discarded.
	Logger *slog.Logger
	// MaxResponseBytes bounds one response body. Default
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

func (o Options) withDefaults() Options {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	o.Retry = o.Retry.withDefaults()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return o
}

// ModelRef describes a pool entry without its key.
type ModelRef struct {
	Name     string
	Provider ProviderKind
	Model    string
	Purpose  string
	BaseURL  string
}

// SameModel reports whether two refs reach the same model at the same
// place (for the judge's cross-model check).
func (r ModelRef) SameModel(o ModelRef) bool {
	return r.Model == o.Model && strings.TrimSuffix(r.BaseURL, "/") == strings.TrimSuffix(o.BaseURL, "/")
}

// ErrNoModel is wrapped when a role has no model assigned.
var ErrNoModel = errors.New("no model assigned")

// Pool is the configured models and roles.
type Pool struct {
	cfg  Config
	opts Options
}

// NewPool validates cfg and returns its pool. Keys are read when a model
// is used, not here.
func NewPool(cfg Config, opts Options) (*Pool, error) {
	c := Config{Models: append([]ModelConfig(nil), cfg.Models...), Roles: cfg.Roles}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("llm pool: %w", err)
	}
	return &Pool{cfg: c, opts: opts.withDefaults()}, nil
}

// Assigned returns the entry a role uses, without touching its key.
func (p *Pool) Assigned(role Role) (ModelRef, error) {
	name, ok := p.cfg.Roles.lookup(role)
	if !ok {
		return ModelRef{}, fmt.Errorf("llm role %q: unknown role (want chat, shield, embedding or sub_agent)", role)
	}
	if name == "" {
		return ModelRef{}, fmt.Errorf("llm role %s: %w", role, ErrNoModel)
	}
	m := p.entry(name)
	return m.ref(), nil
}

// ForRole returns the provider of the entry assigned to role.
func (p *Pool) ForRole(role Role) (Provider, ModelRef, error) {
	ref, err := p.Assigned(role)
	if err != nil {
		return nil, ModelRef{}, err
	}
	return p.Model(ref.Name)
}

// Model returns the provider of the named entry. Its API key is read
// from the environment now; a missing one is an error naming the
// variable.
func (p *Pool) Model(name string) (Provider, ModelRef, error) {
	m := p.entry(name)
	if m == nil {
		return nil, ModelRef{}, fmt.Errorf("llm model %q: not in the pool", name)
	}
	ref := m.ref()
	if m.Provider == ProviderScripted {
		s, err := LoadScript(m.Script)
		if err != nil {
			return nil, ref, &Error{Kind: KindConfig, Model: m.Name, Provider: m.Provider, Detail: err.Error()}
		}
		return NewScripted(m.Name, s), ref, nil
	}
	key := ""
	if m.APIKeyEnv != "" {
		key = strings.TrimSpace(p.opts.Getenv(m.APIKeyEnv))
		if key == "" {
			return nil, ref, &Error{Kind: KindConfig, Model: m.Name, Provider: m.Provider,
				Detail: "environment variable " + m.APIKeyEnv + " is empty or not set", err: ErrMissingKey}
		}
	}
	ep, err := checkEndpoint(ref.BaseURL, key != "")
	if err != nil {
		return nil, ref, &Error{Kind: KindConfig, Model: m.Name, Provider: m.Provider, Detail: "base_url: " + err.Error()}
	}
	hc := newHTTPClient(ep, p.opts.MaxResponseBytes)
	c := &client{ref: ref, keyEnv: m.APIKeyEnv, timeout: m.timeout(), defMax: m.maxTokens(),
		opts: &p.opts, redact: func(s string) string { return sanitize(s, key) }}
	switch m.Provider {
	case ProviderAnthropic:
		c.b = newAnthropic(ref.BaseURL, key, hc, c.timeout)
	case ProviderOpenAI, ProviderOpenAICompatible, ProviderOllama, ProviderVLLM:
		c.b = newOpenAI(ref.BaseURL, key, hc, m.Provider == ProviderOpenAI)
	case ProviderGemini:
		c.b = newGemini(ref.BaseURL, key, hc)
	default:
		return nil, ref, fmt.Errorf("llm model %q: unknown provider %q", name, m.Provider)
	}
	return c, ref, nil
}

func (p *Pool) entry(name string) *ModelConfig {
	for i := range p.cfg.Models {
		if p.cfg.Models[i].Name == name {
			return &p.cfg.Models[i]
		}
	}
	return nil
}

func (m *ModelConfig) ref() ModelRef {
	return ModelRef{Name: m.Name, Provider: m.Provider, Model: m.Model, Purpose: m.Purpose, BaseURL: m.baseURL()}
}
