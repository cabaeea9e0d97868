package sessions

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/internal/workspace"
)

func TestOpenRefusesMissingParts(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	ids := func() string { return "x" }
	cases := []struct {
		name string
		opts Options
	}{
		{"relative workspace", Options{Workspace: "rel", IDs: ids, Audit: e.ws.Audit}},
		{"no ids", Options{Workspace: e.root, Audit: e.ws.Audit}},
		{"no audit", Options{Workspace: e.root, IDs: ids}},
		{"negative title after", Options{Workspace: e.root, IDs: ids, Audit: e.ws.Audit, TitleAfter: -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Open(ctx, e.ws.DB, tc.opts); err == nil {
				t.Errorf("got nil, want an error")
			}
		})
	}
	if _, err := Open(ctx, nil, Options{Workspace: e.root, IDs: ids, Audit: e.ws.Audit}); err == nil {
		t.Error("nil database accepted")
	}
}

func TestSessionMessagesAndTitles(t *testing.T) {
	var transcripts []string
	var mu sync.Mutex
	titler := func(_ context.Context, tr string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		transcripts = append(transcripts, tr)
		return "  \"Fix the \x1b[31mbuild\x1b[0m\u202e\nof parallax\"  ", nil
	}
	e := newEnv(t, func(o *Options) { o.Titler = titler })
	ctx := context.Background()
	s := mustNew(t, e.m, false)
	mustAppend(t, e.m, s.ID, "please fix the failing build of the project today, it is red", "on it")
	info, err := e.m.Get(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "please fix the failing build of the project"; info.Title != want || info.Messages != 2 {
		t.Errorf("after one exchange: got %q %d, want %q 2", info.Title, info.Messages, want)
	}
	mustAppend(t, e.m, s.ID, "second", "ok", "third", "done", "fourth", "sure")
	info, _ = e.m.Get(ctx, s.ID)
	if want := "Fix the build of parallax"; info.Title != want {
		t.Errorf("titled: got %q, want %q", info.Title, want)
	}
	if len(transcripts) != 1 {
		t.Fatalf("titler asked %d times, want once", len(transcripts))
	}
	if want := "user: please fix the failing build of the project today, it is red\nassistant: on it\nuser: second\nassistant: ok\nuser: third\nassistant: done\n"; transcripts[0] != want {
		t.Errorf("transcript: got %q, want %q", transcripts[0], want)
	}
	mustCommand(t, e.m, s.ID, "title", "My", "own")
	mustAppend(t, e.m, s.ID, "fifth", "yes")
	if info, _ = e.m.Get(ctx, s.ID); info.Title != "My own" {
		t.Errorf("user title: got %q, want %q", info.Title, "My own")
	}
	hist, err := e.m.History(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range hist {
		got = append(got, m.Role+":"+m.Text)
	}
	want := []string{"user:please fix the failing build of the project today, it is red", "assistant:on it",
		"user:second", "assistant:ok", "user:third", "assistant:done", "user:fourth", "assistant:sure", "user:fifth", "assistant:yes"}
	if !slices.Equal(got, want) {
		t.Errorf("history: got %q, want %q", got, want)
	}
	for _, bad := range []struct{ id, role, text string }{
		{s.ID, "robot", "x"}, {"no-such", "user", "x"}, {s.ID, "user", strings.Repeat("x", 1<<20+1)},
	} {
		if err := e.m.Append(ctx, bad.id, bad.role, bad.text); err == nil {
			t.Errorf("append %s %s accepted", bad.id, bad.role)
		}
	}
	if _, err := e.m.History(ctx, "no-such"); !errors.Is(err, ErrNotFound) {
		t.Errorf("history of an unknown session: got %v, want ErrNotFound", err)
	}
}

func TestTitles(t *testing.T) {
	cases := []struct {
		name     string
		titler   func(context.Context, string) (string, error)
		wantTitl string
	}{
		{"no titler keeps the first words", nil, "a b c d e f g h"},
		{"failing titler keeps the first words", func(context.Context, string) (string, error) {
			return "", errors.New("model down")
		}, "a b c d e f g h"},
		{"empty answer keeps the first words", func(context.Context, string) (string, error) { return "\x00\x1b[2J  ", nil }, "a b c d e f g h"},
		{"long answer is bounded", func(context.Context, string) (string, error) { return strings.Repeat("é", 200), nil },
			strings.Repeat("é", MaxTitle-1) + "…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(o *Options) { o.Titler = tc.titler; o.TitleAfter = 2 })
			s := mustNew(t, e.m, false)
			mustAppend(t, e.m, s.ID, "a b c d e f g h i j", "r1", "q2", "r2", "q3", "r3")
			info, err := e.m.Get(context.Background(), s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if info.Title != tc.wantTitl {
				t.Errorf("got %q, want %q", info.Title, tc.wantTitl)
			}
		})
	}
}

func TestCleanTitle(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Plain", "Plain"},
		{"Title: \"Quoted\"", "Quoted"},
		{"tab\tand\nnewline", "tab and newline"},
		{"osc \x1b]0;evil\x07title", "osc title"},
		{"bidi \u202eevil\u202c end", "bidi evil end"},
		{"bad \xff utf8", "bad utf8"},
		{"\x1b[", ""},
	}
	for _, tc := range cases {
		if got := cleanTitle(tc.in); got != tc.want {
			t.Errorf("cleanTitle(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestListAndSearch(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a := mustNew(t, e.m, false)
	mustAppend(t, e.m, a.ID, "deploy the kubernetes cluster", "done")
	b := mustNew(t, e.m, false)
	mustAppend(t, e.m, b.ID, "write the weekly report", "ok")
	o := mustNew(t, e.m, true)
	mustAppend(t, e.m, o.ID, "secret kubernetes musings")
	ids := func(list []Info) []string {
		var out []string
		for _, i := range list {
			out = append(out, i.ID)
		}
		return out
	}
	list, err := e.m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(list), []string{o.ID, b.ID, a.ID}; !slices.Equal(got, want) {
		t.Errorf("list: got %v, want %v", got, want)
	}
	if !list[0].OTR || list[1].OTR {
		t.Errorf("OTR marks: got %v %v, want true false", list[0].OTR, list[1].OTR)
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"KUBERNETES", []string{o.ID, a.ID}},
		{"weekly", []string{b.ID}},
		{"nothing like it", nil},
	}
	for _, tc := range cases {
		got, err := e.m.Search(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("search %q: got %v, want %v", tc.q, ids(got), tc.want)
		}
	}
	for _, bad := range []string{"", "   ", strings.Repeat("q", MaxQuery+1)} {
		if _, err := e.m.Search(ctx, bad); err == nil {
			t.Errorf("search %q accepted", bad[:min(len(bad), 10)])
		}
	}
}

// TestOTRLeavesNothingOnDisk runs an off-the-record exchange with every
// command that touches it, then reads every file of the workspace: the
// message text and the title are nowhere, the id only in the audit chain
// (SessionStarted and SessionEnded, by decision).
func TestOTRLeavesNothingOnDisk(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Titler = func(context.Context, string) (string, error) { return "TITLE-FROM-MODEL-7", nil }
		o.TitleAfter = 1
	})
	ctx := context.Background()
	normal := mustNew(t, e.m, false)
	const control = "control-text-5521" // stored: proves the scan sees what the database wrote
	mustAppend(t, e.m, normal.ID, control)
	res := mustCommand(t, e.m, normal.ID, "otr")
	if !res.OTR || res.Switch == "" {
		t.Fatalf("/otr: got %+v, want OTR and a session to switch to", res)
	}
	id := res.Switch
	const secret, userTitle = "zebra-quartz-4471 private musing", "OTR-TITLE-9123"
	mustAppend(t, e.m, id, secret, "reply about zebra-quartz-4471")
	turn, err := e.m.StartTurn(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.m.NoteSnapshot(ctx, id, turn, 1); err != nil {
		t.Fatal(err)
	}
	mustCommand(t, e.m, id, "title", userTitle)
	for _, c := range [][]string{{"history"}, {"sessions"}, {"sessions", "zebra"}, {"status"}, {"usage"}} {
		if res := mustCommand(t, e.m, id, c[0], c[1:]...); !res.OTR {
			t.Errorf("/%s: the result does not mark the session off the record", c[0])
		}
	}
	if _, err := e.m.Command(ctx, id, "export", nil); err == nil {
		t.Error("/export of an OTR session was accepted")
	}
	back := mustCommand(t, e.m, id, "switch", normal.ID)
	if back.OTR || back.Switch != normal.ID {
		t.Errorf("switch back: got %+v", back)
	}
	if _, err := e.m.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("the OTR session outlived leaving it: %v", err)
	}
	auditPath := audit.DefaultPath(e.root)
	sawControl := false
	err = filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, needle := range []string{"zebra-quartz-4471", userTitle, "TITLE-FROM-MODEL-7"} {
			if bytes.Contains(data, []byte(needle)) {
				t.Errorf("%s holds %q", p, needle)
			}
		}
		sawControl = sawControl || bytes.Contains(data, []byte(control))
		if p != auditPath && bytes.Contains(data, []byte(id)) {
			t.Errorf("%s holds the OTR session id", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sawControl {
		t.Error("the stored session's message is in no file: the scan does not see the database")
	}
	var codes []string
	for _, en := range e.entries(t, audit.Filter{Session: id}) {
		codes = append(codes, string(en.Type)+":"+en.Detail.Code)
	}
	if want := []string{"SessionStarted:otr_session_started", "SessionEnded:otr_session_ended"}; !slices.Equal(codes, want) {
		t.Errorf("audit of the OTR session: got %v, want %v", codes, want)
	}
	e.verifyChain(t)
}

// TestPastedSecretIsMaskedBeforeItIsKept: a key pasted into a message is
// masked before the message is stored, titles the session or is listed,
// in a stored and in an off-the-record session.
func TestPastedSecretIsMaskedBeforeItIsKept(t *testing.T) {
	const key = "ghp_cjiUJgE2cEUY1wDGXLJkCOhVBD3UuNDnK1P9"
	red := e2eRedactor(t)
	for _, otr := range []bool{false, true} {
		e := newEnv(t, func(o *Options) { o.Redactor = red })
		s := mustNew(t, e.m, otr)
		mustAppend(t, e.m, s.ID, key+" is my token, use it for the API", "I will not use a pasted token.")
		hist, err := e.m.History(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		info, err := e.m.Get(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		list := mustCommand(t, e.m, s.ID, "sessions").Text + mustCommand(t, e.m, s.ID, "history").Text
		all := info.Title + list
		for _, m := range hist {
			all += m.Text
		}
		if strings.Contains(all, key) || !strings.Contains(hist[0].Text, "[REDACTED:github_token]") {
			t.Errorf("otr=%v: the token is kept or shown in clear: title %q, history %+v, listings %q", otr, info.Title, hist, list)
		}
		if !otr {
			for _, f := range []string{workspace.DBPath(e.root), workspace.DBPath(e.root) + "-wal"} {
				if raw, _ := os.ReadFile(f); strings.Contains(string(raw), key) {
					t.Errorf("%s holds the token", f)
				}
			}
		}
	}
}

// e2eRedactor is the workspace's own redactor.
func e2eRedactor(t *testing.T) audit.Redactor {
	t.Helper()
	d, err := dlp.New()
	if err != nil {
		t.Fatal(err)
	}
	return audit.RedactFunc(func(s string) string { out, _ := d.Redact(s); return out })
}
