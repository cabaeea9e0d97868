package policy

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml, rule, msg string
		line                  int
	}{
		{"unknown key", "deny:\n  - name: a\n    action_types: [read_file]\n    pathz: [/x]\n", "a", `unknown key "pathz"`, 4},
		{"bad regex", "deny:\n  - name: re\n    action_types: [execute_command]\n    commands: ['rm (']\n", "re", "bad regular expression", 4},
		{"duplicate name", "deny:\n  - name: a\n    action_types: [read_file]\nallow:\n  - name: a\n    action_types: [read_file]\n", "a", "duplicate rule name (first defined at line 2)", 5},
		{"unknown action type", "allow:\n  - name: t\n    action_types: [read_file, raed_file]\n", "t", `unknown action type "raed_file"`, 3},
		{"glob matches nothing", "allow:\n  - name: t\n    action_types: [\"gti_*\"]\n", "t", "matches no known action type", 3},
		{"tier too high", "verify:\n  - name: v\n    action_types: [send_email]\n    tier: 4\n", "v", "tier 4 outside 1..3", 4},
		{"tier zero", "verify:\n  - name: v\n    action_types: [send_email]\n    tier: 0\n", "v", "outside 1..3", 4},
		{"tier missing", "verify:\n  - name: v\n    action_types: [send_email]\n", "v", "needs a tier", 2},
		{"tier on deny", "deny:\n  - name: v\n    action_types: [send_email]\n    tier: 2\n", "v", "tier is only for verify", 4},
		{"tier as string", "verify:\n  - name: v\n    action_types: [send_email]\n    tier: \"2\"\n", "v", "want an integer", 4},
		{"missing name", "allow:\n  - action_types: [read_file]\n", "", "has no name", 2},
		{"bad glob", "deny:\n  - name: g\n    paths: [\"/etc/[ab\"]\n", "g", "bad glob", 3},
		{"relative path", "deny:\n  - name: g\n    paths: [\"etc/passwd\"]\n", "g", "not absolute", 3},
		{"unknown var", "deny:\n  - name: g\n    paths: [\"$TMPDIR/x\"]\n", "g", "unknown variable $TMPDIR", 3},
		{"wrong type list", "deny:\n  - name: g\n    paths: /etc/x\n", "g", "want a list of strings", 3},
		{"empty list", "deny:\n  - name: g\n    paths: []\n", "g", "empty list", 3},
		{"no condition", "deny:\n  - name: g\n", "g", "no condition", 2},
		{"unknown capability", "deny:\n  - name: c\n    capabilities: [force_pusj]\n", "c", `unknown capability "force_pusj"`, 3},
		{"domain is URL", "deny:\n  - name: c\n    domains: [\"https://x.com\"]\n", "c", "not a URL", 3},
		{"unknown top key", "denny:\n  - name: a\n", "", `unknown key "denny"`, 1},
		{"section not list", "deny: {name: a}\n", "", "want a list of rules", 1},
		{"rules bad kind", "rules:\n  - {name: k, kind: tol, effect: deny, pattern: x}\n", "k", `unknown kind "tol"`, 2},
		{"rules bad effect", "rules:\n  - {name: k, kind: tool, effect: block, pattern: x}\n", "k", `unknown effect "block"`, 2},
		{"rules bad regex", "rules:\n  - {name: k, kind: shell, effect: deny, pattern: 'a[', priority: 1}\n", "k", "bad regular expression", 2},
		{"rules missing pattern", "rules:\n  - {kind: shell, effect: deny}\n", "rules[0]", "needs a pattern", 2},
		{"rules unknown key", "rules:\n  - {kind: shell, effect: deny, pattern: x, paths: [/x]}\n", "rules[0]", `unknown key "paths"`, 2},
		{"duplicate key", "deny:\n  - name: a\n    action_types: [read_file]\n    action_types: [write_file]\n", "a", `key "action_types" given twice`, 4},
		{"alias", "deny:\n  - name: a\n    action_types: &t [read_file]\n  - name: b\n    action_types: *t\n", "", "aliases", 5},
		{"two documents", "deny: []\n---\nallow: []\n", "", "more than one YAML document", 0},
		{"invalid yaml", "deny:\n  - name: [\n", "", "invalid YAML", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("team.yaml", []byte(c.yaml), testVars)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want *LoadError", err)
			}
			for _, p := range le.Problems {
				if strings.Contains(p.Msg, c.msg) {
					if p.File != "team.yaml" || p.Rule != c.rule || (c.line != 0 && p.Line != c.line) {
						t.Errorf("got %s, want team.yaml:%d rule %q", p, c.line, c.rule)
					}
					if !strings.Contains(err.Error(), "team.yaml") {
						t.Errorf("error text %q does not name the file", err)
					}
					return
				}
			}
			t.Errorf("got %v, want a problem containing %q", err, c.msg)
		})
	}
}

func TestParseReportsAllProblems(t *testing.T) {
	_, err := Parse("p.yaml", []byte("deny:\n  - name: a\n    bogus: 1\n  - name: b\n    action_types: [nope]\n"), testVars)
	var le *LoadError
	if !errors.As(err, &le) || len(le.Problems) != 3 {
		t.Fatalf("got %v, want 3 problems", err)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "deny:\nverify:\n"} {
		p, err := Parse("e.yaml", []byte(src), testVars)
		if err != nil || p.Rules() != 0 {
			t.Errorf("%q: got %v, %v; want empty policy", src, p, err)
		}
	}
}

func TestExpand(t *testing.T) {
	v := Vars{Workspace: "/w/a[1]", Home: "/h"}
	cases := map[string]string{
		"~":                   "/h",
		"~/.ssh/**":           "/h/.ssh/**",
		"$HOME/x":             "/h/x",
		"${HOME}/x":           "/h/x",
		"$WORKSPACE/**":       `/w/a\[1\]/**`,
		"${WORKSPACE}/y/*.md": `/w/a\[1\]/y/*.md`,
		"/a~b":                "/a~b",
	}
	for in, want := range cases {
		got, err := expand(in, v)
		if err != nil || got != want {
			t.Errorf("expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := expand("$WORKSPACE/x", Vars{}); err == nil {
		t.Errorf("unset $WORKSPACE: got nil error")
	}
}
