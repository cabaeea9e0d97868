package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/llm"
)

// A budget is spent when the spend reaches it, not only when it passes
// it: at exactly the budget, the next call is refused before the
// provider sees it.
func TestBrokerCannotSpendPastABudgetReachedExactly(t *testing.T) {
	cases := []struct {
		name           string
		daily, session float64
		calls          []string
		want           []bool
	}{
		// $0.0045 a call: two calls spend exactly $0.009.
		{"daily", 0.009, 0, []string{"a", "b", "a"}, []bool{true, true, false}},
		{"session", 1, 0.0045, []string{"a", "a", "b"}, []bool{true, false, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var turns []llm.FakeTurn
			for range c.calls {
				turns = append(turns, costly("ok"))
			}
			b, fake, _ := newBroker(t, BrokerConfig{DailyBudgetUSD: c.daily, SessionBudgetUSD: c.session}, turns...)
			served := 0
			for i, s := range c.calls {
				_, err := b.Complete(context.Background(), s, llm.RoleChat, ask("go"))
				var ref *RefusalError
				switch {
				case c.want[i] && err != nil:
					t.Fatalf("call %d (%s): got %v, want served", i, s, err)
				case !c.want[i] && (!errors.As(err, &ref) || ref.Rule != RuleBudgetExceeded):
					t.Fatalf("call %d (%s): got %v, want %s", i, s, err, RuleBudgetExceeded)
				}
				if c.want[i] {
					served++
				}
			}
			if got := len(fake.Calls()); got != served {
				t.Errorf("provider calls: got %d, want %d", got, served)
			}
		})
	}
}

// unreadableUsage is a usage store whose totals cannot be read (all
// sessions' when session is "", else that one's).
type unreadableUsage struct {
	UsageStore
	session string
}

func (u unreadableUsage) LLMTotals(ctx context.Context, day, session string) (store.LLMUsage, error) {
	if session == u.session {
		return store.LLMUsage{}, errors.New("database is locked")
	}
	return u.UsageStore.LLMTotals(ctx, day, session)
}

// A usage store that cannot be read refuses the call: the budget cannot
// be checked, so nothing reaches the provider; the refusal is audited.
func TestBrokerCannotCallWithUnreadableUsage(t *testing.T) {
	for _, unreadable := range []string{"", "s1"} {
		t.Run("totals of "+map[string]string{"": "all sessions", "s1": "the session"}[unreadable], func(t *testing.T) {
			e := newEnv(t, envOptions{})
			fake := llm.NewFake(costly("ok"))
			b, err := NewBroker(BrokerConfig{
				Models:         fixedModels{fake, llm.ModelRef{Name: "main", Provider: llm.ProviderAnthropic, Model: "claude-sonnet-4-5"}},
				Usage:          unreadableUsage{UsageStore: e.ws.DB, session: unreadable},
				Audit:          e.ws.Audit,
				Now:            func() time.Time { return brokerDay },
				DailyBudgetUSD: 1, SessionBudgetUSD: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Complete(context.Background(), "s1", llm.RoleChat, ask("go"))
			var ref *RefusalError
			if !errors.As(err, &ref) || ref.Rule != RuleUsageError {
				t.Fatalf("got %v, want %s", err, RuleUsageError)
			}
			if got := len(fake.Calls()); got != 0 {
				t.Errorf("provider calls: got %d, want 0", got)
			}
			var audited bool
			for _, en := range e.entries() {
				audited = audited || en.Type == audit.LLMUsage && en.Rule == RuleUsageError
			}
			if !audited {
				t.Errorf("no LLMUsage %s entry", RuleUsageError)
			}
		})
	}
}
