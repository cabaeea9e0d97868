package ifc

import (
	"embed"

	"fmt"
	"strings"

	"github.com/parallax/parallax/internal/memo"
	"github.com/parallax/parallax/internal/yamlfile"

	"github.com/parallax/parallax/verdict"
)

// Reason codes that do not come from a policy rule. They are a public
// contract (audit, UI and tests use them).
const (
	RuleError       = "ifc_error"        // the tracker failed: blocked to fail closed
	RuleNoSink      = "ifc_no_sink"      // the action reaches no sink
	RuleDefault     = "ifc_default"      // no rule covers the level × sink: the policy default applies
	RuleMemoryBlock = "ifc_memory_block" // memory_write refused at this level (memory_block)
)

// Policy maps level × sink to a decision. It is immutable once compiled
// and safe for concurrent use.
type Policy struct {
	name       string
	def        verdict.Decision
	cells      [levelCount][sinkCount]Outcome
	taintSinks sinkSet
	memBlock   []Level
	// flat are the sinks where every level is allowed by one rule and the
	// taint is not judged: their decision needs no source.
	flat sinkSet
}

// flatten computes p.flat from the matrix.
func (p *Policy) flatten() {
	p.flat = 0
	for s := Sink(0); s < sinkCount; s++ {
		if p.taintSinks.has(s) || s == SinkMemory {
			continue
		}
		first := p.cells[0][s]
		ok := first.Decision == verdict.Allow
		for l := 1; ok && l < int(levelCount); l++ {
			ok = p.cells[l][s] == first
		}
		if ok {
			p.flat |= 1 << s
		}
	}
}

// Outcome is the policy's answer for one level × sink.
type Outcome struct {
	Decision verdict.Decision
	Rule     string // the rule's name, RuleDefault or RuleMemoryBlock
	Reason   string // the rule's reason ("" when it gives none)
}

// Decide returns what the policy says about data of level l reaching s.
// Out-of-range values are judged as Critical data and fail closed.
func (p *Policy) Decide(l Level, s Sink) Outcome {
	if s >= sinkCount {
		return Outcome{Decision: verdict.Block, Rule: RuleError, Reason: "unknown sink"}
	}
	return p.cells[l.clamp()][s]
}

// Tainted reports whether the session taint is judged at sink s (the
// policy's taint_sinks): data the session has seen may reach s even when
// the action names no source.
func (p *Policy) Tainted(s Sink) bool { return p.taintSinks.has(s) }

// Name is where the policy came from ("preset:default" or a file name).
func (p *Policy) Name() string { return p.name }

// defaultTaintSinks applies when a policy omits taint_sinks: every sink
// where data may leave, persist or be handed on.
var defaultTaintSinks = externalSinks.union(setOf(SinkOpaqueCommand, SinkWriteOutside, SinkMemory,
	SinkAgent, SinkSchedule))

// defaultMemoryBlock applies when a policy omits memory_block.
var defaultMemoryBlock = []Level{Restricted, Critical}

// Compiled renders the compiled matrix as stable text (golden files,
// `parallax ifc explain`).
func (p *Policy) Compiled() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ifc policy %s\n", p.name)
	fmt.Fprintf(&b, "default: %s\n", strings.ToLower(p.def.String()))
	fmt.Fprintf(&b, "taint_sinks: %s\n", strings.Join(p.taintSinks.names(), " "))
	ls := make([]string, len(p.memBlock))
	for i, l := range p.memBlock {
		ls[i] = l.String()
	}
	fmt.Fprintf(&b, "memory_block: %s\n", strings.Join(ls, " "))
	for s := Sink(0); s < sinkCount; s++ {
		b.WriteString(s.String() + ":")
		for l := Public; int(l) < levelCount; l++ {
			o := p.cells[l][s]
			fmt.Fprintf(&b, " %s=%s(%s)", l, strings.ToLower(o.Decision.String()), o.Rule)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

//go:embed presets/*.yaml
var presetFS embed.FS

var presets = yamlfile.Presets{FS: presetFS, Dir: "presets", Kind: "ifc"}

// PresetNames lists the embedded presets: default, permissive, strict.
func PresetNames() []string { return presets.Names() }

// PresetSource returns the YAML text of a preset.
func PresetSource(name string) ([]byte, error) { return presets.Source(name) }

// Preset compiles an embedded preset; its name is "preset:NAME".
//
// A compiled preset depends only on the embedded text and a Policy is
// never changed once compiled, so compilations are remembered.
func Preset(name string) (*Policy, error) {
	if p, ok := compiledPresets.Get(name); ok {
		return p, nil
	}
	data, err := PresetSource(name)
	if err != nil {
		return nil, err
	}
	p, err := Parse("preset:"+name, data)
	if err == nil {
		compiledPresets.Put(name, p)
	}
	return p, err
}

// compiledPresets remembers compiled presets by name.
var compiledPresets = memo.New[*Policy](16)

// Resolve compiles a preset name, else a policy file. Empty means the
// default preset; a file that shares a preset's name is reached as
// "./NAME".
func Resolve(spec string) (*Policy, error) {
	if spec == "" {
		spec = "default"
	}
	for _, n := range PresetNames() {
		if n == spec {
			return Preset(spec)
		}
	}
	return Load(spec)
}
