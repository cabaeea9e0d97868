package store

import (
	"context"
	"testing"
	"time"
)

func TestUsage(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	steps := []struct {
		day, key string
		n, want  int64
		wantErr  bool
	}{
		{"2025-03-01", "judge_calls", 1, 1, false},
		{"2025-03-01", "judge_calls", 2, 3, false},
		{"2025-03-01", "judge_tokens", 1500, 1500, false},
		{"2025-03-02", "judge_calls", 1, 1, false},
		{"2025-03-01", "judge_calls", -1, 2, false},
		{"2025-02-30", "judge_calls", 1, 0, true},
		{"20250301", "judge_calls", 1, 0, true},
		{"2025-03-01", "", 1, 0, true},
	}
	for _, st := range steps {
		got, err := db.IncrementUsage(ctx, st.day, st.key, st.n)
		if (err != nil) != st.wantErr {
			t.Fatalf("%s %s: got err %v, want error %v", st.day, st.key, err, st.wantErr)
		}
		if got != st.want {
			t.Errorf("%s %s: got %v, want %v", st.day, st.key, got, st.want)
		}
	}
	for _, tc := range []struct {
		day, key string
		want     int64
	}{{"2025-03-01", "judge_calls", 2}, {"2025-03-02", "judge_calls", 1}, {"2025-03-03", "judge_calls", 0}} {
		got, err := db.Usage(ctx, tc.day, tc.key)
		if err != nil || got != tc.want {
			t.Errorf("Usage(%s, %s): got %v %v, want %v", tc.day, tc.key, got, err, tc.want)
		}
	}
	all, err := db.UsageDay(ctx, "2025-03-01")
	if err != nil || len(all) != 2 || all["judge_tokens"] != 1500 {
		t.Errorf("UsageDay: got %v %v", all, err)
	}
	if got := Day(time.Date(2025, 3, 1, 23, 30, 0, 0, time.FixedZone("x", -3600))); got != "2025-03-02" {
		t.Errorf("Day: got %v, want 2025-03-02 (UTC)", got)
	}
}
