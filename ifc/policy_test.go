package ifc

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mustPreset(t testing.TB, name string) *Policy {
	t.Helper()
	p, err := Preset(name)
	if err != nil {
		t.Fatalf("preset %s: %v", name, err)
	}
	return p
}

func TestPresetNames(t *testing.T) {
	got := strings.Join(PresetNames(), ",")
	if got != "default,permissive,strict" {
		t.Errorf("got %s, want default,permissive,strict", got)
	}
	if _, err := Preset("nope"); err == nil {
		t.Errorf("unknown preset: got nil error")
	}
}

func TestPresetDecisions(t *testing.T) {
	A, E, B := verdict.Allow, verdict.Escalate, verdict.Block
	cases := []struct {
		preset string
		level  Level
		sink   Sink
		want   verdict.Decision
		rule   string
	}{
		{"default", Critical, SinkEmail, B, "credentials_stay_home"},
		{"default", Critical, SinkNetwork, B, "credentials_stay_home"},
		{"default", Critical, SinkSchedule, B, "credentials_stay_home"},
		{"default", Critical, SinkMemory, B, RuleMemoryBlock},
		{"default", Critical, SinkWriteOutside, E, "credentials_handled_locally"},
		{"default", Critical, SinkWriteWorkspace, A, "local_work"},
		{"default", Critical, SinkExecute, A, "local_work"},
		{"default", Restricted, SinkHTTP, E, "restricted_data_leaving"},
		{"default", Restricted, SinkMemory, B, RuleMemoryBlock},
		{"default", Restricted, SinkAgent, A, "restricted_data_local"},
		{"default", Confidential, SinkEmail, A, "routine_flows"},
		{"default", Confidential, SinkMemory, A, "routine_flows"},
		{"default", Internal, SinkGitRemote, A, "routine_flows"},
		{"default", Public, SinkHTTP, A, "routine_flows"},
		{"permissive", Critical, SinkHTTP, B, "credentials_stay_home"},
		{"permissive", Critical, SinkMemory, B, RuleMemoryBlock},
		{"permissive", Critical, SinkWriteOutside, A, RuleDefault},
		{"permissive", Restricted, SinkEmail, A, RuleDefault},
		{"strict", Public, SinkHTTP, A, "public_flows"},
		{"strict", Internal, SinkHTTP, E, "internal_leaving"},
		{"strict", Internal, SinkExecute, A, "internal_local"},
		{"strict", Confidential, SinkWriteWorkspace, B, "classified_contained"},
		{"strict", Confidential, SinkExecute, B, "classified_contained"},
		{"strict", Critical, SinkMemory, B, "classified_contained"},
	}
	for _, tc := range cases {
		t.Run(tc.preset+"/"+tc.level.String()+"/"+tc.sink.String(), func(t *testing.T) {
			got := mustPreset(t, tc.preset).Decide(tc.level, tc.sink)
			if got.Decision != tc.want || got.Rule != tc.rule {
				t.Errorf("got %v (%s), want %v (%s)", got.Decision, got.Rule, tc.want, tc.rule)
			}
		})
	}
}

// TestPresetsCoverEveryCell: the default and strict presets say
// something explicit about every level × sink (the default decision is
// a safety net, not a design).
func TestPresetsCoverEveryCell(t *testing.T) {
	for _, name := range []string{"default", "strict"} {
		p := mustPreset(t, name)
		for _, l := range Levels() {
			for _, s := range AllSinks() {
				if o := p.Decide(l, s); o.Rule == RuleDefault {
					t.Errorf("%s: %v × %v falls to the policy default", name, l, s)
				}
			}
		}
	}
}

func TestDecideOutOfRange(t *testing.T) {
	p := mustPreset(t, "permissive")
	if got := p.Decide(Level(200), SinkHTTP); got.Decision != verdict.Block {
		t.Errorf("level 200: got %v, want BLOCK (judged as critical)", got.Decision)
	}
	if got := p.Decide(Public, Sink(200)); got.Decision != verdict.Block {
		t.Errorf("sink 200: got %v, want BLOCK", got.Decision)
	}
}

func TestCompiledGolden(t *testing.T) {
	var b strings.Builder
	for _, n := range PresetNames() {
		b.WriteString(mustPreset(t, n).Compiled())
		b.WriteByte('\n')
	}
	golden := filepath.Join("testdata", "compiled.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./ifc/ -run Golden -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("compiled presets differ from %s; run go test ./ifc/ -run Golden -update and review the diff", golden)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"empty", "", []string{"f.yaml: empty policy"}},
		{"no default", "rules: []\n", []string{`f.yaml:1: key "default" is required`}},
		{"unknown top key", "default: block\nsinks: [x]\n", []string{`f.yaml:2: unknown key "sinks"`}},
		{"bad default", "default: maybe\n", []string{`f.yaml:1: unknown decision "maybe"`}},
		{"bool default", "default: true\n", []string{`f.yaml:1: decision: want a string, got bool "true"`}},
		{"bad YAML", "default: [\n", []string{"f.yaml:", "invalid YAML"}},
		{"two docs", "default: block\n---\ndefault: allow\n", []string{"more than one YAML document"}},
		{"alias", "default: block\nmemory_block: &a [critical]\ntaint_sinks: *a\n", []string{"aliases are not supported"}},
		{"unknown sink", "default: block\ntaint_sinks: [http, email]\n", []string{`f.yaml:2: taint_sinks: unknown sink "http"`}},
		{"unknown level", "default: block\nmemory_block: [secret]\n", []string{`f.yaml:2: memory_block: unknown level "secret"`}},
		{"dup key", "default: block\ndefault: allow\n", []string{`f.yaml:2: key "default" given twice`}},
		{"not a mapping", "- a\n", []string{"f.yaml:1: want a mapping"}},
		{"rule missing keys", "default: block\nrules:\n  - name: r1\n    levels: [public]\n",
			[]string{`f.yaml:3: rule "r1": key "sinks" is required`, `f.yaml:3: rule "r1": key "decision" is required`}},
		{"rule unknown key", "default: block\nrules:\n  - {name: r1, levels: [public], sinks: [mcp], decision: allow, tier: 2}\n",
			[]string{`f.yaml:3: rule "r1": unknown key "tier"`}},
		{"rule dup name", "default: block\nrules:\n  - {name: r, levels: [public], sinks: [mcp], decision: allow}\n  - {name: r, levels: [public], sinks: [mcp], decision: block}\n",
			[]string{`f.yaml:4: rule "r": name: another rule has this name`}},
		{"rule bad name", "default: block\nrules:\n  - {name: 'a b', levels: [public], sinks: [mcp], decision: allow}\n",
			[]string{`f.yaml:3: rule "a b": name: want letters`}},
		{"rule empty levels", "default: block\nrules:\n  - {name: r, levels: [], sinks: [mcp], decision: allow}\n",
			[]string{`f.yaml:3: rule "r": levels: empty list`}},
		{"rule listed twice", "default: block\nrules:\n  - {name: r, levels: [public, public], sinks: [mcp], decision: allow}\n",
			[]string{`rule "r": levels: "public" listed twice`}},
		{"rule not a mapping", "default: block\nrules:\n  - r\n", []string{"f.yaml:3: rules[0]: want a rule mapping"}},
		{"rules not a list", "default: block\nrules: {a: b}\n", []string{"f.yaml:2: rules: want a list of rules"}},
		{"numeric level", "default: block\nrules:\n  - {name: r, levels: [1], sinks: [mcp], decision: allow}\n",
			[]string{`rule "r": levels: want a string, got int "1"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("f.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("got policy %v, want an error", p.Name())
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %T, want *LoadError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestParseOverlapWorstWins(t *testing.T) {
	src := `default: allow
taint_sinks: []
memory_block: []
rules:
  - {name: open, levels: ["*"], sinks: ["*"], decision: allow}
  - {name: review, levels: [restricted, critical], sinks: [external], decision: escalate, reason: look first}
  - {name: stop, levels: [critical], sinks: [send_email], decision: block}
  - {name: again, levels: [critical], sinks: [send_email], decision: block}
`
	p, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		l    Level
		s    Sink
		want verdict.Decision
		rule string
	}{
		{Critical, SinkEmail, verdict.Block, "stop"},
		{Critical, SinkHTTP, verdict.Escalate, "review"},
		{Restricted, SinkNetwork, verdict.Escalate, "review"},
		{Restricted, SinkMemory, verdict.Allow, "open"},
		{Internal, SinkEmail, verdict.Allow, "open"},
	}
	for _, tc := range cases {
		if got := p.Decide(tc.l, tc.s); got.Decision != tc.want || got.Rule != tc.rule {
			t.Errorf("%v × %v: got %v (%s), want %v (%s)", tc.l, tc.s, got.Decision, got.Rule, tc.want, tc.rule)
		}
	}
	if p.Tainted(SinkHTTP) {
		t.Errorf("taint_sinks: []: got HTTP tainted, want no taint sink")
	}
	if got := p.Decide(Critical, SinkHTTP).Reason; got != "look first" {
		t.Errorf("reason: got %q, want %q", got, "look first")
	}
}

func TestParseDefaultsWhenOmitted(t *testing.T) {
	p, err := Parse("f.yaml", []byte("default: escalate\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Tainted(SinkEmail) || !p.Tainted(SinkMemory) || p.Tainted(SinkWriteWorkspace) {
		t.Errorf("taint sinks: got %v, want the documented default set", p.taintSinks.names())
	}
	if got := p.Decide(Restricted, SinkMemory); got.Decision != verdict.Block || got.Rule != RuleMemoryBlock {
		t.Errorf("memory_block default: got %v (%s), want BLOCK (%s)", got.Decision, got.Rule, RuleMemoryBlock)
	}
	if got := p.Decide(Public, SinkHTTP); got.Decision != verdict.Escalate || got.Rule != RuleDefault {
		t.Errorf("uncovered cell: got %v (%s), want ESCALATE (%s)", got.Decision, got.Rule, RuleDefault)
	}
}

func TestLoadAndResolve(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ifc.yaml")
	if err := os.WriteFile(good, []byte("default: block\nrules:\n  - {name: ok, levels: [public], sinks: [\"*\"], decision: allow}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(good)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != good || p.Decide(Public, SinkHTTP).Decision != verdict.Allow {
		t.Errorf("got %s %v, want %s ALLOW", p.Name(), p.Decide(Public, SinkHTTP).Decision, good)
	}
	if p, err := Resolve(""); err != nil || p.Name() != "preset:default" {
		t.Errorf("empty spec: got %v, %v, want preset:default", p, err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: got %v, want an error naming %s", err, missing)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("default: block\n"+strings.Repeat("#", MaxPolicyBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "byte limit") {
		t.Errorf("big file: got %v, want the size limit", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range PresetNames() {
		src, _ := PresetSource(n)
		f.Add(src)
	}
	f.Add([]byte("default: block\nrules:\n  - {name: a, levels: [\"*\"], sinks: [external], decision: allow}\n"))
	f.Add([]byte("default: allow\nmemory_block: &x []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p1, err1 := Parse("f.yaml", data)
		p2, err2 := Parse("f.yaml", data)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("non-deterministic errors: %v / %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if p1.Compiled() != p2.Compiled() {
			t.Fatalf("non-deterministic compile")
		}
		for _, l := range Levels() {
			for _, s := range AllSinks() {
				if o := p1.Decide(l, s); o.Rule == "" {
					t.Fatalf("%v × %v: empty rule", l, s)
				}
			}
		}
	})
}
