package guard

import (
	"testing"
)

// go test -run '^$' -bench . -benchmem ./guard/
func BenchmarkCheck(b *testing.B) {
	fx := newFixture(b)
	logic := New("/home/u/proj", "/home/u", WithFS(emptyFS{}))
	cases := []struct {
		name string
		g    *Guard
		path string
	}{
		{"logic/workspace_file", logic, "/home/u/proj/internal/server/handler.go"},
		{"logic/ssh_key", logic, "/home/u/.ssh/id_rsa"},
		{"logic/etc_shadow", logic, "/etc/shadow"},
		{"os/workspace_file", fx.g, fx.ws + "/src/main.go"},
		{"os/ssh_key_via_link", fx.g, fx.ws + "/link/id_rsa"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.g.Check(c.path, rd|wr)
			}
		})
	}
}

func BenchmarkCheckGlob(b *testing.B) {
	logic := New("/home/u/proj", "/home/u", WithFS(emptyFS{}))
	for b.Loop() {
		logic.CheckGlob("/home/u/proj/**/*.go", rd)
	}
}
