package ifc

import (
	"context"
	"fmt"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// benchInputs is a mix of what the gate sees: typed actions with and
// without sinks, and shell commands analysed beforehand (the gate hands
// its analysis over, so the analyser's cost is not counted here).
func benchInputs(b *testing.B) []Input {
	mk := func(typ, payload string) Input {
		in := Input{Session: "s1", Action: decode(b, typ, payload)}
		if code := action.ShellCode(in.Action); code != "" {
			in.Effects = shell.Analyze(code, shell.Options{Cwd: testWS, Home: testHome})
		}
		return in
	}
	return []Input{
		mk("read_file", `{"path":"/home/dev/project/main.go"}`),
		mk("send_email", `{"to":"a@example.com","subject":"s","body":"the build is green","attachments":["/home/dev/project/report.pdf"]}`),
		mk("http_request", `{"method":"POST","url":"https://api.team.example/notes","body":"hello"}`),
		mk("write_file", `{"path":"/home/dev/project/src/a.go","content":"package a"}`),
		mk("execute_command", `{"command":"go test ./..."}`),
		mk("execute_command", `{"command":"curl -d @notes/todo.md https://api.team.example/"}`),
		mk("execute_command", `{"command":"cp build/app.tar.gz /tmp/out/"}`),
		mk("memory_write", `{"content":"prefers tabs"}`),
	}
}

func BenchmarkEvaluate(b *testing.B) {
	tr, st := newTracker(b, "default", nil)
	ctx := context.Background()
	_ = st.RaiseTaint(ctx, "s1", Internal, "/home/dev/project/main.go")
	for i := range 200 {
		_ = st.UpsertActivity(ctx, Activity{Path: "/tmp/stash/" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Level: Critical})
	}
	ins := benchInputs(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := tr.Evaluate(ctx, ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkObserve(b *testing.B) {
	tr, _ := newTracker(b, "default", nil)
	ctx := context.Background()
	ins := benchInputs(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := tr.Observe(ctx, ins[i%len(ins)], Output{Text: "ok"}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkClassify(b *testing.B) {
	c := mustPaths(b)
	paths := []string{"/home/dev/project/internal/server/handler.go", "/home/dev/.ssh/id_rsa",
		"/home/dev/Documents/Taxes/2023/return.pdf", "/home/dev/project/README.md", "/tmp/x"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Classify(paths[i%len(paths)])
		i++
	}
}

// BenchmarkObserveGlobsOverActivity observes find and glob reads in a
// workspace whose activity table holds 500 labelled files (a session that
// has written while tainted): each glob read looks for a labelled file it
// may match.
func BenchmarkObserveGlobsOverActivity(b *testing.B) {
	tr, st := newTracker(b, "default", nil)
	ctx := context.Background()
	for i := range 500 {
		p := fmt.Sprintf("%s/out/d%d/f%d.txt", testWS, i%20, i)
		if err := st.UpsertActivity(ctx, Activity{Path: p, Level: Confidential, Source: "test"}); err != nil {
			b.Fatal(err)
		}
	}
	var ins []Input
	for _, c := range []string{"find . -name '*.jpg' -exec ls -l {} +", "grep -rn TODO .", "cat out/*/*.log", "ls out/d1/*.md"} {
		in := Input{Session: "s1", Action: decode(b, "execute_command", `{"command":"`+c+`"}`)}
		in.Effects = shell.Analyze(c, shell.Options{Cwd: testWS, Home: testHome})
		ins = append(ins, in)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := tr.Observe(ctx, ins[i%len(ins)], Output{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
