package policy

import (
	"testing"

	"github.com/parallax/parallax/shell"
)

func FuzzParse(f *testing.F) {
	for _, n := range PresetNames() {
		src, _ := PresetSource(n)
		f.Add(src)
	}
	for _, s := range []string{
		"deny:\n  - {name: a, paths: [\"~/x/**\"], access: [read]}\n",
		"rules:\n  - {kind: shell, effect: deny, pattern: 'rm\\s+-rf', priority: 3}\n",
		"verify:\n  - {name: v, action_types: [\"git_*\"], domains: [\"*.x.com\"], tier: 2, fallback: true}\n",
		"allow:\n  - {name: a, programs: [git], subcommands: [status], commands: ['^git']}\n",
		"deny: &a\n  - *a\n",
	} {
		f.Add([]byte(s))
	}
	inputs := []struct{ typ, payload string }{
		{"read_file", `{"path":"/home/dev/.ssh/id_rsa"}`},
		{"execute_command", `{"command":"git push -f"}`},
		{"http_request", `{"method":"POST","url":"https://x.example.com/"}`},
		{"move_file", `{"source":"/home/dev/project/a","destination":"/opt/b"}`},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p1, err1 := Parse("f.yaml", data, testVars)
		p2, err2 := Parse("f.yaml", data, testVars)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("non-deterministic errors: %v / %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if p1.Compiled() != p2.Compiled() {
			t.Fatalf("non-deterministic compile")
		}
		eff := sh([]string{"git", ""}, []shell.PathUse{globUse("/home/dev/*", r), use("rel", w)}, []string{"", "x.example.com"}, shell.TagForcePush)
		for _, c := range inputs {
			in := NewInput(decodeAction(t, c.typ, c.payload), eff)
			a, b := p1.Evaluate(in), p2.Evaluate(in)
			if a != b {
				t.Fatalf("non-deterministic evaluate: %+v / %+v", a, b)
			}
			if ex := p1.Explain(in); ex.Result != a {
				t.Fatalf("explain %+v differs from evaluate %+v", ex.Result, a)
			}
			_ = p1.Lint()
		}
	})
}
