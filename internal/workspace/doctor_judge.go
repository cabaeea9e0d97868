package workspace

import (
	"errors"

	"github.com/parallax/parallax/llm"
)

// checkJudge reports tier 2: whether a model judges escalations, and
// whether it is a different model from the agent's (a model judging its
// own proposals shares their blind spots).
func (d *doctor) checkJudge() Check {
	if d.cfg == nil {
		return skip("config.yaml does not load")
	}
	lc := d.cfg.LLM
	if lc == nil {
		return warn("no judge: what the deterministic tiers escalate goes to a human (or is blocked)",
			"add an llm: block with a shield role to config.yaml to decide escalations with a model")
	}
	pool, err := llm.NewPool(*lc, llm.Options{})
	if err != nil {
		return failc("the model pool does not load: "+err.Error(), "fix the llm: block of config.yaml")
	}
	judgeRef, err := pool.Assigned(llm.RoleShield)
	if errors.Is(err, llm.ErrNoModel) {
		return warn("the model pool has no shield role: escalations are not judged by a model",
			"set llm.roles.shield to a model of the pool")
	}
	if err != nil {
		return failc("the shield role: "+err.Error(), "fix llm.roles.shield in config.yaml")
	}
	if chatRef, err := pool.Assigned(llm.RoleChat); err == nil && chatRef.SameModel(judgeRef) {
		return warn("the judge ("+judgeRef.Model+") is the agent's own model: it shares the agent's blind spots",
			"assign llm.roles.shield to a different model than llm.roles.chat (cross-model evaluation)")
	}
	return ok("judge " + string(judgeRef.Provider) + "/" + judgeRef.Model)
}
