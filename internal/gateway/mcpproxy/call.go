package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of the proxy's own decisions. They are a public contract
// (audit entries and the reasons the agent reads carry them).
const (
	RuleToolHeld            = "mcp_tool_held"
	RuleBadArguments        = "mcp_bad_arguments"
	RuleApprovalUnavailable = approval.CodeUnavailable
	RuleTrustedTool         = "mcp_trusted_tool"
	RuleResultWithheld      = "mcp_result_withheld"
	RuleObserveError        = "mcp_observe_error"
	RuleServerError         = "mcp_server_error"
)

// call gates one tools/call and forwards it when it passes.
func (p *Proxy) call(ctx context.Context, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	st, ok := p.state(name)
	if ok && st.held {
		// An approval may have landed since: re-check before refusing.
		_ = p.sync(ctx)
		st, ok = p.state(name)
	}
	if !ok || st.held {
		reason := "tool " + name + " is not served"
		if ok {
			reason = st.reason
		}
		return p.refuse(ctx, name, "", verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageGuard,
			Rule: RuleToolHeld, Reason: reason}), nil
	}
	var args json.RawMessage
	if req != nil && req.Params != nil {
		args = req.Params.Arguments
	}
	if b := bytes.TrimSpace(args); len(b) == 0 || bytes.Equal(b, []byte("null")) {
		args = json.RawMessage("{}") // what is forwarded is what was judged
	}
	mapped, err := Map(name, args, p.mapEnv())
	if err != nil {
		return p.refuse(ctx, name, "", verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageDecode,
			Rule: RuleBadArguments, Reason: err.Error()}), nil
	}
	if v := p.judge(ctx, name, mapped); v.Decision != verdict.Allow {
		return blocked(v), nil
	}
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Meta: progressMeta(req), Name: name, Arguments: args})
	if err != nil {
		// The message may carry what the server read: masked, and as a
		// tool error the agent can read.
		v := verdict.Verdict{Decision: verdict.Block, Rule: RuleServerError,
			Reason: "the MCP server failed the call: " + redactErr(p.dlp, err)}
		return blocked(v), nil
	}
	return p.screen(ctx, name, mapped, res), nil
}

// mapEnv is the mapping environment of this proxy.
func (p *Proxy) mapEnv() MapEnv {
	return MapEnv{Server: p.cfg.ServerID, Dir: p.cfg.Dir, Workspace: p.cfg.Workspace,
		Sensitive: func(s string) bool { return len(p.dlp.Scan(s).Findings) > 0 }}
}

// judge runs the mapped requests through the gate. The worse verdict
// wins; an escalation goes to the approver.
func (p *Proxy) judge(ctx context.Context, name string, m Mapped) verdict.Verdict {
	reqs := []shield.Request{m.Primary}
	if m.Extra != nil {
		reqs = append(reqs, *m.Extra)
	}
	var escalated *verdict.Verdict
	var escalatedReq shield.Request
	for _, r := range reqs {
		r.Session = p.cfg.Session
		v := p.cfg.Gate.Evaluate(ctx, r)
		switch v.Decision {
		case verdict.Allow:
		case verdict.Escalate:
			if escalated == nil {
				escalated, escalatedReq = &v, r
			}
		default:
			return v
		}
	}
	if escalated == nil {
		return verdict.Verdict{Decision: verdict.Allow}
	}
	return p.approve(ctx, name, escalatedReq, *escalated)
}

// refuse audits a BLOCK the proxy decided itself (the gate audits its
// own) and returns it as a tool error.
func (p *Proxy) refuse(ctx context.Context, name, actionType string, v verdict.Verdict) *mcp.CallToolResult {
	e := audit.FromVerdict(audit.ActionBlocked, p.cfg.Session, actionType, v)
	e.Detail = audit.Detail{Ref: p.cfg.ServerID, Message: "tool " + name}
	if err := p.appendAudit(ctx, e); err != nil {
		p.log.Error("mcp proxy: audit", "rule", v.Rule, "error", err)
	}
	return blocked(v)
}

// blocked is the tool error the agent reads for a refused call: the
// decision, the rule and the reason, so it can adapt.
func blocked(v verdict.Verdict) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString("Blocked by Parallax")
	if v.Rule != "" {
		b.WriteString(" (" + v.Rule + ")")
	}
	b.WriteString(": ")
	b.WriteString(v.Reason)
	if v.Decision == verdict.Escalate {
		b.WriteString(" [needs approval]")
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}
