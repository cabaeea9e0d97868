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
