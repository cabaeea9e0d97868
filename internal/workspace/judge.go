package workspace

import (
	"errors"
	"fmt"

	"github.com/parallax/parallax/judge"
	"github.com/parallax/parallax/llm"
)

// newJudge builds tier 2 from the workspace's model pool: the model of
// the shield role, the workspace's canary, the daily budget counted in
// the database (so it survives restarts and is shared by hook processes)
// and the audit chain. No shield role: no judge. The supervisor of
// sensitive data access is the same machinery with its own profile and
// budget counter.
func newJudge(w *Workspace) (*judge.Judge, error) {
	return newJudgeProfile(w, judge.JudgeProfile())
}

func newJudgeProfile(w *Workspace, prof judge.Profile) (*judge.Judge, error) {
	lc := w.Config.LLM
	if lc == nil {
		return nil, nil
	}
	pool, err := llm.NewPool(*lc, llm.Options{})
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	p, ref, err := pool.ForRole(llm.RoleShield)
	if errors.Is(err, llm.ErrNoModel) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("judge model: %w", err)
	}
	canary, err := ReadToken(CanaryPath(w.Root))
	if err != nil {
		return nil, fmt.Errorf("judge canary: %w", err)
	}
	cfg := judge.Config{Model: judge.FromLLM(p, ref), Canary: canary, Usage: w.DB, Audit: w.Audit, Profile: prof}
	if jc := w.Config.Judge; jc != nil {
		cfg.DailyBudget, cfg.SessionPerMinute = jc.DailyBudget, jc.SessionPerMinute
	}
	return judge.New(cfg)
}
