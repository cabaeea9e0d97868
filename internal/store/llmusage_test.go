package store

import (
	"context"
	"testing"
)

func TestLLMUsage(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	adds := []struct {
		u       LLMUsage
		wantErr bool
	}{
		{LLMUsage{Day: "2026-11-26", Session: "a", Model: "m1", Calls: 1, InputTokens: 100, OutputTokens: 10, CostMicroUSD: 450}, false},
		{LLMUsage{Day: "2026-11-26", Session: "a", Model: "m1", Calls: 1, InputTokens: 50, OutputTokens: 5, CostMicroUSD: 225}, false},
		{LLMUsage{Day: "2026-11-26", Session: "a", Model: "m2", Calls: 1, InputTokens: 7, OutputTokens: 3}, false},
		{LLMUsage{Day: "2026-11-26", Session: "b", Model: "m1", Calls: 2, InputTokens: 1, OutputTokens: 1, CostMicroUSD: 1000}, false},
		{LLMUsage{Day: "2026-11-27", Session: "a", Model: "m1", Calls: 1, CostMicroUSD: 5}, false},
		{LLMUsage{Day: "2026-11-31", Session: "a", Model: "m1", Calls: 1}, true},
		{LLMUsage{Day: "2026-11-26", Session: "a", Model: "", Calls: 1}, true},
		{LLMUsage{Day: "2026-11-26", Session: "a", Model: "m1", Calls: 1, CostMicroUSD: -1}, true},
	}
	for i, a := range adds {
		if err := db.AddLLMUsage(ctx, a.u); (err != nil) != a.wantErr {
			t.Fatalf("add %d: got err %v, want error %v", i, err, a.wantErr)
		}
	}
	cases := []struct {
		day, session              string
		calls, in, out, costMicro int64
	}{
		{"2026-11-26", "a", 3, 157, 18, 675},
		{"2026-11-26", "b", 2, 1, 1, 1000},
		{"2026-11-26", "", 5, 158, 19, 1675},
		{"2026-11-27", "", 1, 0, 0, 5},
		{"2026-11-28", "a", 0, 0, 0, 0},
	}
	for _, c := range cases {
		got, err := db.LLMTotals(ctx, c.day, c.session)
		if err != nil {
			t.Fatal(err)
		}
		if got.Calls != c.calls || got.InputTokens != c.in || got.OutputTokens != c.out || got.CostMicroUSD != c.costMicro {
			t.Errorf("%s %q: got %+v, want calls %d in %d out %d cost %d", c.day, c.session, got, c.calls, c.in, c.out, c.costMicro)
		}
	}
}
