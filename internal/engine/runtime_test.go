package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/agent/proc"
	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/tools/files"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	pb "github.com/parallax/parallax/proto/parallax/v1"
	"github.com/parallax/parallax/sandbox"
)

// envTestAgent makes the test binary the agent process (TestMain): "off"
// runs the real agent with its sandbox reported disabled, "crash" exits
// before it connects, "leaky" reports a sandbox whose probe succeeded.
const envTestAgent = "PX_TEST_AGENT"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg { // the per-command sandbox's re-executed copy
		os.Exit(sandbox.ExecMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == files.ConfinedArg { // a file operation's confined helper
		os.Exit(files.ConfinedMain(os.Stdin, os.Stdout))
	}
	if mode := os.Getenv(envTestAgent); mode != "" {
		os.Exit(testAgent(mode))
	}
	os.Exit(m.Run())
}

// testAgent is the agent process of these tests: mode "on" applies the
// real kernel sandbox and its probes (proc.KernelSandbox), "off" runs
// with agent.sandbox: off.
func testAgent(mode string) int {
	switch mode {
	case "crash":
		return 3
	case "on":
		return proc.Main(context.Background(), proc.RunOptions{Version: "test", Sandbox: proc.KernelSandbox})
	case "broken":
		return proc.Main(context.Background(), proc.RunOptions{Version: "test", Sandbox: func() (proc.SandboxReport, error) {
			return proc.SandboxReport{}, errors.New("the kernel refused the sandbox")
		}})
	case "stubborn": // a leaky report, then it stays when the engine refuses it
		proc.Main(context.Background(), proc.RunOptions{Sandbox: func() (proc.SandboxReport, error) {
			return proc.SandboxReport{LandlockABI: 7, Seccomp: true, Probes: []proc.Probe{
				{Name: "connect_tcp", Refused: false, Detail: "connected"}}}, nil
		}})
		time.Sleep(time.Hour)
		return 0
	case "leaky":
		return proc.Main(context.Background(), proc.RunOptions{Sandbox: func() (proc.SandboxReport, error) {
			return proc.SandboxReport{LandlockABI: 7, Seccomp: true, Probes: []proc.Probe{
				{Name: "read_workspace", Refused: true, Detail: "EACCES"},
				{Name: "connect_tcp", Refused: false, Detail: "connected"}}}, nil
		}})
	}
	return proc.Main(context.Background(), proc.RunOptions{Version: "test", Sandbox: func() (proc.SandboxReport, error) {
		if os.Getenv(EnvAgentSandbox) != "off" {
			return proc.SandboxReport{}, errors.New("no sandbox in this test binary")
		}
		return proc.SandboxReport{Disabled: true}, nil
	}})
}

// rtEnv is a workspace with a scripted model, a home with a key, and a
// runtime whose agent is this test binary.
type rtEnv struct {
	root, home string
	rt         *Runtime
	runErr     chan error
	client     *Client
	rounds     uint32 // the turns' own limit of tool rounds (0: the configured one)
}

type rtOptions struct {
	script string // YAML turns of the scripted model
	agent  string // extra lines of the agent: block
	mode   string // envTestAgent
	keyEnv string // api_key_env of a second, unused model
}

func newRuntimeEnv(t *testing.T, o rtOptions) *rtEnv {
	t.Helper()
	ctx := context.Background()
	e := &rtEnv{root: t.TempDir(), home: t.TempDir(), runErr: make(chan error, 1)}
	if _, err := workspace.Init(ctx, e.root, workspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.home, ".ssh", "id_rsa"), testKey)
	script := filepath.Join(t.TempDir(), "script.yaml")
	writeFile(t, script, "turns:\n"+o.script)
	agentBlock := "agent:\n  sandbox: off\n" + o.agent
	if o.mode == "leaky" || o.mode == "on" || o.mode == "broken" || o.mode == "stubborn" {
		agentBlock = "agent:\n" + o.agent
	}
	writeFile(t, workspace.ConfigPath(e.root), "version: 1\npolicy: default\nllm:\n  models:\n"+
		"    - {name: demo, provider: scripted, model: scripted-agent, script: "+script+"}\n"+keyEnv(o.keyEnv)+"  roles: {chat: demo}\n"+agentBlock)
	mode := o.mode
	if mode == "" {
		mode = "off"
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := OpenRuntime(ctx, RuntimeOptions{Root: e.root, Home: e.home, Getenv: func(string) string { return "" },
		AgentCommand: func() (*exec.Cmd, error) { return exec.Command(exe), nil },
		AgentEnv:     []string{envTestAgent + "=" + mode}, AgentOutput: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	return e
}

// testWait bounds every wait of these tests on the engine or its agent:
// a check that stops failing closed makes its test fail, never hang.
const testWait = 60 * time.Second

// runBounded runs the runtime until it returns or testWait passes (then
// Run's context is cancelled and it returns what it returns then).
func runBounded(t *testing.T, rt *Runtime) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	err := rt.Run(ctx)
	if ctx.Err() != nil {
		t.Errorf("the engine was still running after %v", testWait)
	}
	return err
}

// waitFor receives from ch within testWait, or fails the test.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testWait):
		t.Fatalf("no %s within %v", what, testWait)
		var zero T
		return zero
	}
}

// keyEnv is a model entry naming the key variable name ("": none).
func keyEnv(name string) string {
	if name == "" {
		return ""
	}
	return "    - {name: spare, provider: anthropic, model: claude-sonnet-4-5, api_key_env: " + name + "}\n"
}

// start runs the runtime and connects a client.
func (e *rtEnv) start(t *testing.T) {
	t.Helper()
	go func() { e.runErr <- e.rt.Run(context.Background()) }()
	c, err := DialClient(context.Background(), e.root)
	if err != nil {
		t.Fatal(err)
	}
	e.client = c
	t.Cleanup(func() { c.Close() })
}

// stop asks the engine to stop through the client and waits for Run.
func (e *rtEnv) stop(t *testing.T) {
	t.Helper()
	if _, err := e.client.Shutdown(context.Background(), &pb.ShutdownRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(t, e.runErr, "end of Run after Shutdown"); err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
}

// turn sends text and returns the turn's events up to its end.
func (e *rtEnv) turn(t *testing.T, session, text string, otr bool) (string, []*pb.Event) {
	t.Helper()
	return e.turnWith(t, session, text, otr, nil)
}

// turnWith is turn, calling on with every event of the engine as it
// comes (an approval of the turn, answered there).
func (e *rtEnv) turnWith(t *testing.T, session, text string, otr bool, on func(ctx context.Context, ev *pb.Event)) (string, []*pb.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	sub, err := e.client.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil { // subscribed
		t.Fatal(err)
	}
	resp, err := e.client.SendMessage(ctx, &pb.SendMessageRequest{SessionId: session, Text: text, Origin: "test", Otr: otr, MaxToolRounds: e.rounds})
	if err != nil {
		t.Fatal(err)
	}
	var evs []*pb.Event
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatalf("events: %v (so far %v)", err, evs)
		}
		if on != nil {
			on(ctx, ev)
		}
		if ev.GetSessionId() != resp.GetSessionId() {
			continue
		}
		evs = append(evs, ev)
		if ev.GetResponseComplete().GetTurnId() == resp.GetTurnId() || ev.GetError().GetTurnId() == resp.GetTurnId() {
			return resp.GetSessionId(), evs
		}
	}
}

func verdicts(evs []*pb.Event) []string {
	var out []string
	for _, ev := range evs {
		if v := ev.GetVerdict(); v != nil {
			out = append(out, strings.TrimPrefix(v.GetDecision().String(), "DECISION_")+":"+v.GetRule())
		}
	}
	return out
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("agent: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// A conversation through real processes: the agent (this binary,
// re-executed) talks to the scripted model only through the engine, its
// calls go through the real gate and executors; a blocked call comes
// back as a tool error it survives, and the next turn of the same
// session still works. The chain verifies afterwards.
func TestRuntimeConversation(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	notes := filepath.Join(e.root, "notes.txt")
	writeFile(t, notes, "hello from the workspace\n")
	out := filepath.Join(e.root, "out.txt")
	script := fmt.Sprintf(`  - text: "Reading the notes."
    tool_calls: [{name: read_file, input: {path: %q}}]
  - expect: {tool_result_contains: "hello from the workspace"}
    text: "Now the key."
    tool_calls: [{name: read_file, input: {path: %q}}]
  - expect: {tool_result_contains: "by Parallax"}
    tool_calls: [{name: write_file, input: {path: %q, content: "done\n"}}]
  - expect: {tool_result_error: false}
    text: "All done."
  - text: "Second turn, still here."
`, notes, filepath.Join(e.home, ".ssh", "id_rsa"), out)
	writeFile(t, scriptPath(t, e), "turns:\n"+script)
	e.start(t)
	session, evs := e.turn(t, "", "Do the task.", false)
	if got, want := strings.Join(verdicts(evs), " "), "ALLOW:"; !strings.HasPrefix(got, want) || !strings.Contains(got, "BLOCK:") {
		t.Errorf("verdicts: got %q, want ALLOW, then a BLOCK, then ALLOW", got)
	}
	last := evs[len(evs)-1].GetResponseComplete()
	if last == nil || !strings.Contains(last.GetText(), "All done.") {
		t.Fatalf("turn 1 ended with %v, want the reply", evs[len(evs)-1])
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "done\n" {
		t.Errorf("out.txt: %q, %v", b, err)
	}
	_, evs = e.turn(t, session, "Again.", false)
	if rc := evs[len(evs)-1].GetResponseComplete(); rc == nil || rc.GetText() != "Second turn, still here." {
		t.Fatalf("turn 2 ended with %v", evs[len(evs)-1])
	}
	st, err := e.client.Status(context.Background(), &pb.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetAllowed() != 2 || st.GetBlocked() != 1 || st.GetSandbox() != "off" || st.GetSessions() != 1 || st.GetInputTokensToday() == 0 {
		t.Errorf("status: %+v", st)
	}
	ls, err := e.client.ListSessions(context.Background(), &pb.ListSessionsRequest{})
	if err != nil || len(ls.GetSessions()) != 1 || ls.GetSessions()[0].GetId() != session || ls.GetSessions()[0].GetMessages() != 7 ||
		ls.GetSessions()[0].GetTitle() != "Do the task." || ls.GetSessions()[0].GetState() != "idle" {
		t.Errorf("sessions: %v, %v; want %s with 7 messages (2 turns, 3 calls), titled, idle", ls.GetSessions(), err, session)
	}
	hist, err := e.client.RunCommand(context.Background(), &pb.CommandRequest{SessionId: session, Name: "history"})
	if err != nil || !strings.Contains(hist.GetText(), "tool: read_file "+notes+" → ALLOW, ok") ||
		!strings.Contains(hist.GetText(), "→ BLOCK (guard_restricted)") || !strings.Contains(hist.GetText(), "tool: write_file "+out+" → ALLOW, ok") {
		t.Errorf("/history does not hold the calls with their verdicts: %q, %v", hist.GetText(), err)
	}
	res, err := e.client.RunCommand(context.Background(), &pb.CommandRequest{SessionId: session, Name: "status"})
	if err != nil || !strings.Contains(res.GetText(), "sandbox    OFF") || !strings.Contains(res.GetText(), "2 allowed, 1 blocked") {
		t.Errorf("/status: %q, %v", res.GetText(), err)
	}
	e.stop(t)
	entries := verifiedChain(t, e.root)
	if !hasEntry(entries, audit.SandboxCanaryResult, "sandbox_off") {
		t.Error("no SandboxCanaryResult entry recording the sandbox off")
	}
}

// The same conversation with the real kernel sandbox on: the agent
// process confines itself and proves it with every probe (audited), the
// conversation works through the link, and a command runs in its own
// sandbox with a private temp directory.
func TestRuntimeConversationSandboxed(t *testing.T) {
	e2e.Need(t, sandbox.Available(), "no kernel sandbox here")
	e := newRuntimeEnv(t, rtOptions{mode: "on"})
	notes := filepath.Join(e.root, "notes.txt")
	writeFile(t, notes, "hello from the workspace\n")
	script := fmt.Sprintf(`  - tool_calls: [{name: read_file, input: {path: %q}}]
  - expect: {tool_result_contains: "hello from the workspace"}
    tool_calls: [{name: execute_command, input: {command: "printf %%s \"$TMPDIR\" > where.txt"}}]
  - expect: {tool_result_error: false}
    tool_calls: [{name: read_file, input: {path: %q}}]
  - expect: {tool_result_contains: "by Parallax"}
    text: "Done, sandboxed."
`, notes, filepath.Join(e.home, ".ssh", "id_rsa"))
	writeFile(t, scriptPath(t, e), "turns:\n"+script)
	e.start(t)
	_, evs := e.turn(t, "", "Do the task.", false)
	if rc := evs[len(evs)-1].GetResponseComplete(); rc == nil || !strings.Contains(rc.GetText(), "Done, sandboxed.") {
		t.Fatalf("turn ended with %v", evs[len(evs)-1])
	}
	where, err := os.ReadFile(filepath.Join(e.root, "where.txt"))
	if err != nil || !strings.HasPrefix(string(where), "/tmp") {
		t.Fatalf("the command's TMPDIR was %q (%v), want its private /tmp", where, err)
	}
	st, err := e.client.Status(context.Background(), &pb.StatusRequest{})
	if err != nil || st.GetSandbox() == "off" {
		t.Errorf("status: %+v, %v", st, err)
	}
	e.stop(t)
	var probes int64
	for _, en := range verifiedChain(t, e.root) {
		if en.Type == audit.SandboxCanaryResult && en.Detail.Code == "sandbox_ok" {
			probes = en.Detail.Count
		}
	}
	if probes != int64(len(sandbox.ProbeNames())) {
		t.Fatalf("SandboxCanaryResult sandbox_ok with %d probes, want %d", probes, len(sandbox.ProbeNames()))
	}
}

// inBothAgentModes runs test with agent.sandbox off and in the
// production configuration, the agent's real kernel sandbox on (skipped
// where the kernel has none).
func inBothAgentModes(t *testing.T, test func(t *testing.T, mode string)) {
	t.Run("sandbox off", func(t *testing.T) { test(t, "off") })
	t.Run("sandbox on", func(t *testing.T) {
		e2e.Need(t, sandbox.Available(), "no kernel sandbox here")
		test(t, "on")
	})
}

// scriptPath is the script file the env's config names.
func scriptPath(t *testing.T, e *rtEnv) string {
	t.Helper()
	b, err := os.ReadFile(workspace.ConfigPath(e.root))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "script: ")
	j := strings.Index(s[i:], "}")
	return s[i+len("script: ") : i+j]
}

func verifiedChain(t *testing.T, root string) []audit.Entry {
	t.Helper()
	if _, err := workspace.VerifyChain(root); err != nil {
		t.Fatalf("audit chain: %v", err)
	}
	var es []audit.Entry
	if err := audit.Scan(audit.DefaultPath(root), audit.Filter{}, func(en audit.Entry) error {
		es = append(es, en)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return es
}

func hasEntry(es []audit.Entry, typ audit.EventType, code string) bool {
	for _, e := range es {
		if e.Type == typ && e.Detail.Code == code {
			return true
		}
	}
	return false
}

// An off-the-record session may only read: a write is refused by the
// engine before the gate, and nothing is written.
func TestRuntimeOTRIsReadOnly(t *testing.T) { inBothAgentModes(t, runtimeOTRIsReadOnly) }

func runtimeOTRIsReadOnly(t *testing.T, mode string) {
	e := newRuntimeEnv(t, rtOptions{mode: mode})
	target := filepath.Join(e.root, "otr.txt")
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: write_file, input: {path: %q, content: "x"}}, {name: list_directory, input: {path: %q}}]
  - text: "ok, zebra-quartz-reply"
`, target, e.root))
	e.start(t)
	otr, evs := e.turn(t, "", "write it, zebra-quartz-message", true)
	if got, want := strings.Join(verdicts(evs), " "), "BLOCK:"+RuleOTRReadOnly+" ALLOW:workspace_reads"; got != want {
		t.Errorf("verdicts: got %q, want %q", got, want)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the OTR write reached the disk: %v", err)
	}
	// Its model usage is counted under the shared off-the-record name, not
	// its id.
	day := time.Now().UTC().Format(time.DateOnly)
	mine, err := e.rt.ws.DB.LLMTotals(context.Background(), day, otr)
	shared, err2 := e.rt.ws.DB.LLMTotals(context.Background(), day, OTRUsageSession)
	if err != nil || err2 != nil || mine.Calls != 0 || shared.Calls == 0 {
		t.Errorf("llm usage: %d calls under the OTR id, %d under %q (%v, %v)", mine.Calls, shared.Calls, OTRUsageSession, err, err2)
	}
	e.stop(t)
	verifiedChain(t, e.root)
	// Nothing of the conversation is on disk: neither the message nor the
	// reply, in any file of the workspace (the database included).
	err = filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("zebra-quartz")) {
			t.Errorf("%s holds text of the off-the-record conversation", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// One engine per workspace: a second one is refused with the holder's pid.
func TestRuntimeLock(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n"})
	defer e.rt.Close()
	_, err := OpenRuntime(context.Background(), RuntimeOptions{Root: e.root, Home: e.home})
	var re *RunningError
	if !errors.As(err, &re) || re.Pid != os.Getpid() {
		t.Fatalf("second engine: got %v, want a RunningError naming pid %d", err, os.Getpid())
	}
	if pid, err := EnginePid(e.root); err != nil || pid != os.Getpid() {
		t.Errorf("EnginePid: got %d, %v", pid, err)
	}
}

// An agent that keeps crashing is restarted within its budget, then the
// engine stops with a CrashLoopError; every crash is audited.
func TestRuntimeCrashLoop(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n", mode: "crash", agent: "  restart_budget: 2\n"})
	err := runBounded(t, e.rt)
	var cl *CrashLoopError
	if !errors.As(err, &cl) || cl.Crashes != 3 {
		t.Fatalf("run: got %v, want a CrashLoopError after 3 crashes", err)
	}
	if got := e.rt.restarts.Load(); got != 2 {
		t.Errorf("restarts: got %d, want 2", got)
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, en := range verifiedChain(t, e.root) {
		if en.Detail.Code == "agent_crashed" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("agent_crashed entries: got %d, want 3", n)
	}
}

// An agent that cannot apply its sandbox (agent.sandbox on) is not
// restarted: the engine stops at once, audited.
func TestRuntimeStopsWhenTheSandboxCannotBeApplied(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n", mode: "broken"})
	err := runBounded(t, e.rt)
	var sr *SandboxRefusedError
	if !errors.As(err, &sr) {
		t.Fatalf("run: got %v, want a SandboxRefusedError", err)
	}
	if got := e.rt.restarts.Load(); got != 0 {
		t.Errorf("restarts: got %d, want 0", got)
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
	if !hasEntry(verifiedChain(t, e.root), audit.SandboxCanaryResult, "sandbox_failed") {
		t.Error("no SandboxCanaryResult entry for the sandbox that could not be applied")
	}
}

// A sandbox report with a probe that got through stops the agent for
// good, audited; the engine does not restart it.
func TestRuntimeRefusesALeakySandbox(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n", mode: "leaky"})
	err := runBounded(t, e.rt)
	var sr *SandboxRefusedError
	if !errors.As(err, &sr) || !strings.Contains(sr.Reason, "connect_tcp") {
		t.Fatalf("run: got %v, want a SandboxRefusedError naming the probe", err)
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
	if !hasEntry(verifiedChain(t, e.root), audit.SandboxCanaryResult, "sandbox_failed") {
		t.Error("no SandboxCanaryResult entry for the failed report")
	}
}

// An agent that stays after its report was refused is stopped by the
// engine (Shutdown, then killed), which returns the refusal instead of
// waiting for the agent to leave.
func TestRuntimeStopsAnAgentThatStaysAfterItsRefusal(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n", mode: "stubborn"})
	err := runBounded(t, e.rt)
	var sr *SandboxRefusedError
	if !errors.As(err, &sr) || !strings.Contains(sr.Reason, "connect_tcp") {
		t.Fatalf("run: got %v, want a SandboxRefusedError naming the probe", err)
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
}

// An agent killed in the middle of a turn: the turn ends with an
// agent_exited error (nothing hangs, the running command is cancelled),
// the agent is restarted, and the next turn is served by the new one.
func TestRuntimeAgentKilledMidTurn(t *testing.T) { inBothAgentModes(t, runtimeAgentKilledMidTurn) }

func runtimeAgentKilledMidTurn(t *testing.T, mode string) {
	e := newRuntimeEnv(t, rtOptions{mode: mode, script: `  - tool_calls: [{name: execute_command, input: {command: "sleep 30"}}]
  - text: "after the restart"
`})
	e.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	sub, err := e.client.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil {
		t.Fatal(err)
	}
	resp, err := e.client.SendMessage(ctx, &pb.SendMessageRequest{Text: "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetToolProposed() != nil {
			break
		}
	}
	st, err := e.client.Status(ctx, &pb.StatusRequest{})
	if err != nil || st.GetAgentPid() == 0 {
		t.Fatalf("status: %v, %v", st, err)
	}
	if err := syscall.Kill(int(st.GetAgentPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if e := ev.GetError(); e != nil && e.GetTurnId() == resp.GetTurnId() {
			if e.GetCode() != "agent_exited" {
				t.Errorf("error code: got %q, want agent_exited", e.GetCode())
			}
			break
		}
		if ev.GetResponseComplete() != nil {
			t.Fatal("the turn completed although its agent was killed")
		}
	}
	// The failed turn stays in the session's history.
	if h, err := e.client.RunCommand(ctx, &pb.CommandRequest{SessionId: resp.GetSessionId(), Name: "history"}); err != nil ||
		!strings.Contains(h.GetText(), "the turn ended with an error (agent_exited)") {
		t.Errorf("/history after the failed turn: %q, %v", h.GetText(), err)
	}
	_, evs := e.turn(t, resp.GetSessionId(), "still there?", false)
	if rc := evs[len(evs)-1].GetResponseComplete(); rc == nil || rc.GetText() != "after the restart" {
		t.Fatalf("turn after the restart ended with %v", evs[len(evs)-1])
	}
	st, err = e.client.Status(ctx, &pb.StatusRequest{})
	if err != nil || st.GetAgentRestarts() != 1 {
		t.Errorf("restarts: %v, %v; want 1", st.GetAgentRestarts(), err)
	}
	e.stop(t)
	verifiedChain(t, e.root)
}

// Tier 3 through the clients: an escalated write outside the workspace
// is published as ApprovalNeeded; the first answer decides it and a
// second one is refused. An approved write runs, a denied one does not.
func TestRuntimeApprovals(t *testing.T) { inBothAgentModes(t, runtimeApprovals) }

func runtimeApprovals(t *testing.T, mode string) {
	e := newRuntimeEnv(t, rtOptions{mode: mode})
	yes, no := filepath.Join(e.home, "approved.txt"), filepath.Join(e.home, "denied.txt")
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: write_file, input: {path: %q, content: "y"}}]
  - tool_calls: [{name: write_file, input: {path: %q, content: "n"}}]
  - text: "asked twice"
`, yes, no))
	e.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	sub, err := e.client.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil {
		t.Fatal(err)
	}
	resp, err := e.client.SendMessage(ctx, &pb.SendMessageRequest{Text: "write outside"})
	if err != nil {
		t.Fatal(err)
	}
	var got, asked, resolved []string
	answers := []bool{true, false}
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if r := ev.GetApprovalResolved(); r != nil {
			resolved = append(resolved, r.GetApprovalId()+":"+strings.TrimPrefix(r.GetDecision().String(), "DECISION_")+":"+r.GetBy())
		}
		if a := ev.GetApprovalNeeded(); a != nil {
			asked = append(asked, a.GetApprovalId())
			allow := answers[0]
			answers = answers[1:]
			r, err := e.client.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId(), Approve: allow, AnsweredBy: "test"})
			if err != nil || !r.GetAccepted() {
				t.Fatalf("first answer: %v, %v", r, err)
			}
			r, err = e.client.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId(), Approve: !allow})
			if err != nil || r.GetAccepted() {
				t.Errorf("second answer: got accepted=%v (%v), want refused", r.GetAccepted(), err)
			}
		}
		if v := ev.GetVerdict(); v != nil {
			got = append(got, strings.TrimPrefix(v.GetDecision().String(), "DECISION_")+":"+v.GetStage())
		}
		if ev.GetResponseComplete().GetTurnId() == resp.GetTurnId() {
			break
		}
	}
	if strings.Join(got, " ") != "ALLOW:human BLOCK:human" {
		t.Errorf("verdicts: got %v, want ALLOW:human BLOCK:human", got)
	}
	// Every client is told each prompt came down, with its outcome.
	if len(asked) != 2 || strings.Join(resolved, " ") != asked[0]+":ALLOW:clients "+asked[1]+":BLOCK:clients" {
		t.Errorf("approvals resolved: got %v for %v", resolved, asked)
	}
	if _, err := os.Stat(yes); err != nil {
		t.Errorf("the approved write did not run: %v", err)
	}
	if _, err := os.Stat(no); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write ran: %v", err)
	}
	e.stop(t)
	// The audit names the authenticated actor, never the client's "test".
	var by []string
	for _, en := range verifiedChain(t, e.root) {
		if strings.HasPrefix(en.Reason, "approved on") || strings.HasPrefix(en.Reason, "denied on") {
			by = append(by, en.Reason)
		}
	}
	if j := strings.Join(by, "; "); !strings.Contains(j, "approved on clients by local-user") ||
		!strings.Contains(j, "denied on clients by local-user") || strings.Contains(j, "test") {
		t.Errorf("approval entries: got %q, want both answered by local-user", by)
	}
}

// The agent's environment is built from nothing: the engine's provider
// keys and PARALLAX_* secrets never reach it.
func TestAgentEnvironmentHasNoKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-engine-only")
	t.Setenv("PARALLAX_VAULT_PASSPHRASE", "engine-only")
	tests := []struct {
		name string
		off  bool
		base []string
		want []string
	}{
		{"sandbox on", false, nil, []string{EnvAgentSandbox + "=on"}},
		{"sandbox off, test base", true, []string{"X=1"}, []string{"X=1", EnvAgentSandbox + "=off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runtime{opts: RuntimeOptions{AgentEnv: tt.base}, settings: workspace.AgentSettings{SandboxOff: tt.off}}
			cmd, err := r.agentCommand()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(cmd.Env, " ") != strings.Join(tt.want, " ") {
				t.Errorf("env: got %q, want %q", cmd.Env, tt.want)
			}
			if cmd.Args[len(cmd.Args)-1] != "agent" {
				t.Errorf("args: got %q, want the agent subcommand", cmd.Args)
			}
		})
	}
}

// A restarted agent keeps the conversation: the engine sends the
// session's completed exchanges with the first message the new process
// gets, and the model sees them.
func TestRuntimeRestartKeepsTheConversation(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n"})
	fake := llm.NewFake(llm.FakeReply("noted"), llm.FakeReply("it was 42"))
	e.rt.broker.providers[llm.RoleChat] = cachedProvider{p: fake, ref: llm.ModelRef{Name: "demo", Provider: llm.ProviderOllama, Model: "m"}}
	welcomed := make(chan struct{}, 4)
	e.rt.onWelcome = func(time.Duration) { welcomed <- struct{}{} }
	e.start(t)
	waitFor(t, welcomed, "agent welcome")
	session, _ := e.turn(t, "", "remember 42", false)
	st, err := e.client.Status(context.Background(), &pb.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(int(st.GetAgentPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, welcomed, "agent welcome")
	_, evs := e.turn(t, session, "which number?", false)
	if rc := evs[len(evs)-1].GetResponseComplete(); rc == nil || rc.GetText() != "it was 42" {
		t.Fatalf("turn after the restart ended with %v", evs[len(evs)-1])
	}
	calls := fake.Calls()
	if len(calls) != 2 {
		t.Fatalf("model calls: got %d, want 2", len(calls))
	}
	var got []string
	for _, m := range calls[1].Messages {
		for _, p := range m.Content {
			got = append(got, string(m.Role)+":"+p.Text)
		}
	}
	if want := "user:remember 42 assistant:noted user:which number?"; strings.Join(got, " ") != want {
		t.Errorf("the restarted agent sent %q, want %q", strings.Join(got, " "), want)
	}
	e.stop(t)
}

// /undo puts the files a turn changed back as they were before it,
// through the snapshots the engine noted for the turn.
func TestRuntimeUndo(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	notes := filepath.Join(e.root, "notes.txt")
	writeFile(t, notes, "original\n")
	script := fmt.Sprintf(`  - tool_calls: [{name: write_file, input: {path: %q, content: "changed\n"}}]
  - tool_calls: [{name: write_file, input: {path: %q, content: "new\n"}}]
  - text: "Changed."
`, notes, filepath.Join(e.root, "new.txt"))
	writeFile(t, scriptPath(t, e), "turns:\n"+script)
	e.start(t)
	session, _ := e.turn(t, "", "Change the notes.", false)
	if b, _ := os.ReadFile(notes); string(b) != "changed\n" {
		t.Fatalf("notes.txt after the turn: %q", b)
	}
	res, err := e.client.RunCommand(context.Background(), &pb.CommandRequest{SessionId: session, Name: "undo"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "original\n" {
		t.Fatalf("notes.txt after /undo: %q (%s)", b, res.GetText())
	}
	if _, err := os.Stat(filepath.Join(e.root, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt survived /undo (%v): %s", err, res.GetText())
	}
	if !strings.Contains(res.GetText(), "notes.txt") || !strings.Contains(res.GetText(), "new.txt") {
		t.Errorf("/undo does not say what it restored: %q", res.GetText())
	}
	// The model is told, with the next message, what was reverted.
	fake := llm.NewFake(llm.FakeReply("ok"))
	e.rt.broker.providers[llm.RoleChat] = cachedProvider{p: fake, ref: llm.ModelRef{Name: "demo", Provider: llm.ProviderOllama, Model: "m"}}
	e.turn(t, session, "Go on.", false)
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("model calls after /undo: %d", len(calls))
	}
	last := calls[0].Messages[len(calls[0].Messages)-1]
	if text := last.Content[0].Text; !strings.Contains(text, "/undo") || !strings.Contains(text, "notes.txt") || !strings.HasSuffix(text, "Go on.") {
		t.Errorf("the message after /undo does not tell the model what was reverted: %q", text)
	}
	e.stop(t)
	verifiedChain(t, e.root)
}

// One agent process holds every session: after session A reads a secret,
// a proposal in session B is judged with A's taint, so the agent cannot
// launder A's data through B.
func TestRuntimeSharesTaintAcrossTheAgentsSessions(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	secret := filepath.Join(e.root, "creds.txt")
	writeFile(t, secret, "token "+testToken+"\n")
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: read_file, input: {path: %q}}]
  - text: "read"
  - tool_calls: [{name: list_directory, input: {path: %q}}]
  - text: "listed"
`, secret, e.root))
	e.start(t)
	a, _ := e.turn(t, "", "read the creds", false)
	store := e.rt.ws.IFCStore()
	la, _, err := store.MaxTaint(context.Background(), a)
	if err != nil || la < ifc.Restricted {
		t.Fatalf("session A after reading a token: %v, %v", la, err)
	}
	b, _ := e.turn(t, "", "list", false)
	if b == a {
		t.Fatal("the second turn did not open a new session")
	}
	lb, src, err := store.MaxTaint(context.Background(), b)
	if err != nil || lb < la || !strings.Contains(src, a) {
		t.Fatalf("session B: taint %v from %q (%v), want at least %v from %s", lb, src, err, la, a)
	}
	e.stop(t)
	verifiedChain(t, e.root)
}

// TestToolResultOKFollowsTheExitStatus: a command that ran and exited
// non-zero, or timed out, is not ok in the event clients read; one that
// exited 0 is.
func TestToolResultOKFollowsTheExitStatus(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	writeFile(t, scriptPath(t, e), `turns:
  - tool_calls: [{name: execute_command, input: {command: "exit 3"}}]
  - expect: {tool_result_contains: "exit status 3"}
    tool_calls: [{name: execute_command, input: {command: "true"}}]
  - text: "done"
`)
	e.start(t)
	_, evs := e.turn(t, "", "Run them.", false)
	var oks []bool
	for _, ev := range evs {
		if r := ev.GetToolResult(); r != nil {
			oks = append(oks, r.GetOk())
		}
	}
	if len(oks) != 2 || oks[0] || !oks[1] {
		t.Errorf("tool_result ok: got %v, want [false true] (exit 3, then exit 0)", oks)
	}
	e.stop(t)
}

// TestTurnThatReachesItsRoundLimitSaysSo: a turn cut off by
// agent.max_tool_rounds ends with a stop reason naming the limit and a
// reply that says so, never an empty answer that reads as done.
func TestTurnThatReachesItsRoundLimitSaysSo(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{agent: "  max_tool_rounds: 2\n"})
	writeFile(t, scriptPath(t, e), `turns:
  - tool_calls: [{name: execute_command, input: {command: "true"}}]
  - tool_calls: [{name: execute_command, input: {command: "true"}}]
  - tool_calls: [{name: execute_command, input: {command: "true"}}]
  - text: "never reached"
`)
	e.start(t)
	_, evs := e.turn(t, "", "Loop.", false)
	last := evs[len(evs)-1].GetResponseComplete()
	if last == nil {
		t.Fatalf("turn ended with %v, want a response", evs[len(evs)-1])
	}
	if last.GetStopReason() != pb.StopReason_STOP_REASON_TOOL_ROUND_LIMIT {
		t.Errorf("stop reason %v, want TOOL_ROUND_LIMIT", last.GetStopReason())
	}
	if !strings.Contains(last.GetText(), "limit of 2 tool rounds") {
		t.Errorf("reply %q does not say the turn stopped at its limit", last.GetText())
	}
	e.stop(t)
}

// TestEngineRestartKeepsTheConversation: a session continued on a new
// engine (parallax run --session after the first one stopped) is sent
// with its earlier turns from the store, not only the new message.
func TestEngineRestartKeepsTheConversation(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{script: "  - text: x\n"})
	first := llm.NewFake(llm.FakeReply("noted"))
	e.rt.broker.providers[llm.RoleChat] = cachedProvider{p: first, ref: llm.ModelRef{Name: "demo", Provider: llm.ProviderOllama, Model: "m"}}
	e.start(t)
	session, _ := e.turn(t, "", "remember 42", false)
	e.stop(t)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := OpenRuntime(context.Background(), RuntimeOptions{Root: e.root, Home: e.home, Getenv: func(string) string { return "" },
		AgentCommand: func() (*exec.Cmd, error) { return exec.Command(exe), nil },
		AgentEnv:     []string{envTestAgent + "=off"}, AgentOutput: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	second := llm.NewFake(llm.FakeReply("it was 42"))
	rt.broker.providers[llm.RoleChat] = cachedProvider{p: second, ref: llm.ModelRef{Name: "demo", Provider: llm.ProviderOllama, Model: "m"}}
	e2 := &rtEnv{root: e.root, home: e.home, rt: rt, runErr: make(chan error, 1)}
	e2.start(t)
	e2.turn(t, session, "which number?", false)
	e2.stop(t)
	calls := second.Calls()
	if len(calls) != 1 {
		t.Fatalf("model calls on the new engine: %d, want 1", len(calls))
	}
	var got []string
	for _, m := range calls[0].Messages {
		for _, p := range m.Content {
			got = append(got, string(m.Role)+":"+p.Text)
		}
	}
	if want := "user:remember 42 assistant:noted user:which number?"; strings.Join(got, " ") != want {
		t.Errorf("the new engine sent %q, want %q", strings.Join(got, " "), want)
	}
}

// TestUndoRestoresWhatPackageManagersRewrite: go mod edit names no file,
// yet it rewrites go.mod; the turn's snapshot covers it and /undo puts it
// back.
func TestUndoRestoresWhatPackageManagersRewrite(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH")
	}
	e := newRuntimeEnv(t, rtOptions{})
	gomod := filepath.Join(e.root, "go.mod")
	writeFile(t, gomod, "module example.com/m\n\ngo 1.22\n")
	writeFile(t, scriptPath(t, e), `turns:
  - tool_calls: [{name: execute_command, input: {command: "GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod edit -require=example.com/dep@v1.2.3"}}]
  - text: "Added."
`)
	e.start(t)
	session, _ := e.turn(t, "", "Add the dependency.", false)
	if b, _ := os.ReadFile(gomod); !strings.Contains(string(b), "example.com/dep v1.2.3") {
		t.Fatalf("go.mod after the turn: %q", b)
	}
	res, err := e.client.RunCommand(context.Background(), &pb.CommandRequest{SessionId: session, Name: "undo"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(gomod); string(b) != "module example.com/m\n\ngo 1.22\n" {
		t.Errorf("go.mod after /undo: %q (%s)", b, res.GetText())
	}
	e.stop(t)
}

// TestCommandHomeIsTheHomeTheGateJudged: a command's ~ is the home the
// gate judged its paths against (RuntimeOptions.Home), not the engine's
// own HOME, so an allowed ~/x is the file the gate looked at.
func TestCommandHomeIsTheHomeTheGateJudged(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	writeFile(t, scriptPath(t, e), `turns:
  - tool_calls: [{name: execute_command, input: {command: "echo home=$HOME"}}]
  - text: "done"
`)
	e.start(t)
	_, evs := e.turn(t, "", "Where is home?", false)
	var out string
	for _, ev := range evs {
		if r := ev.GetToolResult(); r != nil {
			out = r.GetOutput()
		}
	}
	if !strings.Contains(out, "home="+e.home+"\n") {
		t.Errorf("the command's HOME: %q, want %s", out, e.home)
	}
	e.stop(t)
}

// TestApprovalOfAPatternCoversTheNextMatchingAction: an approval offers
// the pattern it could cover; "allow this pattern" (grant pattern) lets a
// later action matching it through in the session without asking, and an
// unknown grant is refused.
func TestApprovalOfAPatternCoversTheNextMatchingAction(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	dir := filepath.Join(e.home, "notes", "project")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: write_file, input: {path: %q, content: "a"}}]
  - tool_calls: [{name: write_file, input: {path: %q, content: "b"}}]
  - text: "written twice"
`, filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")))
	e.start(t)
	var asked []string
	_, evs := e.turnWith(t, "", "write two notes", false, func(ctx context.Context, ev *pb.Event) {
		a := ev.GetApprovalNeeded()
		if a == nil {
			return
		}
		asked = append(asked, a.GetPattern())
		if _, err := e.client.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId(), Approve: true, Grant: "forever"}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("an unknown grant: got %v, want InvalidArgument", err)
		}
		r, err := e.client.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId(), Approve: true, Grant: "pattern"})
		if err != nil || !r.GetAccepted() {
			t.Errorf("answer: %v, %v", r, err)
		}
	})
	got := verdicts(evs)
	if len(asked) != 1 || !strings.Contains(asked[0], dir) || strings.Join(got, " ") != "ALLOW:approval_allowed ALLOW:approval_grant" {
		t.Errorf("asked %q, verdicts %v; want asked once, offering a pattern under %s, and both allowed", asked, got, dir)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(b) != "b" {
		t.Errorf("the second write, covered by the pattern, did not run: %q, %v", b, err)
	}
	e.stop(t)
}

// TestSandboxRefusalIsExplainedToTheModel: a build the gate cannot read
// writes ~/.bashrc; the kernel refuses it, and the result the model reads
// says the refusal may be Parallax's sandbox and what the verdict allows,
// not only make's "Permission denied". ~/.bashrc is unchanged.
func TestSandboxRefusalIsExplainedToTheModel(t *testing.T) {
	sandboxOrSkip(t)
	e := newRuntimeEnv(t, rtOptions{mode: "on"})
	bashrc := filepath.Join(e.home, ".bashrc")
	writeFile(t, bashrc, "# the user's\n")
	// Past what the gate reads of a Makefile: the kernel is what is tested.
	writeFile(t, filepath.Join(e.root, "Makefile"), "all:\n\techo 'curl x | sh' >> "+bashrc+"\n#"+strings.Repeat("x", 300<<10)+"\n")
	writeFile(t, scriptPath(t, e), `turns:
  - tool_calls: [{name: execute_command, input: {command: "make"}}]
  - text: "tried"
`)
	e.start(t)
	_, evs := e.turn(t, "", "Build it.", false)
	var out string
	for _, ev := range evs {
		if r := ev.GetToolResult(); r != nil {
			out = r.GetOutput()
		}
	}
	if !strings.Contains(out, "Parallax ran this command in its sandbox") {
		t.Errorf("the result does not say the sandbox may have refused it: %q", out)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# the user's\n" {
		t.Errorf("~/.bashrc changed: %q", b)
	}
	e.stop(t)
}

// TestTurnsOwnRoundLimit: a turn can carry its own limit of tool rounds
// (parallax run --max-rounds), below or above the configured one, and an
// unbounded one is refused.
func TestTurnsOwnRoundLimit(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{agent: "  max_tool_rounds: 2\n"})
	writeFile(t, scriptPath(t, e), `turns:
  - tool_calls: [{name: execute_command, input: {command: "true"}}]
  - tool_calls: [{name: execute_command, input: {command: "true"}}]
  - tool_calls: [{name: execute_command, input: {command: "true"}}]
  - text: "finished in four answers"
`)
	e.start(t)
	e.rounds = 4
	_, evs := e.turn(t, "", "A longer task.", false)
	if last := evs[len(evs)-1].GetResponseComplete(); last == nil || last.GetStopReason() == pb.StopReason_STOP_REASON_TOOL_ROUND_LIMIT ||
		last.GetText() != "finished in four answers" {
		t.Errorf("with --max-rounds 4 over a configured 2: ended with %v", evs[len(evs)-1])
	}
	if _, err := e.client.SendMessage(context.Background(), &pb.SendMessageRequest{Text: "x", MaxToolRounds: MaxTurnToolRounds + 1}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a limit over %d: got %v, want InvalidArgument", MaxTurnToolRounds, err)
	}
	e.stop(t)
}
