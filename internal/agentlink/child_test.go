package agentlink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	parallaxv1 "github.com/parallax/parallax/proto/parallax/v1"
)

// The test binary re-executes itself as the agent: TestMain runs the
// scenario named in childEnv instead of the tests.
const childEnv = "AGENTLINK_TEST_CHILD"

type agentStream = grpc.BidiStreamingClient[parallaxv1.AgentMessage, parallaxv1.EngineMessage]

var childScenarios = map[string]func(ctx context.Context) error{
	"session":     childSession,
	"bad-token":   childBadToken,
	"bad-version": childBadVersion,
	"no-hello":    childNoHello,
	"hello-token": childHelloToken,
	"hello-pid":   childHelloPid,
	"second":      childSecond,
	"kill":        childKill,
	"large":       childLarge,
	"too-big-in":  childTooBigIn,
	"too-big-out": childTooBigOut,
	"foreign":     childForeign,
	"bench":       childBench,
}

func runChild(name string) int {
	f, ok := childScenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "child: no scenario %q\n", name)
		return 2
	}
	// A bound against a stuck test, not a synchronisation.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := f(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", name, err)
		return 1
	}
	return 0
}

// connect dials, opens Connect, says hello and reads the welcome.
func connect(ctx context.Context, opts ...grpc.DialOption) (*Client, agentStream, *parallaxv1.Welcome, error) {
	c, err := Dial(ctx, opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := c.Agent().Connect(ctx)
	if err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("connect: %w", err)
	}
	if err := st.Send(c.Hello("test")); err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("send hello: %w", err)
	}
	m, err := st.Recv()
	if err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("recv welcome: %w", err)
	}
	if m.GetWelcome() == nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("got %v, want welcome", m)
	}
	return c, st, m.GetWelcome(), nil
}

// finish ends the stream from the agent's side and expects a clean end.
func finish(c *Client, st agentStream) error {
	defer c.Close()
	if err := st.CloseSend(); err != nil {
		return fmt.Errorf("close send: %w", err)
	}
	if m, err := st.Recv(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("after close: got %v, %v, want EOF", m, err)
	}
	return nil
}

func wantCode(err error, want codes.Code) error {
	if got := status.Code(err); got != want {
		return fmt.Errorf("got code %v (%v), want %v", got, err, want)
	}
	return nil
}

func childSession(ctx context.Context) error {
	c, st, w, err := connect(ctx)
	if err != nil {
		return err
	}
	for _, k := range []string{EnvFD, EnvToken} {
		if v, ok := os.LookupEnv(k); ok {
			return fmt.Errorf("%s still in the environment (%d bytes)", k, len(v))
		}
	}
	if _, err := c.dialer.dial(ctx, "again"); !errors.Is(err, ErrRedial) {
		return fmt.Errorf("second dial: got %v, want ErrRedial", err)
	}
	// Echo the welcome, the verdict, the result and the assembled LLM
	// answer back as text so the engine side compares them with what it sent.
	echo := func(s string) error {
		return st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_TextDelta{TextDelta: &parallaxv1.TextDelta{TurnId: "t1", Text: s}}})
	}
	pf := w.GetConfig().GetPromptFiles()
	if len(pf) != 1 {
		return fmt.Errorf("welcome has %d prompt files, want 1", len(pf))
	}
	if err := echo(fmt.Sprintf("welcome %d %s %s=%s", w.GetProtocolVersion(), w.GetSessionId(), pf[0].GetName(), pf[0].GetContent())); err != nil {
		return err
	}
	if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_ToolProposal{ToolProposal: &parallaxv1.ToolProposal{
		CallId: "c1", ActionType: "read_file", PayloadJson: []byte(`{"path":"/w/a.txt"}`),
	}}}); err != nil {
		return err
	}
	for range 2 {
		m, err := st.Recv()
		if err != nil {
			return fmt.Errorf("recv verdict/result: %w", err)
		}
		switch {
		case m.GetVerdict() != nil:
			v := m.GetVerdict()
			err = echo(fmt.Sprintf("verdict %s %v %s", v.GetCallId(), v.GetDecision(), v.GetReasonCode()))
		case m.GetToolResult() != nil:
			r := m.GetToolResult()
			err = echo(fmt.Sprintf("result %s %v %q", r.GetCallId(), r.GetOk(), r.GetOutput()))
		default:
			err = fmt.Errorf("got %v, want verdict or result", m)
		}
		if err != nil {
			return err
		}
	}
	if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_LlmRequest{LlmRequest: testLLMRequest()}}); err != nil {
		return err
	}
	var text strings.Builder
	for {
		m, err := st.Recv()
		if err != nil {
			return fmt.Errorf("recv llm chunk: %w", err)
		}
		ch := m.GetLlmChunk()
		if ch == nil || ch.GetRequestId() != "r1" {
			return fmt.Errorf("got %v, want an llm chunk of r1", m)
		}
		switch ev := ch.GetEvent().(type) {
		case *parallaxv1.LLMChunk_Text:
			text.WriteString(ev.Text)
		case *parallaxv1.LLMChunk_ToolStart:
			fmt.Fprintf(&text, "[start %d %s %s]", ev.ToolStart.GetIndex(), ev.ToolStart.GetCallId(), ev.ToolStart.GetName())
		case *parallaxv1.LLMChunk_ToolDelta:
			fmt.Fprintf(&text, "[delta %s]", ev.ToolDelta.GetJson())
		case *parallaxv1.LLMChunk_ToolEnd:
			fmt.Fprintf(&text, "[end %s]", ev.ToolEnd.GetCall().GetInputJson())
		case *parallaxv1.LLMChunk_Done:
			d := ev.Done
			fmt.Fprintf(&text, "[done %v %d/%d %s]", d.GetStopReason(), d.GetUsage().GetInputTokens(), d.GetUsage().GetOutputTokens(), d.GetModel())
			if err := echo(text.String()); err != nil {
				return err
			}
			if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_TurnDone{TurnDone: &parallaxv1.TurnDone{
				TurnId: "t1", StopReason: d.GetStopReason(), Usage: d.GetUsage(),
			}}}); err != nil {
				return err
			}
			return finish(c, st)
		default:
			return fmt.Errorf("chunk without event: %v", ch)
		}
	}
}

// testLLMRequest carries every kind of content the llm package has.
func testLLMRequest() *parallaxv1.LLMRequest {
	temp := 0.25
	return &parallaxv1.LLMRequest{
		RequestId: "r1",
		Model:     "m-large",
		System:    "you are careful",
		Messages: []*parallaxv1.Message{
			{Role: parallaxv1.Role_ROLE_USER, Content: []*parallaxv1.Part{{Kind: &parallaxv1.Part_Text{Text: "read a.txt"}}}},
			{Role: parallaxv1.Role_ROLE_ASSISTANT, Content: []*parallaxv1.Part{{Kind: &parallaxv1.Part_ToolUse{ToolUse: &parallaxv1.ToolCall{
				Id: "c1", Name: "read_file", InputJson: []byte(`{"path":"/w/a.txt"}`),
			}}}}},
			{Role: parallaxv1.Role_ROLE_USER, Content: []*parallaxv1.Part{{Kind: &parallaxv1.Part_ToolResult{ToolResult: &parallaxv1.ToolResultPart{
				CallId: "c1", Content: "hello", IsError: false,
			}}}}},
		},
		Tools:         []*parallaxv1.ToolDefinition{{Name: "read_file", Description: "read a file", InputSchemaJson: []byte(`{"type":"object"}`)}},
		MaxTokens:     512,
		Temperature:   &temp,
		StopSequences: []string{"END"},
	}
}

func childBadToken(ctx context.Context) error {
	os.Setenv(EnvToken, strings.Repeat("ab", tokenBytes))
	c, err := Dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Agent().Connect(ctx)
	if err != nil {
		return err
	}
	if err := st.Send(c.Hello("test")); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	_, err = st.Recv()
	return wantCode(err, codes.Unauthenticated)
}

// childHelloRefused sends the hello edit makes of a good one.
func childHelloRefused(ctx context.Context, edit func(*parallaxv1.AgentMessage) *parallaxv1.AgentMessage, want codes.Code) error {
	c, err := Dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Agent().Connect(ctx)
	if err != nil {
		return err
	}
	if err := st.Send(edit(c.Hello("test"))); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	_, err = st.Recv()
	return wantCode(err, want)
}

func childBadVersion(ctx context.Context) error {
	return childHelloRefused(ctx, func(m *parallaxv1.AgentMessage) *parallaxv1.AgentMessage {
		m.GetHello().ProtocolVersion++
		return m
	}, codes.FailedPrecondition)
}

func childNoHello(ctx context.Context) error {
	return childHelloRefused(ctx, func(*parallaxv1.AgentMessage) *parallaxv1.AgentMessage {
		return &parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_ToolProposal{ToolProposal: &parallaxv1.ToolProposal{
			CallId: "c0", ActionType: "read_file", PayloadJson: []byte(`{"path":"/etc/hostname"}`),
		}}}
	}, codes.InvalidArgument)
}

// childHelloToken sends the right token as metadata and another in hello.
func childHelloToken(ctx context.Context) error {
	return childHelloRefused(ctx, func(m *parallaxv1.AgentMessage) *parallaxv1.AgentMessage {
		m.GetHello().Token = strings.Repeat("cd", tokenBytes)
		return m
	}, codes.Unauthenticated)
}

// childHelloPid claims to be another process.
func childHelloPid(ctx context.Context) error {
	return childHelloRefused(ctx, func(m *parallaxv1.AgentMessage) *parallaxv1.AgentMessage {
		m.GetHello().Pid = 1
		return m
	}, codes.PermissionDenied)
}

func childSecond(ctx context.Context) error {
	c, st, _, err := connect(ctx)
	if err != nil {
		return err
	}
	st2, err := c.Agent().Connect(ctx)
	if err != nil {
		return err
	}
	if err := st2.Send(c.Hello("test")); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if _, err := st2.Recv(); wantCode(err, codes.AlreadyExists) != nil {
		return fmt.Errorf("second stream: %w", wantCode(err, codes.AlreadyExists))
	}
	// The first stream is unharmed.
	if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_TurnDone{TurnDone: &parallaxv1.TurnDone{TurnId: "t1"}}}); err != nil {
		return err
	}
	return finish(c, st)
}

func childKill(ctx context.Context) error {
	_, st, _, err := connect(ctx)
	if err != nil {
		return err
	}
	if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_LlmRequest{LlmRequest: testLLMRequest()}}); err != nil {
		return err
	}
	for { // the engine kills this process while it streams
		if _, err := st.Recv(); err != nil {
			return fmt.Errorf("recv ended before the kill: %w", err)
		}
	}
}

// bigText is n bytes of numbered lines: a dropped, repeated or shifted
// piece changes the text. Built from a block of 4093 bytes (a prime, so no
// line boundary repeats at the same offset) stamped with its block index.
func bigText(n int) string {
	var line strings.Builder
	for i := 0; line.Len() < 4093; i++ {
		fmt.Fprintf(&line, "%08d\n", i)
	}
	block := line.String()[:4093-9]
	b := make([]byte, 0, n+4093)
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "%08x|", i)
		b = append(b, block...)
	}
	return string(b[:n])
}

func childLarge(ctx context.Context) error {
	c, st, _, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	m, err := st.Recv()
	if err != nil {
		return fmt.Errorf("recv large result: %w", err)
	}
	out := m.GetToolResult().GetOutput()
	if out != bigText(1<<20) {
		return fmt.Errorf("large result: got %d bytes, not the 1 MiB sent", len(out))
	}
	if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_TextDelta{TextDelta: &parallaxv1.TextDelta{TurnId: "t1", Text: out}}}); err != nil {
		return fmt.Errorf("send large text: %w", err)
	}
	// Over the cap: refused here, before anything is written.
	err = st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_TextDelta{TextDelta: &parallaxv1.TextDelta{TurnId: "t1", Text: bigText(MaxMessageBytes)}}})
	return wantCode(err, codes.ResourceExhausted)
}

func childTooBigIn(ctx context.Context) error {
	// This agent lifts its own send cap; the engine's receive cap holds.
	c, st, _, err := connect(ctx, grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(2*MaxMessageBytes)))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := st.Send(&parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_TextDelta{TextDelta: &parallaxv1.TextDelta{TurnId: "t1", Text: bigText(MaxMessageBytes)}}}); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("send: %w", err)
	}
	_, err = st.Recv()
	return wantCode(err, codes.ResourceExhausted)
}

func childTooBigOut(ctx context.Context) error {
	c, st, _, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = st.Recv()
	return wantCode(err, codes.ResourceExhausted)
}

func childForeign(ctx context.Context) error {
	c, err := Dial(ctx)
	if err == nil {
		c.Close()
		return errors.New("dial succeeded, want the engine to refuse this process")
	}
	return nil
}

func childBench(ctx context.Context) error {
	c, st, _, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	prop := &parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_ToolProposal{ToolProposal: &parallaxv1.ToolProposal{
		CallId: "c", ActionType: "read_file", PayloadJson: []byte(`{"path":"/w/src/main.go"}`),
	}}}
	for {
		if err := st.Send(prop); err != nil {
			return fmt.Errorf("send proposal: %w", err)
		}
		m, err := st.Recv()
		if err != nil {
			return fmt.Errorf("recv verdict: %w", err)
		}
		if m.GetShutdown() != nil {
			return finish(c, st)
		}
		if m.GetVerdict() == nil {
			return fmt.Errorf("got %v, want a verdict", m)
		}
	}
}
