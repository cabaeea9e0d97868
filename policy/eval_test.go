package policy

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mustParse(t testing.TB, name, src string) *Policy {
	t.Helper()
	p, err := Parse(name, []byte(src), testVars)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWithMergeSemantics(t *testing.T) {
	base := mustParse(t, "base.yaml", `
verify:
  - {name: mail, action_types: [send_email], tier: 2}
allow:
  - {name: reads, action_types: [read_file], access: [read]}
`)
	user := mustParse(t, "user.yaml", `
deny:
  - {name: no_secrets_dir, paths: ["/srv/secrets/**"]}
verify:
  - {name: mail_low, action_types: [send_email], tier: 1}
  - {name: mail_human, action_types: [send_email], domains: ["*.gov"], tier: 3}
allow:
  - {name: mail_ok, action_types: [send_email]}
  - {name: events, action_types: [create_event]}
`)
	p := base.With(user)
	if got := p.Sources(); len(got) != 2 || got[0] != "base.yaml" || got[1] != "user.yaml" {
		t.Errorf("got sources %v", got)
	}
	cases := []struct {
		typ, payload string
		hosts        []string
		want         Effect
		tier         int
		rule, source string
	}{
		{"read_file", `{"path":"/srv/secrets/k"}`, nil, Deny, 0, "no_secrets_dir", "user.yaml"},
		{"read_file", `{"path":"/srv/other"}`, nil, Allow, 0, "reads", "base.yaml"},
		// verify beats allow across layers: the user's allow cannot lower the base's tier.
		{"send_email", `{"to":"a@b.c","subject":"s","body":"b"}`, nil, Verify, 2, "mail", "base.yaml"},
		// highest tier over all matching verify rules.
		{"send_email", `{"to":"a@b.c","subject":"s","body":"b"}`, []string{"irs.gov"}, Verify, 3, "mail_human", "user.yaml"},
		{"create_event", `{"title":"t","start":"x"}`, nil, Allow, 0, "events", "user.yaml"},
		{"git_push", `{}`, nil, None, 0, "", ""},
	}
	for _, c := range cases {
		in := NewInput(decodeAction(t, c.typ, c.payload), nil)
		in.Hosts = c.hosts
		got := p.Evaluate(in)
		if got.Effect != c.want || got.Tier != c.tier || got.Rule != c.rule || got.Source != c.source {
			t.Errorf("%s %v: got %v/%d %q from %q, want %v/%d %q from %q", c.typ, c.hosts,
				got.Effect, got.Tier, got.Rule, got.Source, c.want, c.tier, c.rule, c.source)
		}
	}
	// The base is unchanged.
	if got := base.Evaluate(NewInput(decodeAction(t, "read_file", `{"path":"/srv/secrets/k"}`), nil)); got.Effect != Allow {
		t.Errorf("base changed by With: got %v", got.Effect)
	}
}

func TestChainRules(t *testing.T) {
	p := mustParse(t, "c.yaml", `
deny:
  - {name: no_etc, paths: ["/etc/**"]}
rules:
  - {kind: shell, effect: deny, pattern: '.*', priority: 100, reason: everything else}
  - {kind: shell, effect: allow, pattern: '^git status$', priority: 1}
  - {kind: domain, effect: verify, pattern: 'example\.com$', priority: 5, tier: 3}
  - {kind: tool, effect: allow, pattern: '^read_', priority: 50}
  - {kind: capability, effect: deny, pattern: '^force_push$', priority: 2}
`)
	cases := []struct {
		name, typ, payload string
		eff                *shell.Effects
		want               Effect
		rule               string
	}{
		{"allowlisted command shadows the catch-all", "execute_command", `{"command":"git status"}`, nil, Allow, "rules[1]"},
		{"catch-all deny", "execute_command", `{"command":"git status; rm x"}`, nil, Deny, "rules[0]"},
		{"capability deny before catch-all", "execute_command", `{"command":"git push -f"}`,
			&shell.Effects{Tags: []shell.Tag{{Kind: shell.TagForcePush}}}, Deny, "rules[4]"},
		{"domain verify", "http_request", `{"method":"GET","url":"https://api.example.com/"}`, nil, Verify, "rules[2]"},
		{"section deny beats chain allow", "read_file", `{"path":"/etc/passwd"}`, nil, Deny, "no_etc"},
		{"tool allow", "read_file", `{"path":"/home/x"}`, nil, Allow, "rules[3]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := p.Evaluate(NewInput(decodeAction(t, c.typ, c.payload), c.eff))
			if got.Effect != c.want || got.Rule != c.rule {
				t.Errorf("got %v %q (%s), want %v %q", got.Effect, got.Rule, got.Reason, c.want, c.rule)
			}
		})
	}
}

func TestMatchers(t *testing.T) {
	p := mustParse(t, "m.yaml", `
deny:
  - {name: keys, paths: ["~/.ssh/id_*", "/etc/**/secret.conf"]}
  - {name: git_push_any, programs: [git], subcommands: [push]}
  - {name: evil, domains: ["*.evil.test", "pastebin.com"]}
  - {name: outside_writes, action_types: [execute_command], paths_outside: ["$WORKSPACE/**", "/tmp/**"], access: [write]}
allow:
  - {name: ws_progs, action_types: [execute_command], programs: [go, make], paths: ["$WORKSPACE/**"]}
  - {name: example_only, action_types: [http_request], domains: ["example.com"]}
`)
	type tc struct {
		name  string
		eff   *shell.Effects
		hosts []string
		want  Effect
		rule  string
	}
	cmd := decodeAction(t, "execute_command", `{"command":"x"}`)
	cases := []tc{
		{"glob may hit key", sh([]string{"cat"}, []shell.PathUse{globUse("/home/dev/.ssh/*", r)}, nil), nil, Deny, "keys"},
		{"glob in other dir", sh([]string{"cat"}, []shell.PathUse{globUse("/home/dev/.config/*", r)}, nil), nil, None, ""},
		{"glob wrong suffix", sh([]string{"cat"}, []shell.PathUse{globUse("/etc/*/*.pem", r)}, nil), nil, None, ""},
		{"glob general overlap", sh([]string{"cat"}, []shell.PathUse{globUse("/etc/*/secret.*", r)}, nil), nil, Deny, "keys"},
		{"glob with dotdot is unknown", sh([]string{"cat"}, []shell.PathUse{globUse("/home/dev/project/*/../../.ssh/x", r)}, nil), nil, Deny, "keys"},
		{"relative path is unknown", sh([]string{"cat"}, []shell.PathUse{use("id_rsa", r)}, nil), nil, Deny, "keys"},
		{"uncleaned path", sh([]string{"cat"}, []shell.PathUse{use("/home/dev/project/../.ssh/id_rsa", r)}, nil), nil, Deny, "keys"},
		{"git -C dir push", sh(nil, nil, nil), nil, Deny, "git_push_any"},
		{"dynamic program may be git", &shell.Effects{Execs: []shell.Exec{{Name: ""}}}, nil, Deny, "git_push_any"},
		{"evil subdomain", sh([]string{"curl"}, nil, []string{"x.EVIL.test"}), nil, Deny, "evil"},
		{"evil apex is not *.evil.test", sh([]string{"curl"}, nil, []string{"evil.test"}), nil, None, ""},
		{"unknown host may be evil", sh([]string{"curl"}, nil, []string{""}), nil, Deny, "evil"},
		{"write in /tmp", sh([]string{"cp"}, []shell.PathUse{use("/tmp/a", w)}, nil), nil, None, ""},
		{"write outside", sh([]string{"cp"}, []shell.PathUse{use("/opt/a", w)}, nil), nil, Deny, "outside_writes"},
		{"glob write outside", sh([]string{"cp"}, []shell.PathUse{globUse("/opt/*.txt", w)}, nil), nil, Deny, "outside_writes"},
		{"glob write inside", sh([]string{"go"}, []shell.PathUse{globUse("/home/dev/project/*.go", w)}, nil), nil, Allow, "ws_progs"},
		{"glob write prefix-only", sh([]string{"go"}, []shell.PathUse{globUse("/home/dev/project*", w)}, nil), nil, Deny, "outside_writes"},
		{"allow needs every program", sh([]string{"go", "curl"}, []shell.PathUse{use("/home/dev/project/a", r)}, nil), nil, None, ""},
		{"allow needs every path", sh([]string{"make"}, []shell.PathUse{use("/home/dev/project/a", r), use("/etc/hosts", r)}, nil), nil, None, ""},
	}
	cases[7].eff.Execs = []shell.Exec{{Name: "git", Args: []string{"-C", "/x", "push"}}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := NewInput(cmd, c.eff)
			got := p.Evaluate(in)
			if got.Effect != c.want || got.Rule != c.rule {
				t.Errorf("got %v %q (%s), want %v %q", got.Effect, got.Rule, got.Reason, c.want, c.rule)
			}
		})
	}
	http := func(u string) Result {
		return p.Evaluate(NewInput(decodeAction(t, "http_request", `{"method":"GET","url":"`+u+`"}`), nil))
	}
	if got := http("https://example.com/x"); got.Effect != Allow {
		t.Errorf("example.com: got %v", got.Effect)
	}
	if got := http("https://pastebin.com/raw/x"); got.Effect != Deny {
		t.Errorf("pastebin: got %v", got.Effect)
	}
}

func TestEvaluateFailsClosed(t *testing.T) {
	p, _ := Preset("permissive", testVars)
	var none *Policy
	if got := none.Evaluate(NewInput(decodeAction(t, "git_status", `{}`), nil)); got.Effect != Deny {
		t.Errorf("nil policy: got %v, want Deny", got.Effect)
	}
	for name, in := range map[string]*Input{
		"nil input":    nil,
		"nil action":   {},
		"unknown type": {Action: &action.Action{Type: "rm_rf", Payload: &action.EmptyPayload{}}},
	} {
		if got := p.Evaluate(in); got.Effect != Deny || got.Reason == "" {
			t.Errorf("%s: got %+v, want Deny with a reason", name, got)
		}
	}
}

func TestReasonNamesRuleAndPartButNoSecrets(t *testing.T) {
	p, _ := Preset("default", testVars)
	a := decodeAction(t, "http_request", `{"method":"POST","url":"https://api.example.com/x?token=SECRET123","body":"SECRET123"}`)
	got := p.Evaluate(NewInput(a, nil))
	if !strings.Contains(got.Reason, `"http_writes"`) || !strings.Contains(got.Reason, "method POST") || strings.Contains(got.Reason, "SECRET") {
		t.Errorf("got reason %q", got.Reason)
	}
	if got.Code() != ReasonVerify {
		t.Errorf("got code %q, want %q", got.Code(), ReasonVerify)
	}
	got = p.Evaluate(NewInput(decodeAction(t, "read_file", `{"path":"~/.netrc"}`), nil))
	if want := `policy rule "credential_files" denies read_file (path /home/dev/.netrc): credential files are off limits`; got.Reason != want {
		t.Errorf("got %q, want %q", got.Reason, want)
	}
}

func TestExplain(t *testing.T) {
	p, _ := Preset("default", testVars)
	in := NewInput(decodeAction(t, "write_file", `{"path":"/home/dev/project/USER.md","content":"x"}`), nil)
	ex := p.Explain(in)
	if ex.Result != p.Evaluate(in) {
		t.Fatalf("explain result %+v differs from evaluate %+v", ex.Result, p.Evaluate(in))
	}
	if len(ex.Steps) != p.Rules() {
		t.Errorf("got %d steps, want one per rule (%d)", len(ex.Steps), p.Rules())
	}
	var decided []string
	matched := map[string]bool{}
	for _, s := range ex.Steps {
		if s.Decided {
			decided = append(decided, s.Rule)
		}
		matched[s.Rule] = s.Matched
	}
	if len(decided) != 1 || decided[0] != "memory_files" {
		t.Errorf("got deciding rules %v, want [memory_files]", decided)
	}
	if !matched["workspace_writes"] || matched["writes_outside_workspace"] {
		t.Errorf("matched: %v", matched)
	}
	out := ex.String(false)
	for _, want := range []string{"decision: verify (tier 1) [policy_verify]", `=> memory_files`, " + workspace_writes", "no match"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "send_email") || !strings.Contains(ex.String(true), "does not list write_file") {
		t.Errorf("all=false should hide rules for other types:\n%s", out)
	}
}

func TestLint(t *testing.T) {
	p := mustParse(t, "l.yaml", `
deny:
  - {name: d, action_types: [read_file], paths: ["/x/**"]}
verify:
  - {name: v, action_types: [read_file], paths: ["/x/**"], tier: 1}
allow:
  - {name: a, action_types: [read_file], paths: ["/x/**"]}
  - {name: b, action_types: [read_file], paths: ["/y/**"]}
`)
	ws := p.Lint()
	if len(ws) != 2 || ws[0].Rule != "v" || ws[1].Rule != "a" || !strings.Contains(ws[1].Msg, `deny rule "d"`) {
		t.Errorf("got %v", ws)
	}
}

func TestCompiledGolden(t *testing.T) {
	var b strings.Builder
	for _, n := range PresetNames() {
		p, err := Preset(n, testVars)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(p.Compiled())
		b.WriteString("\n")
	}
	golden := filepath.Join("testdata", "compiled.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./policy/ -run Golden -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("compiled presets differ from %s; run go test ./policy/ -run Golden -update and review the diff", golden)
	}
}

func TestHostOf(t *testing.T) {
	cases := map[string]string{
		"https://API.Example.com:8443/x": "api.example.com",
		"git@github.com:org/repo.git":    "github.com",
		"ssh://git@host.test/repo":       "host.test",
		"http://[::1]/":                  "::1",
		"/local/path":                    "",
		"not a url":                      "",
	}
	for in, want := range cases {
		if got := HostOf(in); got != want {
			t.Errorf("HostOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCaseFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cf, err := ParseCases("cases.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Preset(cf.Policy, Vars{Workspace: cf.Workspace, Home: cf.Home})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range p.RunCases(cf, Vars{Workspace: cf.Workspace, Home: cf.Home}, nil) {
		if !res.Pass {
			t.Errorf("cases.yaml:%d %s: %s", res.Line, res.Name, res.Msg)
		}
	}
	for _, bad := range []string{"cases: []\n", "cases:\n  - {name: x, action: {type: read_file}}\n", "cases:\n  - {name: x, action: {type: read_file}, expect: block}\n", "bogus: 1\n"} {
		if _, err := ParseCases("bad.yaml", []byte(bad)); err == nil {
			t.Errorf("%q: got nil error", bad)
		}
	}
}
