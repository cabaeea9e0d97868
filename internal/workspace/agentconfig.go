package workspace

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// AgentConfig is the agent: block of config.yaml: Parallax's own agent.
// Every field has a safe default; a zero field means the default.
type AgentConfig struct {
	// Sandbox is "on" (the default) or "off". Off runs the agent without
	// its kernel sandbox: doctor and status say so loudly and the audit
	// records each start.
	Sandbox string `yaml:"sandbox"`
	// DailyBudgetUSD caps what the workspace's model calls cost per UTC
	// day, all sessions together (default 5; the engine refuses calls
	// past it).
	DailyBudgetUSD *float64 `yaml:"daily_budget_usd"`
	// SessionBudgetUSD caps one session per day (0: only the daily
	// budget).
	SessionBudgetUSD *float64 `yaml:"session_budget_usd"`
	// OutboundDLP refuses LLM requests that carry secrets (absent: on).
	OutboundDLP *bool `yaml:"outbound_dlp"`
	// Prices are what models cost, by the model name a pool entry calls
	// (its `model`), in USD per million tokens; they override the
	// engine's built-in table.
	Prices map[string]LLMPrice `yaml:"prices"`
	// MaxToolRounds is how many tool rounds one turn may take (25).
	MaxToolRounds int `yaml:"max_tool_rounds"`
	// ContextTokens is the model's context window (128000).
	ContextTokens int `yaml:"context_tokens"`
	// CompactAt is the share of the window past which older turns are
	// summarised (0.70).
	CompactAt float64 `yaml:"compact_at"`
	// MaxResponseTokens caps each model answer (4096).
	MaxResponseTokens int `yaml:"max_response_tokens"`
	// RestartBudget agent crashes within RestartWindow stop the engine
	// (5 in 60s).
	RestartBudget int      `yaml:"restart_budget"`
	RestartWindow Duration `yaml:"restart_window"`
	// Command tunes execute_command.
	Command *CommandConfig `yaml:"command"`
}

// LLMPrice is a model's price in USD per million tokens.
type LLMPrice struct {
	InputPerMTok  float64 `yaml:"input_per_mtok"`
	OutputPerMTok float64 `yaml:"output_per_mtok"`
}

// Budgets returns the daily and per-session budgets in USD (0: none
// for the session).
func (a *AgentConfig) Budgets() (daily, session float64) {
	daily = DefaultDailyBudgetUSD
	if a == nil {
		return daily, 0
	}
	if a.DailyBudgetUSD != nil {
		daily = *a.DailyBudgetUSD
	}
	if a.SessionBudgetUSD != nil {
		session = *a.SessionBudgetUSD
	}
	return daily, session
}

// ScanOutbound reports whether LLM requests are scanned for secrets.
func (a *AgentConfig) ScanOutbound() bool {
	return a == nil || a.OutboundDLP == nil || *a.OutboundDLP
}

// CommandConfig is the agent.command: block.
type CommandConfig struct {
	// Timeout is the default time a command may run (30s).
	Timeout Duration `yaml:"timeout"`
	// OutputCap is how many bytes of output the model sees (65536).
	OutputCap int `yaml:"output_cap"`
	// Caches are directories under $HOME a command may write besides
	// the workspace (toolchain caches). Default: Go, npm, pip, cargo.
	Caches []string `yaml:"caches"`
	// Registries are the hosts every command with network may reach
	// through its egress proxy, besides the hosts its verdict named
	// (default: the Go module proxy, npm, PyPI, crates.io, Debian). An
	// entry may be a literal IP:port; only such an entry may be a
	// private or loopback address (a local mirror).
	Registries []string `yaml:"registries"`
	// Limits bound each command's resources (per process).
	Limits *CommandLimits `yaml:"limits"`
}

// CommandLimits are a command's resource limits (0: the default).
type CommandLimits struct {
	MemoryMB      int `yaml:"memory_mb"`       // per process, default 1024
	TotalMemoryMB int `yaml:"total_memory_mb"` // the whole command (a memory cgroup, as root), default 2048
	Processes     int `yaml:"processes"`       // default 256
	FileSizeMB    int `yaml:"file_size_mb"`    // default 4096
	OpenFiles     int `yaml:"open_files"`      // default 4096
}

// Agent defaults.
const (
	DefaultDailyBudgetUSD    = 5.0
	DefaultMaxToolRounds     = 25
	DefaultContextTokens     = 128000
	DefaultCompactAt         = 0.70
	DefaultMaxResponseTokens = 4096
	DefaultRestartBudget     = 5
	DefaultRestartWindow     = time.Minute
	DefaultCommandTimeout    = 30 * time.Second
	DefaultOutputCap         = 64 << 10
)

// DefaultCaches are the toolchain caches under $HOME a command may
// write: what `go test`, `npm ci`, `pip install --user` and `cargo
// build` need.
func DefaultCaches() []string {
	return []string{".cache/go-build", "go/pkg/mod", ".npm", ".cache/pip", ".cargo/registry", ".cargo/git"}
}

// AgentSettings is the agent configuration with every default applied.
type AgentSettings struct {
	SandboxOff                   bool
	DailyBudgetUSD               float64
	MaxToolRounds, ContextTokens int
	CompactAt                    float64
	MaxResponseTokens            int
	RestartBudget                int
	RestartWindow                time.Duration
	CommandTimeout               time.Duration
	OutputCap                    int
	Caches                       []string
	Registries                   []string // nil: the egress package's defaults
	Limits                       CommandLimits
}

// AgentSettings returns the agent settings of c, defaults applied.
func (c Config) AgentSettings() AgentSettings {
	s := AgentSettings{DailyBudgetUSD: DefaultDailyBudgetUSD, MaxToolRounds: DefaultMaxToolRounds,
		ContextTokens: DefaultContextTokens, CompactAt: DefaultCompactAt, MaxResponseTokens: DefaultMaxResponseTokens,
		RestartBudget: DefaultRestartBudget, RestartWindow: DefaultRestartWindow, CommandTimeout: DefaultCommandTimeout,
		OutputCap: DefaultOutputCap, Caches: DefaultCaches()}
	a := c.Agent
	if a == nil {
		return s
	}
	s.SandboxOff = a.Sandbox == "off"
	s.DailyBudgetUSD, _ = a.Budgets()
	setIf(&s.MaxToolRounds, a.MaxToolRounds)
	setIf(&s.ContextTokens, a.ContextTokens)
	setIf(&s.CompactAt, a.CompactAt)
	setIf(&s.MaxResponseTokens, a.MaxResponseTokens)
	setIf(&s.RestartBudget, a.RestartBudget)
	setIf(&s.RestartWindow, a.RestartWindow.Duration)
	if cc := a.Command; cc != nil {
		setIf(&s.CommandTimeout, cc.Timeout.Duration)
		setIf(&s.OutputCap, cc.OutputCap)
		if cc.Caches != nil {
			s.Caches = append([]string(nil), cc.Caches...)
		}
		if cc.Registries != nil {
			s.Registries = append([]string(nil), cc.Registries...)
		}
		if cc.Limits != nil {
			s.Limits = *cc.Limits
		}
	}
	return s
}

func setIf[T int | float64 | time.Duration](dst *T, v T) {
	if v != 0 {
		*dst = v
	}
}

// check validates the agent block; nil is the defaults.
func (a *AgentConfig) check() error {
	if a == nil {
		return nil
	}
	var errs []error
	switch a.Sandbox {
	case "", "on", "off":
	default:
		errs = append(errs, fmt.Errorf("agent.sandbox is %q (want on or off)", a.Sandbox))
	}
	for _, b := range []struct {
		key string
		v   *float64
	}{{"daily_budget_usd", a.DailyBudgetUSD}, {"session_budget_usd", a.SessionBudgetUSD}} {
		if b.v != nil && !(*b.v > 0 && *b.v <= 10000) {
			errs = append(errs, fmt.Errorf("agent.%s %v is out of range (a positive number of dollars up to 10000)", b.key, *b.v))
		}
	}
	names := make([]string, 0, len(a.Prices))
	for n := range a.Prices {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := a.Prices[n]
		if !finiteNonNeg(p.InputPerMTok) || !finiteNonNeg(p.OutputPerMTok) {
			errs = append(errs, fmt.Errorf("agent.prices.%s: prices must be non-negative numbers", n))
		}
	}
	errs = append(errs, intRange("agent.max_tool_rounds", a.MaxToolRounds, 1, 500),
		intRange("agent.context_tokens", a.ContextTokens, 4000, 10_000_000),
		intRange("agent.max_response_tokens", a.MaxResponseTokens, 64, 1_000_000),
		intRange("agent.restart_budget", a.RestartBudget, 1, 100))
	if a.CompactAt != 0 && (a.CompactAt < 0.1 || a.CompactAt > 0.95) {
		errs = append(errs, fmt.Errorf("agent.compact_at %v is out of range (0.1–0.95)", a.CompactAt))
	}
	if cc := a.Command; cc != nil {
		errs = append(errs, intRange("agent.command.output_cap", cc.OutputCap, 1024, 16<<20))
		if cc.Timeout.Duration > time.Hour {
			errs = append(errs, fmt.Errorf("agent.command.timeout %v is longer than 1h", cc.Timeout.Duration))
		}
		for i, r := range cc.Registries {
			if r == "" || strings.ContainsAny(r, "/ \t*") {
				errs = append(errs, fmt.Errorf("agent.command.registries[%d] %q must be a host name or IP[:port]", i, r))
			}
		}
		if l := cc.Limits; l != nil {
			errs = append(errs, intRange("agent.command.limits.memory_mb", l.MemoryMB, 64, 1<<20),
				intRange("agent.command.limits.total_memory_mb", l.TotalMemoryMB, 64, 1<<22),
				intRange("agent.command.limits.processes", l.Processes, 8, 1<<16),
				intRange("agent.command.limits.file_size_mb", l.FileSizeMB, 1, 1<<24),
				intRange("agent.command.limits.open_files", l.OpenFiles, 64, 1<<20))
		}
		for i, c := range cc.Caches {
			if c == "" || filepath.IsAbs(c) || strings.HasPrefix(filepath.Clean(c), "..") || filepath.Clean(c) == "." {
				errs = append(errs, fmt.Errorf("agent.command.caches[%d] %q must be a directory under $HOME, written relative to it", i, c))
			}
		}
	}
	return errors.Join(errs...)
}

func finiteNonNeg(f float64) bool { return f >= 0 && f < math.Inf(1) }

// intRange checks an optional int (0 = default).
func intRange(key string, v, lo, hi int) error {
	if v != 0 && (v < lo || v > hi) {
		return fmt.Errorf("%s %d is out of range (%d–%d)", key, v, lo, hi)
	}
	return nil
}
