package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/llm/chat"
	"github.com/parallax/parallax/verdict"
)

// fakeEngine decides like a tiny gate: a path under /home/u/.ssh is
// blocked; "panic.txt" panics; "fail.txt" is an engine error.
type fakeEngine struct {
	mu  sync.Mutex
	got []Proposal
}

func (f *fakeEngine) Propose(_ context.Context, p Proposal) (Outcome, error) {
	f.mu.Lock()
	f.got = append(f.got, p)
	f.mu.Unlock()
	var in struct{ Path string }
	_ = json.Unmarshal(p.Payload, &in)
	switch {
	case strings.HasPrefix(in.Path, "/home/u/.ssh/"):
		return Outcome{Decision: verdict.Block, Rule: "guard_restricted", Reason: "the path is a credential file"}, nil
	case strings.HasSuffix(in.Path, "panic.txt"):
		panic("executor exploded")
	case strings.HasSuffix(in.Path, "fail.txt"):
		return Outcome{}, errors.New("engine unreachable")
	}
	return Outcome{Decision: verdict.Allow, Output: "contents of " + in.Path}, nil
}

func call(id, name, input string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func toolTurn(calls ...chat.ToolCall) llm.FakeTurn {
	return llm.FakeTurn{Response: &chat.Response{ToolCalls: calls, StopReason: chat.StopToolUse, Model: "fake",
		Usage: chat.Usage{InputTokens: 5, OutputTokens: 5}}}
}

func newConv(t *testing.T, p chat.Provider, e Proposer, lim Limits) (*Conversation, *[]Event) {
	t.Helper()
	var evs []Event
	c, err := New(Config{Session: "s1", Model: "fake", System: "sys", Limits: lim, LLM: p, Tools: e,
		Sink: func(ev Event) { evs = append(evs, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	return c, &evs
}

// lastResults returns the tool results of the last message of a request.
func lastResults(t *testing.T, req chat.Request) []chat.ToolResult {
	t.Helper()
	m := req.Messages[len(req.Messages)-1]
	var out []chat.ToolResult
	for _, p := range m.Content {
		if p.Kind == chat.PartToolResult {
			out = append(out, p.ToolResult)
		}
	}
	return out
}

func TestTurnRunsAllowedAndSurvivesBlocked(t *testing.T) {
	fp := llm.NewFake(
		toolTurn(call("c1", "read_file", `{"path":"/ws/a.txt"}`)),
		toolTurn(call("c2", "read_file", `{"path":"/home/u/.ssh/id_rsa"}`)),
		llm.FakeReply("I could not read the key; here is a.txt."),
	)
	eng := &fakeEngine{}
	c, evs := newConv(t, fp, eng, Limits{})
	rep, err := c.Turn(context.Background(), "read a.txt and my ssh key")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rounds != 3 || rep.Text != "I could not read the key; here is a.txt." {
		t.Fatalf("got %+v", rep)
	}
	if len(eng.got) != 2 || eng.got[1].Type != action.ReadFile || eng.got[0].Session != "s1" {
		t.Fatalf("proposals %+v", eng.got)
	}
	calls := fp.Calls()
	if r := lastResults(t, calls[1]); len(r) != 1 || r[0].IsError || r[0].Content != "contents of /ws/a.txt" {
		t.Fatalf("first result %+v", r)
	}
	r := lastResults(t, calls[2])
	if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, "guard_restricted") ||
		!strings.Contains(r[0].Content, "credential file") {
		t.Fatalf("blocked result %+v", r)
	}
	var kinds []string
	for _, ev := range *evs {
		if ev.Kind != EventTextDelta {
			kinds = append(kinds, ev.Kind.String())
		}
	}
	want := "tool_proposed verdict tool_result tool_proposed verdict tool_result turn_done"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	// The conversation goes on after a block.
	fp.Push(llm.FakeReply("ok"))
	if _, err := c.Turn(context.Background(), "thanks"); err != nil {
		t.Fatal(err)
	}
}

func TestToolsOutsideLoadedGroups(t *testing.T) {
	fp := llm.NewFake(
		toolTurn(call("c1", "delete_file", `{"path":"/ws/x"}`), call("c2", "no_such_tool", `{}`)),
		toolTurn(call("c3", LoadToolsName, `{"groups":["files"]}`)),
		toolTurn(call("c4", LoadToolsName, `{"groups":["nope"]}`)),
		toolTurn(call("c5", "delete_file", `{"path":"/ws/x"}`)),
		llm.FakeReply("deleted"),
	)
	eng := &fakeEngine{}
	c, _ := newConv(t, fp, eng, Limits{})
	if _, err := c.Turn(context.Background(), "delete x"); err != nil {
		t.Fatal(err)
	}
	calls := fp.Calls()
	r := lastResults(t, calls[1])
	if !r[0].IsError || !strings.Contains(r[0].Content, `group "files"`) || !r[1].IsError || !strings.Contains(r[1].Content, "no tool named") {
		t.Fatalf("results before load %+v", r)
	}
	if hasTool(calls[0].Tools, "delete_file") || !hasTool(calls[2].Tools, "delete_file") {
		t.Fatal("delete_file offered before load_tools or missing after")
	}
	if r := lastResults(t, calls[3]); !r[0].IsError || !strings.Contains(r[0].Content, `unknown tool group "nope"`) {
		t.Fatalf("bad group result %+v", r)
	}
	if len(eng.got) != 1 || eng.got[0].Type != action.DeleteFile {
		t.Fatalf("proposals %+v, want only the delete after loading", eng.got)
	}
}

func hasTool(ts []chat.Tool, name string) bool {
	for _, t := range ts {
		if t.Name == name {
			return true
		}
	}
	return false
}

func TestMaxToolRoundsEndsTheTurn(t *testing.T) {
	fp := llm.NewFake(
		toolTurn(call("c1", "read_file", `{"path":"/ws/1"}`)),
		toolTurn(call("c2", "read_file", `{"path":"/ws/2"}`)),
		toolTurn(call("c3", "read_file", `{"path":"/ws/3"}`)),
	)
	eng := &fakeEngine{}
	c, _ := newConv(t, fp, eng, Limits{MaxToolRounds: 3})
	rep, err := c.Turn(context.Background(), "loop")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.LimitReached || rep.Rounds != 3 || len(eng.got) != 2 {
		t.Fatalf("rep %+v, proposals %d; want limit after 3 rounds with 2 run", rep, len(eng.got))
	}
	h := c.History()
	last := h[len(h)-1]
	if last.Role != chat.User || last.Content[0].Kind != chat.PartToolResult || !strings.Contains(last.Content[0].ToolResult.Content, "limit of 3") {
		t.Fatalf("the unrun call is not answered: %+v", last)
	}
	fp.Push(llm.FakeReply("next"))
	if _, err := c.Turn(context.Background(), "go on"); err != nil {
		t.Fatalf("turn after the limit: %v", err)
	}
}

func TestProposerPanicAndErrorAreToolErrors(t *testing.T) {
	fp := llm.NewFake(
		toolTurn(call("c1", "read_file", `{"path":"/ws/panic.txt"}`), call("c2", "read_file", `{"path":"/ws/fail.txt"}`)),
		llm.FakeReply("survived"),
	)
	c, evs := newConv(t, fp, &fakeEngine{}, Limits{})
	rep, err := c.Turn(context.Background(), "x")
	if err != nil || rep.Text != "survived" {
		t.Fatalf("rep %+v err %v", rep, err)
	}
	r := lastResults(t, fp.Calls()[1])
	if !r[0].IsError || !strings.Contains(r[0].Content, "executor exploded") || !r[1].IsError || !strings.Contains(r[1].Content, "engine unreachable") {
		t.Fatalf("results %+v", r)
	}
	blocks := 0
	for _, ev := range *evs {
		if ev.Kind == EventVerdict && ev.Decision == verdict.Block && ev.Rule == "engine_error" {
			blocks++
		}
	}
	if blocks != 2 {
		t.Fatalf("engine errors reported as %d BLOCK verdicts, want 2", blocks)
	}
}

func TestModelErrors(t *testing.T) {
	down := errors.New("provider down")
	fp := llm.NewFake(llm.FakeTurn{Err: down})
	c, evs := newConv(t, fp, &fakeEngine{}, Limits{})
	if _, err := c.Turn(context.Background(), "hi"); !errors.Is(err, down) {
		t.Fatalf("err %v", err)
	}
	if len(c.History()) != 0 {
		t.Fatalf("a turn that did nothing left history %+v", c.History())
	}
	if last := (*evs)[len(*evs)-1]; last.Kind != EventTurnError {
		t.Fatalf("last event %v", last.Kind)
	}
	// Mid-turn: the tool ran, so the history keeps it and stays valid.
	fp.Push(toolTurn(call("c1", "read_file", `{"path":"/ws/a"}`)), llm.FakeTurn{Err: down}, llm.FakeReply("back"))
	if _, err := c.Turn(context.Background(), "hi"); !errors.Is(err, down) {
		t.Fatalf("err %v", err)
	}
	h := c.History()
	if len(h) != 4 || h[3].Role != chat.Assistant || !strings.Contains(h[3].Content[0].Text, "turn ended early") {
		t.Fatalf("history after a mid-turn error: %+v", h)
	}
	if rep, err := c.Turn(context.Background(), "again"); err != nil || rep.Text != "back" {
		t.Fatalf("next turn %+v %v", rep, err)
	}
}

func TestCompactionSummarisesOlderTurns(t *testing.T) {
	big := strings.Repeat("word ", 400) // ~500 tokens
	fp := llm.NewFake(llm.FakeReply(big), llm.FakeReply(big))
	c, evs := newConv(t, fp, &fakeEngine{}, Limits{ContextTokens: 2000, CompactAt: 0.6})
	for _, m := range []string{"first " + big, "second"} {
		if _, err := c.Turn(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	fp.Push(llm.FakeReply("SUMMARY: the user sent two long messages."), llm.FakeReply("third answer"))
	if _, err := c.Turn(context.Background(), "third"); err != nil {
		t.Fatal(err)
	}
	calls := fp.Calls()
	sum, next := calls[2], calls[3]
	if len(sum.Tools) != 0 || !strings.Contains(sum.Messages[0].Content[0].Text, "user: first word") {
		t.Fatalf("summary request %+v", sum.Messages)
	}
	if !strings.Contains(next.System, "SUMMARY: the user sent") || len(next.Messages) != 1 || next.Messages[0].Content[0].Text != "third" {
		t.Fatalf("after compaction: system %q, %d messages", next.System, len(next.Messages))
	}
	if c.contextTokens() > 1000 {
		t.Fatalf("context still %d tokens", c.contextTokens())
	}
	found := false
	for _, ev := range *evs {
		found = found || (ev.Kind == EventCompacted && strings.Contains(ev.Text, "summarised 4"))
	}
	if !found {
		t.Fatal("no compacted event")
	}
}

func TestCompactionFailureDropsOldTurns(t *testing.T) {
	big := strings.Repeat("word ", 400)
	fp := llm.NewFake(llm.FakeReply(big), llm.FakeTurn{Err: errors.New("no summary today")}, llm.FakeReply("ok"))
	c, _ := newConv(t, fp, &fakeEngine{}, Limits{ContextTokens: 1500, CompactAt: 0.5})
	if _, err := c.Turn(context.Background(), "first "+big); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Turn(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Summary(), "could not be summarised") || len(c.History()) != 2 {
		t.Fatalf("summary %q, history %d", c.Summary(), len(c.History()))
	}
}

func TestElideOldResultsKeepsRecentRounds(t *testing.T) {
	out := strings.Repeat("x", 4000)
	eng := proposerFunc(func(context.Context, Proposal) (Outcome, error) {
		return Outcome{Decision: verdict.Allow, Output: out}, nil
	})
	var turns []llm.FakeTurn
	for i := range 5 {
		turns = append(turns, toolTurn(call("c"+string(rune('a'+i)), "read_file", `{"path":"/ws/f"}`)))
	}
	fp := llm.NewFake(append(turns, llm.FakeReply("done"))...)
	c, _ := newConv(t, fp, eng, Limits{ContextTokens: 6000, CompactAt: 0.5})
	if _, err := c.Turn(context.Background(), "read it five times"); err != nil {
		t.Fatal(err)
	}
	var kept, elided int
	for _, m := range c.History() {
		for _, p := range m.Content {
			if p.Kind == chat.PartToolResult {
				if p.ToolResult.Content == elidedOutput {
					elided++
				} else {
					kept++
				}
			}
		}
	}
	if kept < keepRounds || elided == 0 {
		t.Fatalf("kept %d, elided %d", kept, elided)
	}
}

type proposerFunc func(context.Context, Proposal) (Outcome, error)

func (f proposerFunc) Propose(ctx context.Context, p Proposal) (Outcome, error) { return f(ctx, p) }

func TestNewRefusesIncompleteConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no llm":      {Session: "s", Tools: &fakeEngine{}},
		"no proposer": {Session: "s", LLM: llm.NewFake()},
		"no session":  {LLM: llm.NewFake(), Tools: &fakeEngine{}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
