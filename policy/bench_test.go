package policy

import (
	"testing"

	"github.com/parallax/parallax/shell"
)

// BenchmarkEvaluate: go test ./policy/ -run '^$' -bench Evaluate -benchmem
func BenchmarkEvaluate(b *testing.B) {
	p, err := Preset("default", testVars)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		in   *Input
	}{
		{"read_workspace", NewInput(decodeAction(b, "read_file", `{"path":"/home/dev/project/src/main.go"}`), nil)},
		{"read_elsewhere", NewInput(decodeAction(b, "read_file", `{"path":"/usr/share/doc/x/README"}`), nil)},
		{"write_outside", NewInput(decodeAction(b, "write_file", `{"path":"/opt/x","content":"y"}`), nil)},
		{"shell", NewInput(decodeAction(b, "execute_command", `{"command":"go test ./..."}`),
			sh([]string{"go"}, []shell.PathUse{use("/home/dev/project", r), globUse("/home/dev/project/*.go", r)}, nil))},
		{"http_post", NewInput(decodeAction(b, "http_request", `{"method":"POST","url":"https://api.example.com/"}`), nil)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = p.Evaluate(c.in)
			}
		})
	}
}
