package agentlink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	parallaxv1 "github.com/parallax/parallax/proto/parallax/v1"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name))
	}
	os.Exit(m.Run())
}

type connectStream = parallaxv1.AgentService_ConnectServer

// engineFunc is a test engine: one function per Connect stream.
type engineFunc struct {
	parallaxv1.UnimplementedAgentServiceServer
	fn func(connectStream) error
}

func (e engineFunc) Connect(st connectStream) error { return e.fn(st) }

// link is one spawned test agent and the engine serving it.
type link struct {
	cmd      *exec.Cmd
	token    string
	srv      *Server
	stderr   *syncBuffer
	refused  chan *RefusedError
	handlers chan error // what each Connect handler returned
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// attach gives p's child end to cmd, as the engine does.
func attach(p *Pair, cmd *exec.Cmd) error {
	files, env, err := p.Attach(cmd.ExtraFiles, cmd.Env)
	if err != nil {
		return err
	}
	cmd.ExtraFiles, cmd.Env = files, env
	return nil
}

// spawn starts the test binary as the agent running scenario, served by
// fn. pidFor picks the pid the engine expects (nil: the child's).
func spawn(t *testing.T, ctx context.Context, scenario string, fn func(*link, connectStream) error, pidFor func(child int) int) *link {
	t.Helper()
	p, err := NewPair()
	if err != nil {
		t.Fatal(err)
	}
	l := &link{token: string(p.token), stderr: &syncBuffer{}, refused: make(chan *RefusedError, 8), handlers: make(chan error, 8)}
	l.cmd = exec.Command(os.Args[0], "-test.run=^$")
	l.cmd.Env = append(os.Environ(), childEnv+"="+scenario)
	l.cmd.Stderr = l.stderr
	if err := attach(p, l.cmd); err != nil {
		t.Fatal(err)
	}
	if err := l.cmd.Start(); err != nil {
		p.Close()
		t.Fatal(err)
	}
	pid := l.cmd.Process.Pid
	if pidFor != nil {
		pid = pidFor(pid)
	}
	l.srv, err = p.Serve(ctx, pid, Config{
		Agent: engineFunc{fn: func(st connectStream) error {
			err := fn(l, st)
			l.handlers <- err
			return err
		}},
		Refused: func(e *RefusedError) { l.refused <- e },
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		l.cmd.Process.Kill()
		l.cmd.Wait()
		t.Fatal(err)
	}
	return l
}

// wait waits for the child and the server and returns the child's error.
func (l *link) wait(t *testing.T) (childErr, serveErr error) {
	t.Helper()
	childErr = l.cmd.Wait()
	serveErr = l.srv.Wait()
	return childErr, serveErr
}

func (l *link) mustSucceed(t *testing.T) {
	t.Helper()
	childErr, serveErr := l.wait(t)
	if childErr != nil {
		t.Fatalf("agent: %v\n%s", childErr, l.stderr)
	}
	if serveErr != nil {
		t.Fatalf("serve: %v", serveErr)
	}
}

// testCtx bounds a test against a hang; nothing waits on it to pass.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// noLeaks fails when goroutines started during the test outlive it.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		n := 0
		for range 200 {
			if n = runtime.NumGoroutine(); n <= before {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the test, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	})
}

func recvText(st connectStream) (string, error) {
	m, err := st.Recv()
	if err != nil {
		return "", err
	}
	if m.GetTextDelta() == nil {
		return "", fmt.Errorf("got %v, want text", m)
	}
	return m.GetTextDelta().GetText(), nil
}

func welcome(st connectStream) error {
	m, err := st.Recv()
	if err != nil {
		return fmt.Errorf("recv hello: %w", err)
	}
	if m.GetHello() == nil {
		return fmt.Errorf("handler got %v before a hello", m)
	}
	return st.Send(&parallaxv1.EngineMessage{Msg: &parallaxv1.EngineMessage_Welcome{Welcome: &parallaxv1.Welcome{
		ProtocolVersion: parallaxv1.ProtocolVersion,
		SessionId:       "s1",
		Config: &parallaxv1.AgentConfig{
			Limits:      &parallaxv1.Limits{MaxMessageBytes: MaxMessageBytes},
			Model:       "m-large",
			PromptFiles: []*parallaxv1.PromptFile{{Name: "SOUL.md", Content: "be careful"}},
		},
	}}})
}

func chunk(c *parallaxv1.LLMChunk) *parallaxv1.EngineMessage {
	c.RequestId = "r1"
	return &parallaxv1.EngineMessage{Msg: &parallaxv1.EngineMessage_LlmChunk{LlmChunk: c}}
}

// sessionEngine plays a whole turn and checks the agent's echoes.
func sessionEngine(_ *link, st connectStream) error {
	if err := welcome(st); err != nil {
		return err
	}
	expect := func(want string) error {
		got, err := recvText(st)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("agent echoed %q, want %q", got, want)
		}
		return nil
	}
	if err := expect(fmt.Sprintf("welcome %d s1 SOUL.md=be careful", parallaxv1.ProtocolVersion)); err != nil {
		return err
	}
	m, err := st.Recv()
	if err != nil {
		return err
	}
	p := m.GetToolProposal()
	if p.GetCallId() != "c1" || p.GetActionType() != "read_file" || string(p.GetPayloadJson()) != `{"path":"/w/a.txt"}` {
		return fmt.Errorf("got proposal %v", m)
	}
	for _, out := range []*parallaxv1.EngineMessage{
		{Msg: &parallaxv1.EngineMessage_Verdict{Verdict: &parallaxv1.Verdict{CallId: "c1", Decision: parallaxv1.Decision_DECISION_ALLOW, ReasonCode: "policy_allow"}}},
		{Msg: &parallaxv1.EngineMessage_ToolResult{ToolResult: &parallaxv1.ToolResult{CallId: "c1", Ok: true, Output: "hello\n"}}},
	} {
		if err := st.Send(out); err != nil {
			return err
		}
	}
	if err := expect("verdict c1 DECISION_ALLOW policy_allow"); err != nil {
		return err
	}
	if err := expect(`result c1 true "hello\n"`); err != nil {
		return err
	}
	if m, err = st.Recv(); err != nil {
		return err
	}
	if got, want := m.GetLlmRequest(), testLLMRequest(); !proto.Equal(got, want) {
		return fmt.Errorf("llm request: got %v, want %v", got, want)
	}
	for _, c := range []*parallaxv1.LLMChunk{
		{Event: &parallaxv1.LLMChunk_Text{Text: "Hel"}},
		{Event: &parallaxv1.LLMChunk_Text{Text: "lo"}},
		{Event: &parallaxv1.LLMChunk_ToolStart{ToolStart: &parallaxv1.ToolStart{Index: 0, CallId: "c2", Name: "list_directory"}}},
		{Event: &parallaxv1.LLMChunk_ToolDelta{ToolDelta: &parallaxv1.ToolDelta{Index: 0, Json: `{"path":`}}},
		{Event: &parallaxv1.LLMChunk_ToolEnd{ToolEnd: &parallaxv1.ToolEnd{Index: 0, Call: &parallaxv1.ToolCall{Id: "c2", Name: "list_directory", InputJson: []byte(`{"path":"/w"}`)}}}},
		{Event: &parallaxv1.LLMChunk_Done{Done: &parallaxv1.LLMDone{StopReason: parallaxv1.StopReason_STOP_REASON_TOOL_USE, Usage: &parallaxv1.Usage{InputTokens: 120, OutputTokens: 7}, Model: "m-large-2026"}}},
	} {
		if err := st.Send(chunk(c)); err != nil {
			return err
		}
	}
	if err := expect(`Hello[start 0 c2 list_directory][delta {"path":][end {"path":"/w"}][done STOP_REASON_TOOL_USE 120/7 m-large-2026]`); err != nil {
		return err
	}
	if m, err = st.Recv(); err != nil {
		return err
	}
	if d := m.GetTurnDone(); d.GetTurnId() != "t1" || d.GetUsage().GetOutputTokens() != 7 {
		return fmt.Errorf("got %v, want turn done", m)
	}
	if m, err = st.Recv(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("after turn: got %v, %v, want EOF", m, err)
	}
	return nil
}

func TestSession(t *testing.T) {
	noLeaks(t)
	l := spawn(t, testCtx(t), "session", sessionEngine, nil)
	l.mustSucceed(t)
	if err := <-l.handlers; err != nil {
		t.Fatalf("engine: %v", err)
	}
	if len(l.refused) != 0 {
		t.Fatalf("refused %v, want nothing refused", <-l.refused)
	}
}

func TestRefused(t *testing.T) {
	tests := []struct {
		scenario string
		want     error
		// handlerRuns: the Connect handler was reached (the hello is
		// checked inside the stream, the token and peer before it).
		handlerRuns bool
	}{
		{"bad-token", ErrToken, false},
		{"bad-version", ErrVersion, true},
		{"no-hello", ErrHello, true},
		{"hello-token", ErrToken, true},
		{"hello-pid", ErrPeer, true},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			noLeaks(t)
			l := spawn(t, testCtx(t), tt.scenario, func(_ *link, st connectStream) error {
				if err := welcome(st); err == nil {
					return errors.New("handler got past a hello that should be refused")
				}
				// Whatever the handler returns, the refusal is what the agent sees.
				return nil
			}, nil)
			l.mustSucceed(t)
			select {
			case e := <-l.refused:
				if !errors.Is(e, tt.want) {
					t.Fatalf("refused with %v, want %v", e, tt.want)
				}
				if strings.Contains(e.Error(), l.token) || strings.Contains(l.stderr.String(), l.token) {
					t.Fatalf("the token leaked into %q / %q", e, l.stderr)
				}
			default:
				t.Fatalf("nothing reported refused, want %v", tt.want)
			}
			if got := len(l.handlers) > 0; got != tt.handlerRuns {
				t.Fatalf("handler ran: %v, want %v", got, tt.handlerRuns)
			}
		})
	}
}

func TestSecondStreamRefused(t *testing.T) {
	noLeaks(t)
	l := spawn(t, testCtx(t), "second", func(_ *link, st connectStream) error {
		if err := welcome(st); err != nil {
			return err
		}
		m, err := st.Recv()
		if err != nil {
			return err
		}
		if m.GetTurnDone() == nil {
			return fmt.Errorf("got %v, want turn done", m)
		}
		_, err = st.Recv()
		if !errors.Is(err, io.EOF) {
			return fmt.Errorf("got %v, want EOF", err)
		}
		return nil
	}, nil)
	l.mustSucceed(t)
	if err := <-l.handlers; err != nil {
		t.Fatalf("engine: %v", err)
	}
	if len(l.handlers) != 0 {
		t.Fatal("the second stream reached the handler")
	}
	if e := <-l.refused; !errors.Is(e, ErrSecondStream) {
		t.Fatalf("refused with %v, want %v", e, ErrSecondStream)
	}
}

// A process other than the spawned one is refused at the handshake: the
// engine expects its own pid here, and the kernel reports the child's.
func TestForeignPeerRefused(t *testing.T) {
	noLeaks(t)
	l := spawn(t, testCtx(t), "foreign", func(*link, connectStream) error {
		return errors.New("handler reached")
	}, func(int) int { return os.Getpid() })
	childErr, serveErr := l.wait(t)
	if childErr != nil {
		t.Fatalf("agent: %v\n%s", childErr, l.stderr)
	}
	var re *RefusedError
	if !errors.As(serveErr, &re) || !errors.Is(re, ErrPeer) {
		t.Fatalf("serve ended with %v, want a refused peer", serveErr)
	}
	if e := <-l.refused; !errors.Is(e, ErrPeer) {
		t.Fatalf("reported %v, want %v", e, ErrPeer)
	}
	if len(l.handlers) != 0 {
		t.Fatal("a foreign peer reached the handler")
	}
}

func TestAgentKilledMidStream(t *testing.T) {
	noLeaks(t)
	l := spawn(t, testCtx(t), "kill", func(l *link, st connectStream) error {
		if err := welcome(st); err != nil {
			return err
		}
		m, err := st.Recv()
		if err != nil {
			return err
		}
		if m.GetLlmRequest() == nil {
			return fmt.Errorf("got %v, want an llm request", m)
		}
		if err := st.Send(chunk(&parallaxv1.LLMChunk{Event: &parallaxv1.LLMChunk_Text{Text: "partial"}})); err != nil {
			return err
		}
		if err := l.cmd.Process.Kill(); err != nil {
			return err
		}
		_, err = st.Recv()
		return err
	}, nil)
	childErr, serveErr := l.wait(t)
	if childErr == nil {
		t.Fatalf("agent exited cleanly, want killed\n%s", l.stderr)
	}
	if serveErr != nil {
		t.Fatalf("serve: %v", serveErr)
	}
	err := <-l.handlers
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("engine's stream ended with %v, want an error", err)
	}
	if c := status.Code(err); c != codes.Canceled && c != codes.Unavailable {
		t.Fatalf("engine's stream ended with code %v (%v), want Canceled or Unavailable", c, err)
	}
}

func TestMessageSizes(t *testing.T) {
	tests := []struct {
		scenario string
		engine   func(*link, connectStream) error
		wantCode codes.Code // what the engine's handler ends with
	}{
		{"large", func(_ *link, st connectStream) error {
			if err := welcome(st); err != nil {
				return err
			}
			out := bigText(1 << 20)
			if err := st.Send(&parallaxv1.EngineMessage{Msg: &parallaxv1.EngineMessage_ToolResult{ToolResult: &parallaxv1.ToolResult{CallId: "c1", Ok: true, Output: out}}}); err != nil {
				return err
			}
			got, err := recvText(st)
			if err != nil {
				return err
			}
			if got != out {
				return fmt.Errorf("echo of 1 MiB: got %d bytes, not what was sent", len(got))
			}
			_, err = st.Recv() // the agent refused its own oversized send and left
			return err
		}, codes.Canceled},
		{"too-big-in", func(_ *link, st connectStream) error {
			if err := welcome(st); err != nil {
				return err
			}
			_, err := st.Recv()
			return err
		}, codes.ResourceExhausted},
		{"too-big-out", func(_ *link, st connectStream) error {
			if err := welcome(st); err != nil {
				return err
			}
			return st.Send(&parallaxv1.EngineMessage{Msg: &parallaxv1.EngineMessage_ToolResult{ToolResult: &parallaxv1.ToolResult{CallId: "c1", Ok: true, Output: bigText(MaxMessageBytes)}}})
		}, codes.ResourceExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			noLeaks(t)
			l := spawn(t, testCtx(t), tt.scenario, tt.engine, nil)
			l.mustSucceed(t)
			if err := <-l.handlers; status.Code(err) != tt.wantCode {
				t.Fatalf("engine ended with %v (%v), want %v", status.Code(err), err, tt.wantCode)
			}
		})
	}
}

// BenchmarkProposalVerdict measures one proposal → verdict round trip
// between the engine (this process) and a real agent process over the
// socketpair: the agent sends a proposal and waits for its verdict.
func BenchmarkProposalVerdict(b *testing.B) {
	streams := make(chan connectStream)
	release := make(chan struct{})
	p, err := NewPair()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=bench")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := attach(p, cmd); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	srv, err := p.Serve(b.Context(), cmd.Process.Pid, Config{Agent: engineFunc{fn: func(st connectStream) error {
		if err := welcome(st); err != nil {
			return err
		}
		streams <- st
		<-release
		return nil
	}}})
	if err != nil {
		b.Fatal(err)
	}
	st := <-streams
	verdict := &parallaxv1.EngineMessage{Msg: &parallaxv1.EngineMessage_Verdict{Verdict: &parallaxv1.Verdict{
		CallId: "c", Decision: parallaxv1.Decision_DECISION_ALLOW, ReasonCode: "policy_allow", Stage: "policy",
	}}}
	if _, err := st.Recv(); err != nil { // the first proposal
		b.Fatal(err)
	}
	for b.Loop() {
		if err := st.Send(verdict); err != nil {
			b.Fatal(err)
		}
		if _, err := st.Recv(); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Send(&parallaxv1.EngineMessage{Msg: &parallaxv1.EngineMessage_Shutdown{Shutdown: &parallaxv1.Shutdown{Reason: "done"}}}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		b.Fatalf("after shutdown: %v", err)
	}
	close(release)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("agent: %v\n%s", err, stderr)
	}
	if err := srv.Wait(); err != nil {
		b.Fatal(err)
	}
}
