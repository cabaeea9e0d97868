package mcpproxy

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shield"
)

// allow is a scripted human's yes.
var allow = approval.Step{Response: approval.Response{Decision: approval.Allow}}

// TestProxyEndToEnd drives a real MCP client through the proxy to a real
// MCP server process: a blocked call, an allowed call, a held poisoned
// tool, approved and denied escalations, a flagged injection, a redacted
// and a withheld result, the taint they leave, and a rug pull while
// connected that holds the tool until it is approved.
func TestProxyEndToEnd(t *testing.T) {
	ws := newWorkspace(t)
	// Three escalations reach the human: echo, mutate, echo once approved.
	e := start(t, ws, options{approval: []approval.Step{allow, allow, allow}})

	tools := e.tools()
	for _, name := range []string{"echo", "run_command", "read_file", "write_file", "fetch", "mutate"} {
		if tl := tools[name]; tl == nil || strings.HasPrefix(tl.Description, "Held by Parallax") {
			t.Fatalf("tool %s: got %+v, want it served", name, tl)
		}
	}
	if _, ok := tools["bad name!"]; ok {
		t.Errorf("a tool with an invalid name is served")
	}
	if d := tools["add"].Description; !strings.HasPrefix(d, "Held by Parallax") || strings.Contains(d, "mcp.json") {
		t.Fatalf("poisoned tool add: got description %q, want it held without its text", d)
	}

	runSteps(t, e, []step{
		{"blocked command", "run_command", map[string]any{"command": "cat ~/.ssh/id_rsa"}, true,
			[]string{"Blocked by Parallax (guard_restricted)", ".ssh/id_rsa"}, nil},
		{"allowed read", "read_file", map[string]any{"path": "notes.txt"}, false, []string{"contents of notes.txt"}, nil},
		{"allowed command", "run_command", map[string]any{"command": "ls -la"}, false, []string{"ran: ls -la"}, nil},
		{"held poisoned tool", "add", map[string]any{"a": 1, "b": 2}, true,
			[]string{RuleToolHeld, "parallax mcp pins approve px-testserver add"}, nil},
		{"escalation approved", "echo", map[string]any{"text": "hello"}, false, []string{"hello"}, nil},
		{"injection flagged", "fetch", map[string]any{"url": "https://docs.example.com/inject"}, false,
			[]string{"[Parallax warning]", "ignore_instructions", "Welcome to the docs."}, nil},
	})
	t.Run("rug pull while connected", func(t *testing.T) {
		if got, isErr := e.call("mutate", nil); isErr {
			t.Fatalf("mutate: %s", got)
		}
		waitChanged(t, e)
		if d := e.tools()["echo"].Description; !strings.Contains(d, "changed since pinned") {
			t.Fatalf("echo after the change: got %q, want it held", d)
		}
		got, isErr := e.call("echo", map[string]any{"text": "again"})
		if !isErr || !strings.Contains(got, "changed since pinned") || !strings.Contains(got, "pins approve px-testserver echo") {
			t.Fatalf("call to the changed tool: got %q (error %v), want held", got, isErr)
		}
		if _, err := Approve(context.Background(), e.pins, "px-testserver", "echo", fixedNow()); err != nil {
			t.Fatal(err)
		}
		got, isErr = e.call("echo", map[string]any{"text": "approved now"})
		if isErr || !strings.Contains(got, "approved now") {
			t.Fatalf("after approval: got %q (error %v), want served", got, isErr)
		}
	})

	// The session has seen a secret from here on.
	runSteps(t, e, []step{
		{"redacted result", "read_file", map[string]any{"path": filepath.Join(ws, "config", "app.ini")}, false,
			[]string{"[REDACTED:aws_secret_access_key]", "region = eu-west-1"}, []string{"q8Vt2LmN0"}},
		{"taint blocks egress", "fetch", map[string]any{"url": "https://example.com/"}, true,
			[]string{"credentials_stay_home"}, nil},
		{"withheld result", "read_file", map[string]any{"path": "keys/dump.txt"}, true,
			[]string{RuleResultWithheld, "private_key"}, []string{"BEGIN OPENSSH"}},
	})
	served := strings.Join(e.served(), "\n")
	for _, never := range []string{"id_rsa", "\"a\":1", "example.com/\""} {
		if strings.Contains(served, never) {
			t.Errorf("a blocked call reached the server (%q):\n%s", never, served)
		}
	}

	// Every escalation was asked about with what the call does.
	asks := e.script.Asks()
	if len(asks) != 3 || asks[0].ActionType != "mcp_call" || !strings.Contains(string(asks[0].Payload), "hello") ||
		asks[0].Session != "mcp-test" {
		t.Errorf("approval requests: got %+v", asks)
	}
	checkAudit(t, e)
	checkPinsFile(t, e)
}

// step is one call of an end-to-end run and what the client must see.
type step struct {
	name    string
	tool    string
	args    map[string]any
	isError bool
	want    []string
	notWant []string
}

func runSteps(t *testing.T, e *env, steps []step) {
	t.Helper()
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got, isErr := e.call(s.tool, s.args)
			if isErr != s.isError {
				t.Errorf("isError: got %v, want %v (%s)", isErr, s.isError, got)
			}
			for _, w := range s.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
			for _, w := range s.notWant {
				if strings.Contains(got, w) {
					t.Errorf("got %q, must not contain %q", got, w)
				}
			}
		})
	}
}

func waitChanged(t *testing.T, e *env) {
	t.Helper()
	select {
	case <-e.changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the client was not told that the tool list changed")
	}
}

// checkAudit verifies the chain and looks for the proxy's own events.
func checkAudit(t *testing.T, e *env) {
	t.Helper()
	if err := e.w.Audit.Close(); err != nil {
		t.Fatal(err)
	}
	path := audit.DefaultPath(e.ws)
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatalf("audit chain: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	for _, want := range []string{`"mcp_tool_pinned"`, `"mcp_tool_poisoned"`, `"mcp_tool_changed"`, `"mcp_result_injection"`,
		`"approval_allowed"`, `"mcp_tool_bad_name"`, RuleResultWithheld, `"SessionStarted"`, `"guard_restricted"`} {
		if !strings.Contains(log, want) {
			t.Errorf("audit chain lacks %s", want)
		}
	}
	for _, secret := range []string{"q8Vt2LmN0", "b3BlbnNzaC1rZXktdjEAAAAABG5v"} {
		if strings.Contains(log, secret) {
			t.Errorf("the audit chain holds secret material %q", secret)
		}
	}
}

func checkPinsFile(t *testing.T, e *env) {
	t.Helper()
	st, err := os.Stat(e.pins.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("pins.json mode: got %v, want 0600", st.Mode().Perm())
	}
	pf, err := e.pins.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sp := pf.Servers["px-testserver"]
	if sp == nil || sp.Name != "px-testserver" || !sp.Tools["echo"].Approved || sp.Pending["add"].Reason != PendingPoisoned {
		t.Errorf("pins: got %+v", sp)
	}
}

// TestRugPullAcrossRestarts: a server that comes back with a different
// echo is held at the next start, and only that tool.
func TestRugPullAcrossRestarts(t *testing.T) {
	ws := newWorkspace(t)
	func() {
		e := start(t, ws, options{trust: []string{"echo"}})
		if got, isErr := e.call("echo", map[string]any{"text": "first"}); isErr {
			t.Fatalf("first run: %s", got)
		}
		_ = e.client.Close()
		if err := <-e.done; err != nil {
			t.Fatalf("first run: %v", err)
		}
		e.done <- nil // for the cleanup
	}()
	e := start(t, ws, options{trust: []string{"echo"}, serverEnv: []string{"PX_TESTSERVER_RUGPULL=1"}})
	tools := e.tools()
	if d := tools["echo"].Description; !strings.Contains(d, "changed since pinned") || !strings.Contains(d, "sensitive_read_request") {
		t.Errorf("echo after the restart: got %q, want held as changed and poisoned", d)
	}
	if d := tools["read_file"].Description; strings.HasPrefix(d, "Held") {
		t.Errorf("read_file did not change and must be served: got %q", d)
	}
	got, isErr := e.call("echo", map[string]any{"text": "second"})
	if !isErr || !strings.Contains(got, RuleToolHeld) {
		t.Errorf("call: got %q (error %v), want held even for a trusted tool", got, isErr)
	}
	for _, line := range e.served() {
		if strings.Contains(line, "second") {
			t.Errorf("the held call reached the server: %s", line)
		}
	}
}

// TestToolMetadataRugPull: a server that comes back with echo's output
// schema, _meta or annotations changed is held at the next start, as
// for a changed description; one whose _meta reads as orders is held on
// first sight. The held tool's calls never reach the server.
func TestToolMetadataRugPull(t *testing.T) {
	for _, variant := range []string{"outputSchema", "meta", "annotations", "meta-poison"} {
		t.Run(variant, func(t *testing.T) {
			ws := newWorkspace(t)
			want := "changed since pinned"
			if variant == "meta-poison" {
				want = "reads as instructions to the agent (sensitive_read_request"
			} else {
				func() {
					e := start(t, ws, options{trust: []string{"echo"}})
					if d := e.tools()["echo"].Description; strings.HasPrefix(d, "Held") {
						t.Fatalf("first run: echo %q", d)
					}
					_ = e.client.Close()
					if err := <-e.done; err != nil {
						t.Fatalf("first run: %v", err)
					}
					e.done <- nil // for the cleanup
				}()
			}
			e := start(t, ws, options{trust: []string{"echo"}, serverEnv: []string{"PX_TESTSERVER_RUGPULL=" + variant}})
			echo := e.tools()["echo"]
			if !strings.Contains(echo.Description, want) || echo.Meta != nil || echo.OutputSchema != nil || echo.Annotations != nil {
				t.Errorf("echo: got %+v, want the placeholder saying %q", echo, want)
			}
			if got, isErr := e.call("echo", map[string]any{"text": "second"}); !isErr || !strings.Contains(got, RuleToolHeld) {
				t.Errorf("call: got %q (error %v), want held", got, isErr)
			}
			for _, line := range e.served() {
				if strings.Contains(line, "second") {
					t.Errorf("the held call reached the server: %s", line)
				}
			}
		})
	}
}

// TestNoApprovalChannel: without an approver an escalation is a BLOCK
// with the reason the issue names, and nothing reaches the server.
func TestNoApprovalChannel(t *testing.T) {
	e := start(t, newWorkspace(t), options{})
	got, isErr := e.call("echo", map[string]any{"text": "hello"})
	if !isErr || !strings.Contains(got, "needs approval; no approval channel") || !strings.Contains(got, RuleApprovalUnavailable) ||
		!strings.Contains(got, "`parallax mcp trust px-testserver echo`") || !strings.Contains(got, "does not know what tool echo") {
		t.Errorf("got %q (error %v), want a block for want of an approval channel", got, isErr)
	}
	if s := e.served(); len(s) != 0 {
		t.Errorf("calls reached the server: %v", s)
	}
}

// TestApprovalOutcomes: denial, timeout and an unreachable channel all
// block; --trust-tool approves without asking.
func TestApprovalOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		step   approval.Step
		trust  []string
		want   string
		ok     bool
		closed bool
	}{
		{"denied", approval.Step{Response: approval.Response{Decision: approval.Deny}}, nil, approval.CodeDenied, false, false},
		{"timeout", approval.Step{Wait: true}, nil, approval.CodeTimeout, false, false},
		{"channel down", approval.Step{Fail: errors.New("tty gone")}, nil, approval.CodeUnavailable, false, false},
		{"trusted tool not asked", approval.Step{Fail: errors.New("must not be asked")}, []string{"echo"}, "hello", true, false},
		{"broker closed", allow, nil, approval.CodeCancelled, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, newWorkspace(t), options{approval: []approval.Step{tt.step}, trust: tt.trust,
				timeout: 300 * time.Millisecond, closed: tt.closed})
			got, isErr := e.call("echo", map[string]any{"text": "hello"})
			if isErr == tt.ok || !strings.Contains(got, tt.want) {
				t.Errorf("got %q (error %v), want %q", got, isErr, tt.want)
			}
		})
	}
}

// failingObserve is the real gate whose Observe fails.
type failingObserve struct{ Gate }

func (failingObserve) Observe(context.Context, shield.Request) error {
	return errors.New("store is read-only")
}

// TestObserveFailureWithholds: a result whose taint cannot be recorded
// does not reach the agent.
func TestObserveFailureWithholds(t *testing.T) {
	e := start(t, newWorkspace(t), options{gateWrap: func(g Gate) Gate { return failingObserve{g} }})
	got, isErr := e.call("read_file", map[string]any{"path": "notes.txt"})
	if !isErr || !strings.Contains(got, RuleObserveError) || strings.Contains(got, "contents of") {
		t.Errorf("got %q (error %v), want the result withheld", got, isErr)
	}
}

// brokenPins fails every update after the first.
type brokenPins struct {
	PinStore
	n int
}

func (b *brokenPins) Update(ctx context.Context, s string, fn func(*ServerPins) error) error {
	b.n++
	if b.n > 1 {
		return errors.New("disk full")
	}
	return b.PinStore.Update(ctx, s, fn)
}

// TestPinFailureHoldsEverything: when the pins cannot be checked, every
// tool is held (fail closed), not served unchecked.
func TestPinFailureHoldsEverything(t *testing.T) {
	e := start(t, newWorkspace(t), options{pinsWrap: func(p PinStore) PinStore { return &brokenPins{PinStore: p} }})
	for name, tl := range e.tools() {
		if !strings.Contains(tl.Description, "could not be checked against the pins") {
			t.Errorf("tool %s: got %q, want held", name, tl.Description)
		}
	}
	got, isErr := e.call("read_file", map[string]any{"path": "notes.txt"})
	if !isErr || !strings.Contains(got, RuleToolHeld) {
		t.Errorf("got %q (error %v), want held", got, isErr)
	}
}

// TestServerGoneEndsRun: when the server process cannot start, Run fails
// and names the server.
func TestServerGoneEndsRun(t *testing.T) {
	ws := t.TempDir()
	g, err := shield.New(shield.Config{Workspace: ws, Home: testHome})
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Gate: g, ServerID: "gone", Session: "s", Workspace: ws, Dir: ws, Home: testHome})
	if err != nil {
		t.Fatal(err)
	}
	down, client := mcp.NewInMemoryTransports()
	up := &ProcessTransport{Command: exec.Command(filepath.Join(ws, "no-such-server"))}
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background(), down, up) }()
	// The server is started when the client initializes: that fails.
	cs, cerr := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), client, nil)
	if cerr == nil {
		_ = cs.Close()
		t.Errorf("client initialized against a server that cannot start")
	}
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end")
	}
	if err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("got %v, want an error naming the server", err)
	}
}
