package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestSessions(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if err := db.StartSession(ctx, "root", "", json.RawMessage(`{"agent":"claude"}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.StartSession(ctx, "child", "root", nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		id, parent string
		meta       string
		want       error
	}{
		{"idempotent", "child", "root", "", nil},
		{"re-parent", "child", "", "", ErrSessionParent},
		{"unknown parent", "orphan", "nobody", "", ErrNotFound},
		{"empty id", "", "", "", errAny},
		{"bad meta", "m", "", "{", errAny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := db.StartSession(ctx, tc.id, tc.parent, json.RawMessage(tc.meta))
			checkErr(t, err, tc.want)
		})
	}
	s, err := db.GetSession(ctx, "child")
	if err != nil {
		t.Fatal(err)
	}
	if s.Parent != "root" || s.StartedAt.IsZero() || !s.EndedAt.IsZero() || string(s.Meta) != "{}" {
		t.Errorf("got %+v", s)
	}
	if err := db.EndSession(ctx, "child"); err != nil {
		t.Fatal(err)
	}
	first, _ := db.GetSession(ctx, "child")
	if err := db.EndSession(ctx, "child"); err != nil {
		t.Fatal(err)
	}
	again, _ := db.GetSession(ctx, "child")
	if first.EndedAt.IsZero() || !again.EndedAt.Equal(first.EndedAt) {
		t.Errorf("end stamps: got %v then %v", first.EndedAt, again.EndedAt)
	}
	if err := db.EndSession(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
	if _, err := db.GetSession(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
	root, _ := db.GetSession(ctx, "root")
	if string(root.Meta) != `{"agent":"claude"}` {
		t.Errorf("meta: got %s", root.Meta)
	}
}

func TestTaintPropagatesToAncestors(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	for _, s := range [][2]string{{"root", ""}, {"mid", "root"}, {"leaf", "mid"}, {"sibling", "root"}} {
		if err := db.StartSession(ctx, s[0], s[1], nil); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		session string
		level   int
		source  string
	}{
		{"sibling", 1, "path:/w/notes.md"},
		{"leaf", 3, "path:/w/.env"},
		{"leaf", 2, "path:/w/.env"}, // lower again: stays 3
		{"mid", 2, "content:email"},
	}
	for _, st := range steps {
		if err := db.RaiseTaint(ctx, st.session, st.level, st.source); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		session string
		want    int
	}{{"leaf", 3}, {"mid", 3}, {"root", 3}, {"sibling", 1}, {"unknown", 0}} {
		got, err := db.MaxTaint(ctx, tc.session)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("MaxTaint(%s): got %v, want %v", tc.session, got, tc.want)
		}
	}
	ts, err := db.Taints(ctx, "root")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 || ts[0].Level != 3 || ts[0].Origin != "leaf" || ts[0].Source != "path:/w/.env" {
		t.Errorf("root taints: got %+v", ts)
	}
}

func TestRaiseTaintValidation(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		session string
		level   int
		source  string
		wantErr bool
	}{
		{"unknown session is created", "new", 4, "content:aws_access_key", false},
		{"level too high", "s", 5, "x", true},
		{"level negative", "s", -1, "x", true},
		{"empty source", "s", 1, "", true},
		{"empty session", "", 1, "x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := db.RaiseTaint(ctx, tc.session, tc.level, tc.source)
			if (err != nil) != tc.wantErr {
				t.Fatalf("got %v, want error %v", err, tc.wantErr)
			}
		})
	}
	if _, err := db.GetSession(ctx, "new"); err != nil {
		t.Errorf("session not created: %v", err)
	}
	if lvl, _ := db.MaxTaint(ctx, "new"); lvl != 4 {
		t.Errorf("got %v, want 4", lvl)
	}
	// The schema refuses what the method would (defense in depth).
	if _, err := db.w.ExecContext(ctx, "INSERT INTO session_taint VALUES ('new', 'new', 'x', 9, 0)"); err == nil {
		t.Error("schema accepted level 9")
	}
	if _, err := db.w.ExecContext(ctx, "INSERT INTO session_taint VALUES ('ghost', 'ghost', 'x', 1, 0)"); err == nil {
		t.Error("schema accepted taint of a missing session")
	}
}

// errAny stands for "some error" in tables.
var errAny = errors.New("any error")

func checkErr(t *testing.T, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("got %v, want nil", err)
	case want == errAny && err == nil: //nolint:errorlint // sentinel comparison
		t.Fatal("got nil, want an error")
	case want != nil && want != errAny && !errors.Is(err, want): //nolint:errorlint // sentinel comparison
		t.Fatalf("got %v, want %v", err, want)
	}
}
