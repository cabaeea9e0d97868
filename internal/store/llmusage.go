package store

import (
	"context"
	"database/sql"
	"fmt"
)

// LLMUsage is what LLM calls brokered for an agent consumed: one row per
// day, session and model (the pool entry), summed.
type LLMUsage struct {
	Day          string // "2006-01-02", see Day
	Session      string
	Model        string
	Calls        int64
	InputTokens  int64
	OutputTokens int64
	// CostMicroUSD is the cost in millionths of a US dollar.
	CostMicroUSD int64
}

// AddLLMUsage adds u to its day, session and model. Counts must not be
// negative.
func (db *DB) AddLLMUsage(ctx context.Context, u LLMUsage) error {
	what := "add llm usage " + u.Day + " " + u.Model
	switch {
	case !validDay(u.Day):
		return fmt.Errorf("%s: day %q is not YYYY-MM-DD", what, u.Day)
	case u.Model == "":
		return fmt.Errorf("%s: empty model", what)
	case u.Calls < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || u.CostMicroUSD < 0:
		return fmt.Errorf("%s: negative count", what)
	}
	return db.write(ctx, what, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO llm_usage
(day, session, model, calls, input_tokens, output_tokens, cost_micro_usd) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (day, session, model) DO UPDATE SET calls = calls + excluded.calls,
input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
cost_micro_usd = cost_micro_usd + excluded.cost_micro_usd`,
			u.Day, u.Session, u.Model, u.Calls, u.InputTokens, u.OutputTokens, u.CostMicroUSD)
		return err
	})
}

// LLMTotals sums the usage of day over every model: of one session, or
// of every session when session is "". Model is empty in the result.
func (db *DB) LLMTotals(ctx context.Context, day, session string) (LLMUsage, error) {
	q := `SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
COALESCE(SUM(cost_micro_usd), 0) FROM llm_usage WHERE day = ?`
	args := []any{day}
	if session != "" {
		q += " AND session = ?"
		args = append(args, session)
	}
	u := LLMUsage{Day: day, Session: session}
	if err := db.r.QueryRowContext(ctx, q, args...).Scan(&u.Calls, &u.InputTokens, &u.OutputTokens, &u.CostMicroUSD); err != nil {
		return LLMUsage{}, fmt.Errorf("read llm usage of %s: %w", day, err)
	}
	return u, nil
}
