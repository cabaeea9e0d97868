package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestConversationMessages(t *testing.T) {
	db, clk := openTest(t)
	ctx := context.Background()
	if err := db.CreateConversation(ctx, "c1", clk.Now()); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateConversation(ctx, "c1", clk.Now()); err == nil {
		t.Error("a conversation id was reused")
	}
	appends := []struct {
		id, role, text string
		wantErr        error // nil: success; errAny: some error
	}{
		{"c1", "user", "hello there", nil},
		{"c1", "assistant", "hi", nil},
		{"c1", "user", "second", nil},
		{"c1", "robot", "x", errAny},
		{"c1", "user", strings.Repeat("x", MaxMessageBytes+1), errAny},
		{"nope", "user", "x", ErrNotFound},
	}
	for i, a := range appends {
		_, err := db.AppendMessage(ctx, a.id, a.role, a.text, clk.Now())
		switch {
		case a.wantErr == nil && err != nil:
			t.Errorf("append %d: %v", i, err)
		case a.wantErr == errAny && err == nil:
			t.Errorf("append %d: got nil, want an error", i)
		case a.wantErr != nil && a.wantErr != errAny && !errors.Is(err, a.wantErr):
			t.Errorf("append %d: got %v, want %v", i, err, a.wantErr)
		}
	}
	c, err := db.GetConversation(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Messages != 3 || c.UserTurns != 2 {
		t.Errorf("counts: got %d messages %d user, want 3 and 2", c.Messages, c.UserTurns)
	}
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, []string{"hello there", "hi", "second"}},
		{2, []string{"hi", "second"}},
	} {
		msgs, err := db.Messages(ctx, "c1", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			got = append(got, m.Text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("limit %d: got %q, want %q", tc.limit, got, tc.want)
		}
	}
	n, err := db.DeleteConversation(ctx, "c1")
	if err != nil || n != 3 {
		t.Fatalf("delete: got %d, %v; want 3, nil", n, err)
	}
	if _, err := db.GetConversation(ctx, "c1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: got %v, want ErrNotFound", err)
	}
	if msgs, err := db.Messages(ctx, "c1", 0); err != nil || len(msgs) != 0 {
		t.Errorf("messages after delete: got %d, %v", len(msgs), err)
	}
	if _, err := db.DeleteConversation(ctx, "c1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: got %v, want ErrNotFound", err)
	}
}

func TestConversationTitlePrecedence(t *testing.T) {
	db, clk := openTest(t)
	ctx := context.Background()
	if err := db.CreateConversation(ctx, "c", clk.Now()); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		title, source string
		wantSet       bool
		wantTitle     string
	}{
		{"first words", TitleFirst, true, "first words"},
		{"model title", TitleModel, true, "model title"},
		{"first again", TitleFirst, false, "model title"},
		{"mine", TitleUser, true, "mine"},
		{"model again", TitleModel, false, "mine"},
		{"mine too", TitleUser, true, "mine too"},
	}
	for _, s := range steps {
		set, err := db.SetConversationTitle(ctx, "c", s.title, s.source)
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.GetConversation(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if set != s.wantSet || c.Title != s.wantTitle {
			t.Errorf("%s %q: got set %v title %q, want %v %q", s.source, s.title, set, c.Title, s.wantSet, s.wantTitle)
		}
	}
	if _, err := db.SetConversationTitle(ctx, "c", "x", "robot"); err == nil {
		t.Error("unknown title source accepted")
	}
	if _, err := db.SetConversationTitle(ctx, "gone", "x", TitleUser); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown conversation: got %v, want ErrNotFound", err)
	}
}

func TestSearchConversations(t *testing.T) {
	db, clk := openTest(t)
	ctx := context.Background()
	data := map[string][]string{
		"a": {"deploy the Kubernetes cluster"},
		"b": {"100% sure", "under_score"},
		"c": {"nothing here"},
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := db.CreateConversation(ctx, id, clk.Now()); err != nil {
			t.Fatal(err)
		}
		for _, m := range data[id] {
			if _, err := db.AppendMessage(ctx, id, "user", m, clk.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.SetConversationTitle(ctx, "c", "Weekly report", TitleUser); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"kubernetes", []string{"a"}},
		{"%", []string{"b"}},
		{"_", []string{"b"}},
		{"weekly", []string{"c"}},
		{"e", []string{"c", "b", "a"}},
		{"absent", nil},
	}
	for _, tc := range cases {
		got, err := db.SearchConversations(ctx, tc.q, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.q, ids, tc.want)
		}
	}
	if got, _ := db.SearchConversations(ctx, "e", 2); len(got) != 2 {
		t.Errorf("limit 2: got %d results", len(got))
	}
	if _, err := db.SearchConversations(ctx, "", 2); err == nil {
		t.Error("empty query accepted")
	}
}

func TestTurnSnapshots(t *testing.T) {
	db, clk := openTest(t)
	ctx := context.Background()
	if err := db.CreateConversation(ctx, "c", clk.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.LastUndoableTurn(ctx, "c"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no turns: got %v, want ErrNotFound", err)
	}
	for i, snaps := range [][]int64{{3, 1}, {}, {7}} {
		turn := fmt.Sprintf("t%d", i)
		if err := db.StartConversationTurn(ctx, "c", turn, clk.Now()); err != nil {
			t.Fatal(err)
		}
		for _, s := range snaps {
			if err := db.AddTurnSnapshot(ctx, "c", turn, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.AddTurnSnapshot(ctx, "c", "t9", 5); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown turn: got %v, want ErrNotFound", err)
	}
	if err := db.AddTurnSnapshot(ctx, "c", "t0", 0); err == nil {
		t.Error("snapshot 0 accepted")
	}
	if err := db.StartConversationTurn(ctx, "c", "t0", clk.Now()); err == nil {
		t.Error("a turn id was reused")
	}
	want := []struct {
		turn  string
		snaps []int64
	}{{"t2", []int64{7}}, {"t0", []int64{1, 3}}}
	for _, w := range want {
		got, err := db.LastUndoableTurn(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != w.turn || !slices.Equal(got.Snapshots, w.snaps) {
			t.Errorf("got %s %v, want %s %v", got.ID, got.Snapshots, w.turn, w.snaps)
		}
		if err := db.MarkTurnUndone(ctx, "c", got.ID, clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.LastUndoableTurn(ctx, "c"); !errors.Is(err, ErrNotFound) {
		t.Errorf("all undone: got %v, want ErrNotFound", err)
	}
	if err := db.MarkTurnUndone(ctx, "c", "t0", clk.Now()); !errors.Is(err, ErrNotFound) {
		t.Errorf("undone twice: got %v, want ErrNotFound", err)
	}
}

// TestTurnEffects: what a turn did that no snapshot covers is kept with
// the turn, once each, bounded; a turn with only such effects is the one
// /undo goes back over; deleting the conversation deletes them.
func TestTurnEffects(t *testing.T) {
	db, clk := openTest(t)
	ctx := context.Background()
	if err := db.CreateConversation(ctx, "c", clk.Now()); err != nil {
		t.Fatal(err)
	}
	for _, turn := range []string{"t0", "t1"} {
		if err := db.StartConversationTurn(ctx, "c", turn, clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddTurnSnapshot(ctx, "c", "t0", 4); err != nil {
		t.Fatal(err)
	}
	push := TurnEffect{EffectNetwork, "127.0.0.1:9418"}
	wrote := TurnEffect{EffectWrite, "/home/u/.config/x/settings"}
	for range 2 {
		if err := db.AddTurnEffects(ctx, "c", "t1", []TurnEffect{push, wrote}); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []TurnEffect{{"exec", "x"}, {EffectWrite, ""}, {EffectWrite, strings.Repeat("a", MaxEffectSubject+1)}} {
		if err := db.AddTurnEffects(ctx, "c", "t1", []TurnEffect{bad}); err == nil {
			t.Errorf("effect %q %.20q accepted", bad.Kind, bad.Subject)
		}
	}
	if err := db.AddTurnEffects(ctx, "c", "t9", []TurnEffect{push}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown turn: got %v, want ErrNotFound", err)
	}
	got, err := db.LastUndoableTurn(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "t1" || len(got.Snapshots) != 0 || !slices.Equal(got.Effects, []TurnEffect{push, wrote}) {
		t.Fatalf("got %+v, want t1 without snapshots, with [%v %v]", got, push, wrote)
	}
	var many []TurnEffect
	for i := range MaxTurnEffects + 10 {
		many = append(many, TurnEffect{EffectWrite, fmt.Sprintf("/out/%03d", i)})
	}
	if err := db.AddTurnEffects(ctx, "c", "t0", many); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkTurnUndone(ctx, "c", "t1", clk.Now()); err != nil {
		t.Fatal(err)
	}
	if got, err = db.LastUndoableTurn(ctx, "c"); err != nil || got.ID != "t0" || len(got.Effects) != MaxTurnEffects {
		t.Fatalf("got %s with %d effects (%v), want t0 with %d", got.ID, len(got.Effects), err, MaxTurnEffects)
	}
	if _, err := db.DeleteConversation(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM turn_effects").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d effects survived their conversation (%v)", n, err)
	}
}
