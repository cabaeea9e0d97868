package guard

import (
	"os"
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
		{"os/multi_link_file", fx.g, fx.multiLink(b)},
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

// multiLink makes a workspace file with two names (a pnpm-style store
// link) for the identity check's cost: the index is consulted for it.
func (f fixture) multiLink(b *testing.B) string {
	store := f.home + "/store.js"
	if err := os.WriteFile(store, []byte("x"), 0o600); err != nil {
		b.Fatal(err)
	}
	p := f.ws + "/src/linked.js"
	if err := os.Link(store, p); err != nil {
		b.Skip(err)
	}
	return p
}
