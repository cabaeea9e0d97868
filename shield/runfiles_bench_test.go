package shield

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// makefileOf is an n-line Makefile: variables, 60 targets chained by
// prerequisites, test depending on all of them.
func makefileOf(n int) string {
	var b strings.Builder
	b.WriteString("GO ?= go\nPKGS := ./...\nBIN = bin\nLDFLAGS = -s -w\n")
	lines := 4
	var deps []string
	for i := 0; lines < n-4; i++ {
		name := fmt.Sprintf("step%d", i)
		deps = append(deps, name)
		fmt.Fprintf(&b, "%s:\n\t$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/%s ./cmd/%s\n", name, name, name)
		lines += 2
	}
	fmt.Fprintf(&b, "test: %s\n\t$(GO) test -race $(PKGS)\n\t$(GO) vet $(PKGS)\n.PHONY: test\n", strings.Join(deps, " "))
	return b.String()
}

// BenchmarkMakeTest is the cost of judging make test with a 200-line
// Makefile on disk (read, expanded, every recipe judged), and with one
// four times as long (the cost grows linearly):
// go test ./shield -run '^$' -bench MakeTest
func BenchmarkMakeTest(b *testing.B) {
	for _, n := range []int{200, 800} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) { benchMakeTest(b, n) })
	}
}

func benchMakeTest(b *testing.B, n int) {
	d := b.TempDir()
	ws, home := d+"/project", d+"/home"
	mustMkdir(b, ws)
	mustWrite(b, ws+"/Makefile", makefileOf(n))
	g, err := New(Config{Workspace: ws, Home: home})
	if err != nil {
		b.Fatal(err)
	}
	if v := run(g, "s", "make test"); v.Decision != verdict.Allow {
		b.Fatalf("got %v %s (%s), want ALLOW", v.Decision, v.Rule, v.Reason)
	}
	for b.Loop() {
		run(g, "s", "make test")
	}
}

// BenchmarkMakeTestNoMakefile is the same command with no Makefile: the
// cost of leaving the fast path.
func BenchmarkMakeTestNoMakefile(b *testing.B) {
	d := b.TempDir()
	mustMkdir(b, d+"/project")
	g, err := New(Config{Workspace: d + "/project", Home: d + "/home"})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		run(g, "s", "make test")
	}
}
