package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/e2e"
)

// Issue 22, first "Done when": a developer's day through the own agent.
// One session of real work in a fresh home — a Go module with a
// dependency from a loopback module proxy, an npm project with one from a
// loopback registry, a Python virtualenv with one from a loopback index,
// git with a loopback remote, recursive greps and formatters, mktemp, a
// loop over directories, a build past the default timeout — in several
// turns of `parallax run --json --session ID`, with the production
// configuration. Every call must succeed, or fail with a cause it names
// and the step expects; a failure that names no cause fails the test.

// devStep is one call of the session and what it must come to.
type devStep struct {
	step
	// cause is "" when the call must succeed; otherwise the call must fail
	// with a named cause (a refusal's rule and reason, an exit status, a
	// timeout, a sandbox refusal) that contains it.
	cause string
	// out is in a successful call's output.
	out string
}

func ok(s step, out string) devStep      { return devStep{step: s, out: out} }
func fails(s step, cause string) devStep { return devStep{step: s, cause: cause} }

func proposeWrite(path, content string) step {
	return step{tool: "write_file", args: map[string]any{"path": path, "content": content}}
}

func proposeEdit(path, old, new string) step {
	return step{tool: "edit_file", args: map[string]any{"path": path, "old": old, "new": new}}
}

func proposeRead(path string) step {
	return step{tool: "read_file", args: map[string]any{"path": path}}
}

func within(command string, secs int) step { return step{command: command, timeout: secs} }

// Outcome kinds of a call.
const (
	succeeded   = "succeeded"
	namedCause  = "failed with a named cause"
	unexplained = "failed unexplained"
)

// causeNamed matches what a failed call's result says when it names its
// cause: the exit status, a timeout with its limit and the parameter, the
// sandbox's note, or a tool's error code.
var causeNamed = regexp.MustCompile(`\[exit status \d+|timed out after \d+ s \(.*timeout_seconds|Parallax ran this command in its sandbox|\[[a-z_]+: [^\]]+\]`)

// classify is what call id came to, and the cause it named.
func classify(tr turn, id string) (kind, detail string) {
	var verdict, result *handsEvent
	for i := range tr.events {
		ev := &tr.events[i]
		if ev.CallID != id {
			continue
		}
		switch ev.Type {
		case "verdict":
			verdict = ev
		case "tool_result":
			result = ev
		}
	}
	switch {
	case verdict == nil:
		return unexplained, "no verdict"
	case verdict.Decision != "ALLOW" && verdict.Rule != "" && strings.TrimSpace(verdict.Reason) != "":
		return namedCause, verdict.Decision + " " + verdict.Rule + ": " + verdict.Reason
	case verdict.Decision != "ALLOW":
		return unexplained, verdict.Decision + " without a rule or reason"
	case result == nil:
		return unexplained, "ALLOW and no result"
	case result.OK != nil && *result.OK:
		return succeeded, result.Output
	case causeNamed.MatchString(result.Output):
		return namedCause, result.Output
	}
	return unexplained, "not ok: " + result.Output
}

// devServer is the loopback stand-in for every registry the session
// uses, on one host: a Go module proxy at /go, an npm registry at /npm,
// a simple index at /pip and git smart HTTP at /git (repositories under
// repos; app.git, empty, accepts pushes).
func devServer(t *testing.T) (srv *httptest.Server, agent, repos string) {
	t.Helper()
	repos = t.TempDir()
	remote := filepath.Join(repos, "app.git")
	hostGit(t, "init", "-q", "--bare", "-b", "main", remote)
	hostGit(t, "-C", remote, "config", "http.receivepack", "true")
	mux := http.NewServeMux()
	mux.Handle("/go/", http.StripPrefix("/go", goProxy(t, "example.com/dep", "v1.0.0", map[string]string{
		"dep.go": "package dep\n\n// Version is the library's version.\nfunc Version() string { return \"dep v1.0.0\" }\n"})))
	mux.Handle("/npm/", http.StripPrefix("/npm", npmRegistry(t, "/npm", "tinypkg", "1.0.0", map[string]string{
		"index.js": "module.exports = () => 'tiny';\n"})))
	mux.Handle("/pip/", http.StripPrefix("/pip", pipIndex(t, "tinypkg", "1.0.0", map[string]string{
		"tinypkg/__init__.py": "V = 1\n"})))
	mux.Handle("/git/", http.StripPrefix("/git", gitHTTP(t, repos)))
	srv, agent = registry(t, mux)
	return srv, agent, remote
}

// timedAnswers wraps a turn's answers so that each records when the
// model was asked for it and when it was answered: the time from an
// answer proposing a call to the model's next request in the turn is the
// call's whole round (engine, agent, command).
type timedAnswers struct {
	mu    sync.Mutex
	times map[int][]answerTime // by turn, in order
}

type answerTime struct{ asked, end time.Time }

func (ta *timedAnswers) wrap(turn int, as []func(http.ResponseWriter)) []func(http.ResponseWriter) {
	out := make([]func(http.ResponseWriter), len(as))
	for i, a := range as {
		out[i] = func(w http.ResponseWriter) {
			at := answerTime{asked: time.Now()}
			a(w)
			at.end = time.Now()
			ta.mu.Lock()
			if ta.times == nil {
				ta.times = map[int][]answerTime{}
			}
			ta.times[turn] = append(ta.times[turn], at)
			ta.mu.Unlock()
		}
	}
	return out
}

// round is the round of the call answer i of turn proposed (0 when it
// was not followed by another request).
func (ta *timedAnswers) round(turn, i int) time.Duration {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	ts := ta.times[turn]
	if i+1 >= len(ts) {
		return 0
	}
	return ts[i+1].asked.Sub(ts[i].end)
}

func TestRealDeveloperSession(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	// The programs as the engine's PATH finds them.
	found := map[string]string{}
	for _, prog := range []string{"git", "npm", "node", "python3", "make", "curl"} {
		for _, dir := range filepath.SplitList(handsPath(t)) {
			if p := filepath.Join(dir, prog); found[prog] == "" {
				if _, err := os.Stat(p); err == nil {
					found[prog] = p
				}
			}
		}
		if found[prog] == "" {
			e2e.Need(t, errors.New(prog+" is not on the engine's PATH"), prog+" for the developer session")
		}
	}
	if out, err := exec.Command(found["python3"], "-c", "import ensurepip").CombinedOutput(); err != nil {
		e2e.Need(t, fmt.Errorf("%w: %s", err, out), "python3's venv (ensurepip) for the developer session")
	}
	srv, agent, remote := devServer(t)
	sink := listenTCP(t, "tcp", "127.0.0.1:0")
	h := newHands(t, handsSetup{agent: agent, env: append([]string{
		"GOPROXY=" + srv.URL + "/go", "GOSUMDB=off",
		"PIP_INDEX_URL=" + srv.URL + "/pip/simple", "PIP_DISABLE_PIP_VERSION_CHECK=1",
	}, npmEnv(srv.URL+"/npm/")...)})
	// A setup script that came with the project, past what the gate
	// reads: what it writes outside the workspace is the sandbox's to
	// refuse.
	h.write(map[string]string{"scripts/bootstrap.sh": "#!/bin/sh\nmkdir -p \"$HOME/.config/app\" && echo configured > \"$HOME/.config/app/settings\"\n"})

	turns := []struct {
		prompt string
		steps  []devStep
	}{
		{"start a Go service using example.com/dep", goSteps()},
		{"change the greeting and add a release build", goChangeSteps()},
		{"add the web part with npm", npmSteps()},
		{"add the calculator in Python with a virtualenv", pythonSteps()},
		{"put it all in git and push it", gitSteps(srv.URL + "/git/app.git")},
		{"a feature branch and some chores", choreSteps(srv.URL)},
		{"set up my machine for the project", refusalSteps(sink.port())},
	}
	var (
		session string
		all     []devStep
		results []turn
		ids     []string
		rounds  []func() time.Duration
		timing  timedAnswers
	)
	start := time.Now()
	for ti, tn := range turns {
		prefix := fmt.Sprintf("t%d_", ti)
		var steps []step
		for i, s := range tn.steps {
			steps = append(steps, s.step)
			ids = append(ids, fmt.Sprintf("%s%d", prefix, i))
			rounds = append(rounds, func() time.Duration { return timing.round(ti, i) })
		}
		h.fake.script(timing.wrap(ti, append(answers(prefix, steps), sseText("Done.")))...)
		var flags []string
		if session != "" {
			flags = []string{"--session", session}
		}
		tr := h.runTurn(tn.prompt, flags...)
		for _, ev := range tr.events {
			if ev.Type == "response_complete" && ev.Stop != "end" {
				t.Errorf("turn %d ended with stop %q, not end", ti, ev.Stop)
			}
			if session == "" && ev.Session != "" {
				session = ev.Session
			}
			if ev.Session != "" && ev.Session != session {
				t.Errorf("turn %d ran in session %s, not %s", ti, ev.Session, session)
			}
		}
		for range tn.steps {
			results = append(results, tr)
		}
		all = append(all, tn.steps...)
	}
	wall := time.Since(start)
	// One session: the last request still holds the first turn.
	if reqs := h.fake.requests(); len(reqs) == 0 || !strings.Contains(fmt.Sprint(reqs[len(reqs)-1]["messages"]), turns[0].prompt) {
		t.Errorf("the last turn's requests do not hold the first turn's message %q", turns[0].prompt)
	}

	counts := map[string]int{}
	var table strings.Builder
	var total, files time.Duration
	nFiles := 0
	for i, s := range all {
		kind, detail := classify(results[i], ids[i])
		counts[kind]++
		what := s.command
		if s.tool != "" {
			what = s.tool + " " + fmt.Sprint(s.args["path"])
		}
		took := rounds[i]()
		total += took
		if s.tool != "" {
			files += took
			nFiles++
		}
		fmt.Fprintf(&table, "%3d %-6s %7.1fms %-26s %-60s %s\n", i, ids[i], float64(took.Microseconds())/1000, kind, oneLine(what, 60), oneLine(detail, 100))
		switch {
		case kind == unexplained:
			t.Errorf("call %d (%s): %s: %s", i, what, kind, detail)
		case s.cause == "" && kind != succeeded:
			t.Errorf("call %d (%s): want success, got %s: %s", i, what, kind, detail)
		case s.cause != "" && kind != namedCause:
			t.Errorf("call %d (%s): want a failure naming %q, got %s: %s", i, what, s.cause, kind, detail)
		case s.cause != "" && !strings.Contains(detail, s.cause):
			t.Errorf("call %d (%s): the failure does not name %q: %s", i, what, s.cause, detail)
		case s.cause == "" && !strings.Contains(detail, s.out):
			t.Errorf("call %d (%s): the output lacks %q: %s", i, what, s.out, detail)
		}
	}
	t.Logf("%d calls: %d succeeded, %d failed with a named cause, %d unexplained\n%s",
		len(all), counts[succeeded], counts[namedCause], counts[unexplained], table.String())
	if len(all) < 60 {
		t.Errorf("the session has %d calls, want at least 60", len(all))
	}
	logOverhead(t, h, session, wall, total, len(all))
	if nFiles > 0 {
		t.Logf("the %d file tool calls: %v per call round", nFiles, (files / time.Duration(nFiles)).Round(100*time.Microsecond))
	}
	devOutcomes(t, h, remote, sink)
}

// devOutcomes checks the session's work on disk and what did not
// happen.
func devOutcomes(t *testing.T, h *hands, remote string, sink *tcpListener) {
	t.Helper()
	if b, _ := os.ReadFile(h.abs("go.mod")); !strings.Contains(string(b), "example.com/dep v1.0.0") {
		t.Errorf("go.mod lacks the dependency:\n%s", b)
	}
	if b, _ := os.ReadFile(h.abs("greet/greet.go")); !strings.Contains(string(b), "\treturn \"Hey, \" + name") {
		t.Errorf("greet.go is not formatted and edited:\n%s", b)
	}
	for _, p := range []string{"bin/app", "node_modules/tinypkg/index.js", "package-lock.json"} {
		if _, err := os.Stat(h.abs(p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if m, _ := filepath.Glob(h.abs(".venv/lib/python3*/site-packages/tinypkg/__init__.py")); len(m) != 1 {
		t.Errorf("the virtualenv's site-packages has no tinypkg: %v", m)
	}
	if log := hostGit(t, "--git-dir", remote, "log", "--oneline", "main"); !strings.Contains(log, "calc: sub") || !strings.Contains(log, "app, web and calc") {
		t.Errorf("the remote's main did not receive both commits:\n%s", log)
	}
	if log := hostGit(t, "--git-dir", remote, "log", "--oneline", "feature"); !strings.Contains(log, "greet: hey") {
		t.Errorf("the remote did not receive the feature branch:\n%s", log)
	}
	for _, p := range []string{".config/app/settings", ".bashrc"} {
		if _, err := os.Stat(h.homePath(p)); err == nil {
			t.Errorf("~/%s was written", p)
		}
	}
	if n, data := sink.received(); n != 0 {
		t.Errorf("the host no verdict named received %d connections: %q", n, data)
	}
}

// logOverhead logs the session's wall time and what the engine adds per
// call: the rounds the model waited for, less the executors' own time
// from the audit.
func logOverhead(t *testing.T, h *hands, session string, wall, rounds time.Duration, calls int) {
	t.Helper()
	var ran time.Duration
	n := 0
	for _, typ := range []audit.EventType{audit.ActionExecuted, audit.ActionFailed} {
		err := audit.Scan(audit.DefaultPath(h.root), audit.Filter{Session: session, Type: typ}, func(e audit.Entry) error {
			ran += time.Duration(e.Detail.DurationMS) * time.Millisecond
			n++
			return nil
		})
		if err != nil {
			t.Errorf("read the audit: %v", err)
		}
	}
	t.Logf("session wall time %v; %d call rounds took %v, of which the executors ran %v (%d audited executions): %v per call besides the work",
		wall.Round(time.Millisecond), calls, rounds.Round(time.Millisecond), ran, n, ((rounds - ran) / time.Duration(calls)).Round(100*time.Microsecond))
}
