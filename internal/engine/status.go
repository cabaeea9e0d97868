package engine

import (
	"fmt"
	"strings"
	"time"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// FormatStatus is the engine's status as parallax status and /status
// print it; a sandbox that is off is said loudly.
func FormatStatus(root string, st *pb.StatusResponse, now time.Time) string {
	var b strings.Builder
	up := now.Sub(time.UnixMilli(st.GetStartedUnixMs())).Round(time.Second)
	fmt.Fprintf(&b, "engine     running, pid %d, up %v (workspace %s)\n", st.GetPid(), up, root)
	if st.GetSandbox() == "off" {
		b.WriteString("sandbox    OFF — the agent runs WITHOUT its kernel sandbox (agent.sandbox: off)\n")
	} else {
		fmt.Fprintf(&b, "sandbox    %s\n", st.GetSandbox())
	}
	agent := "restarting"
	if st.GetAgentPid() != 0 {
		agent = fmt.Sprintf("pid %d", st.GetAgentPid())
	}
	fmt.Fprintf(&b, "agent      %s, %d restarts\n", agent, st.GetAgentRestarts())
	fmt.Fprintf(&b, "sessions   %d (%d approvals pending)\n", st.GetSessions(), st.GetPendingApprovals())
	fmt.Fprintf(&b, "gate       %d allowed, %d blocked\n", st.GetAllowed(), st.GetBlocked())
	fmt.Fprintf(&b, "today      %d tokens in, %d out, $%.4f of $%.2f\n", st.GetInputTokensToday(), st.GetOutputTokensToday(),
		st.GetCostUsdToday(), st.GetDailyBudgetUsd())
	return b.String()
}
