package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/workspace"
)

func TestCommandErrors(t *testing.T) {
	e := newEnv(t, nil)
	s := mustNew(t, e.m, false)
	cases := []struct {
		session, name string
		args          []string
		want          error // nil: any error
	}{
		{s.ID, "frobnicate", nil, ErrUnknownCommand},
		{s.ID, "/", nil, ErrUnknownCommand},
		{s.ID, "switch", []string{"no-such"}, ErrNotFound},
		{s.ID, "switch", nil, ErrUsage},
		{s.ID, "delete", []string{s.ID}, nil},
		{s.ID, "delete", []string{"no-such"}, ErrNotFound},
		{s.ID, "audit", []string{"-3"}, ErrUsage},
		{s.ID, "audit", []string{"1", "2"}, ErrUsage},
		{s.ID, "title", []string{"\x1b[2J"}, ErrUsage},
		{s.ID, "history", []string{"x"}, ErrUsage},
		{s.ID, "config", []string{"get", "x"}, ErrUsage},
		{s.ID, "undo", []string{"all"}, ErrUsage},
		{"", "history", nil, nil},
		{"no-such", "status", nil, ErrNotFound},
		{s.ID, "restart", nil, nil},
		{s.ID, "logs", nil, nil},
		{"", "config", []string{"set", "agent.max_tool_rounds", "3"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := e.m.Command(context.Background(), tc.session, tc.name, tc.args)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Errorf("got %v, want an error (%v)", err, tc.want)
			}
		})
	}
	if got := Commands(); len(got) != 20 || got[0] != "help" {
		t.Errorf("commands: got %v", got)
	}
	help := mustCommand(t, e.m, s.ID, "/HELP")
	for _, name := range Commands() {
		if !strings.Contains(help.Text, "/"+name) {
			t.Errorf("/help does not list /%s", name)
		}
	}
}

func TestNewOTRSwitchDelete(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	first := mustCommand(t, e.m, "", "new")
	if first.Switch == "" || first.OTR {
		t.Fatalf("/new: got %+v", first)
	}
	a := first.Switch
	mustAppend(t, e.m, a, "hello", "hi")
	second := mustCommand(t, e.m, a, "new")
	b := second.Switch
	otr := mustCommand(t, e.m, b, "otr")
	if !otr.OTR || !strings.HasPrefix(otr.Text, "OFF THE RECORD") {
		t.Errorf("/otr: got %+v", otr)
	}
	sw := mustCommand(t, e.m, otr.Switch, "switch", a)
	if sw.Switch != a || sw.OTR {
		t.Errorf("/switch: got %+v", sw)
	}
	if _, err := e.m.Get(ctx, otr.Switch); !errors.Is(err, ErrNotFound) {
		t.Errorf("the OTR session survived leaving it: %v", err)
	}
	if res := mustCommand(t, e.m, a, "switch", a); res.Switch != "" {
		t.Errorf("switch to the current session: got %+v, want no switch", res)
	}
	del := mustCommand(t, e.m, a, "delete", b)
	if del.Switch != "" {
		t.Errorf("/delete: got %+v", del)
	}
	if _, err := e.m.Get(ctx, b); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted session: got %v, want ErrNotFound", err)
	}
	list, err := e.m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != a || list[0].Messages != 2 {
		t.Errorf("list: got %+v, want only %s with 2 messages", list, a)
	}
	var got []string
	for _, en := range e.entries(t, audit.Filter{}) {
		if en.Type == audit.SessionStarted || en.Type == audit.SessionEnded {
			got = append(got, en.Session+":"+en.Detail.Code)
		}
	}
	want := []string{
		a + ":session_started",
		b + ":session_started", a + ":session_ended",
		otr.Switch + ":otr_session_started", b + ":session_ended",
		otr.Switch + ":otr_session_ended", a + ":session_resumed",
		b + ":session_deleted",
	}
	if !slices.Equal(got, want) {
		t.Errorf("session entries:\n got %v\nwant %v", got, want)
	}
	e.verifyChain(t)
}

// TestConfigFromASession: security keys are refused from a session, the
// allowed ones are written by the canonical writer and recorded with the
// session; the chain verifies afterwards.
func TestConfigFromASession(t *testing.T) {
	e := newEnv(t, nil)
	cfgPath := workspace.ConfigPath(e.root)
	f, err := os.OpenFile(cfgPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("llm:\n  models:\n    - {name: local, provider: ollama, model: llama3, base_url: \"http://127.0.0.1:11434/v1\"}\n" +
		"    - {name: other, provider: ollama, model: qwen, base_url: \"http://127.0.0.1:11434/v1\"}\n  roles:\n    chat: local\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, e.m, false)
	baseline := len(e.entries(t, audit.Filter{Type: audit.ConfigChanged})) // parallax init's
	cases := []struct {
		name    string
		args    []string
		wantErr error // nil: success; errAnyErr: some error
	}{
		{"config", []string{"set", "agent.sandbox", "off"}, workspace.ErrSecurityKey},
		{"config", []string{"set", "policy", "permissive"}, workspace.ErrSecurityKey},
		{"config", []string{"set", "agent.daily_budget_usd", "1000"}, workspace.ErrSecurityKey},
		{"config", []string{"set", "agent.max_tool_rounds", "40"}, nil},
		{"config", []string{"set", "agent.max_tool_rounds", "40"}, nil}, // unchanged: no entry
		{"model", []string{"other"}, nil},
		{"model", []string{"no-such-model"}, errAnyErr},
		{"config", []string{"set", "agent.max_tool_rounds", "not a number"}, errAnyErr},
	}
	for _, tc := range cases {
		_, err := e.m.Command(context.Background(), s.ID, tc.name, tc.args)
		switch {
		case tc.wantErr == nil && err != nil:
			t.Errorf("/%s %v: %v", tc.name, tc.args, err)
		case tc.wantErr == errAnyErr && err == nil, tc.wantErr != nil && tc.wantErr != errAnyErr && !errors.Is(err, tc.wantErr):
			t.Errorf("/%s %v: got %v, want %v", tc.name, tc.args, err, tc.wantErr)
		}
	}
	cfg, err := workspace.LoadConfig(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent == nil || cfg.Agent.MaxToolRounds != 40 || cfg.LLM.Roles.Chat != "other" || cfg.Agent.Sandbox != "" {
		t.Errorf("config after: %+v %+v", cfg.Agent, cfg.LLM.Roles)
	}
	var codes []string
	for _, en := range e.entries(t, audit.Filter{Type: audit.ConfigChanged})[baseline:] {
		codes = append(codes, en.Session+":"+en.Detail.Code)
	}
	if want := []string{s.ID + ":config_set_session", s.ID + ":config_set_session"}; !slices.Equal(codes, want) {
		t.Errorf("ConfigChanged entries: got %v, want %v", codes, want)
	}
	res := mustCommand(t, e.m, s.ID, "model")
	if want := "chat model: other\navailable: local, other"; res.Text != want {
		t.Errorf("/model: got %q, want %q", res.Text, want)
	}
	show := mustCommand(t, e.m, s.ID, "config")
	if !strings.Contains(show.Text, "max_tool_rounds: 40") {
		t.Errorf("/config does not show the file: %q", show.Text)
	}
	e.verifyChain(t)
}

var errAnyErr = errors.New("any error")

func TestExport(t *testing.T) {
	e := newEnv(t, nil)
	s := mustNew(t, e.m, false)
	mustAppend(t, e.m, s.ID, "first question", "first answer\n")
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(e.root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.root, "taken.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".claude", "skills"} {
		if err := os.Mkdir(filepath.Join(e.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		args    []string
		file    string // written, relative to the workspace
		wantErr error  // nil: success; errAnyErr: some error
	}{
		{"default path", nil, "session-sess-0001.md", nil},
		{"relative path", []string{"notes/s.md"}, "", errAnyErr}, // notes/ does not exist
		{"absolute inside", []string{filepath.Join(e.root, "s.md")}, "s.md", nil},
		{"parent", []string{"../s.md"}, "", ErrOutside},
		{"absolute outside", []string{filepath.Join(outside, "s.md")}, "", ErrOutside},
		{"through a symlink", []string{"out/s.md"}, "", ErrOutside},
		{"sealed", []string{".parallax/s.md"}, "", ErrOutside},
		{"agent hook settings", []string{".claude/settings.json"}, "", ErrOutside}, // the gate protects them
		{"read-only skills", []string{"skills/s.md"}, "", ErrOutside},
		{"the workspace itself", []string{"."}, "", ErrOutside},
		{"existing file", []string{"taken.md"}, "", errAnyErr},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.m.Command(context.Background(), s.ID, "export", tc.args)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatal(err)
			case tc.wantErr == errAnyErr && err == nil, tc.wantErr != nil && tc.wantErr != errAnyErr && !errors.Is(err, tc.wantErr):
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			case tc.wantErr != nil:
				return
			}
			data, err := os.ReadFile(filepath.Join(e.root, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			want := "# first question\n\nSession `sess-0001`, started 2026-11-26 09:00:01 UTC, 2 messages.\n\n" +
				"## user — 2026-11-26 09:00:02 UTC\n\nfirst question\n\n## assistant — 2026-11-26 09:00:03 UTC\n\nfirst answer\n"
			if string(data) != want {
				t.Errorf("got\n%s\nwant\n%s", data, want)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(e.root, "taken.md")); string(data) != "mine" {
		t.Errorf("an existing file was overwritten: %q", data)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("export wrote outside the workspace: %v", ents)
	}
}

func TestStatusUsageAuditLogs(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Status = func() string { return "engine: up 5m, sandbox on" }
		o.Logs = func(_ context.Context, n int) (string, error) { return fmt.Sprintf("last %d lines", n), nil }
	})
	ctx := context.Background()
	s := mustNew(t, e.m, false)
	day := store.Day(e.clock.t)
	for _, u := range []store.LLMUsage{
		{Day: day, Session: s.ID, Model: "m", Calls: 2, InputTokens: 1200, OutputTokens: 300, CostMicroUSD: 4500},
		{Day: day, Session: "other", Model: "m", Calls: 1, InputTokens: 100, OutputTokens: 10, CostMicroUSD: 500},
		{Day: "2026-11-25", Session: s.ID, Model: "m", Calls: 9, InputTokens: 9, OutputTokens: 9, CostMicroUSD: 9},
	} {
		if err := e.ws.DB.AddLLMUsage(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	usage := mustCommand(t, e.m, s.ID, "usage")
	daily, _ := (*workspace.AgentConfig)(nil).Budgets()
	want := fmt.Sprintf("today (%s UTC), all sessions: 3 calls, 1300 input + 310 output tokens, $0.0050 of a daily budget of $%.2f\n"+
		"today, this session: 2 calls, 1200 input + 300 output tokens, $0.0045\n", day, daily)
	if usage.Text != want {
		t.Errorf("/usage:\n got %q\nwant %q", usage.Text, want)
	}
	status := mustCommand(t, e.m, s.ID, "status")
	for _, part := range []string{"session " + s.ID, "chat model: none configured", want, "engine: up 5m, sandbox on\n"} {
		if !strings.Contains(status.Text, part) {
			t.Errorf("/status lacks %q:\n%s", part, status.Text)
		}
	}
	if res := mustCommand(t, e.m, s.ID, "logs", "7"); res.Text != "last 7 lines" {
		t.Errorf("/logs 7: got %q", res.Text)
	}
	all := e.entries(t, audit.Filter{})
	res := mustCommand(t, e.m, s.ID, "audit", "2")
	lines := strings.Split(res.Text, "\n")
	if len(lines) != 2 {
		t.Fatalf("/audit 2: got %d lines: %q", len(lines), res.Text)
	}
	for i, en := range all[len(all)-2:] {
		if !strings.HasPrefix(lines[i], fmt.Sprintf("#%d %s %s", en.Seq, en.Time.UTC().Format("2006-01-02 15:04:05"), en.Type)) {
			t.Errorf("/audit line %d: got %q for entry %d %s", i, lines[i], en.Seq, en.Type)
		}
	}
	doc := mustCommand(t, e.m, s.ID, "doctor")
	rep := workspace.Doctor(ctx, e.root, e.m.opts.Doctor)
	if first, _, _ := strings.Cut(doc.Text, "\n"); first != fmt.Sprintf("doctor: %d ok, %d warnings, %d failed, %d skipped",
		rep.Count(workspace.StatusOK), rep.Count(workspace.StatusWarn), rep.Count(workspace.StatusFail), rep.Count(workspace.StatusSkip)) {
		t.Errorf("/doctor: got %q", first)
	}
}

func TestAuditLineHidesDetailMessages(t *testing.T) {
	e := audit.Entry{Seq: 7, Type: audit.ActionBlocked, Session: "s\x1b[31m", ActionType: "read_file", Decision: "BLOCK",
		Rule: "deny_keys", Reason: strings.Repeat("r", 300), Detail: audit.Detail{Code: "c", Message: "error text with details"}}
	got := auditLine(e)
	if strings.Contains(got, "error text") || strings.Contains(got, "\x1b") {
		t.Errorf("auditLine shows what it must not: %q", got)
	}
	if want := "#7 0001-01-01 00:00:00 ActionBlocked session=s action=read_file decision=BLOCK rule=deny_keys code=c \"" +
		strings.Repeat("r", maxReason-1) + "…\""; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestConcurrentAppends: appends from many goroutines all land, numbered
// without gaps (run with -race).
func TestConcurrentAppends(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	s := mustNew(t, e.m, false)
	o := mustNew(t, e.m, true)
	const workers, each = 4, 10
	errs := make(chan error, 2*workers*each)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range each {
				errs <- e.m.Append(ctx, s.ID, "user", fmt.Sprintf("w%d-%d", w, i))
				errs <- e.m.Append(ctx, o.ID, "user", fmt.Sprintf("w%d-%d", w, i))
				_, _ = e.m.List(ctx)
			}
		}()
	}
	for range workers {
		<-done
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{s.ID, o.ID} {
		h, err := e.m.History(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != workers*each {
			t.Errorf("%s: %d messages, want %d", id, len(h), workers*each)
		}
	}
}
