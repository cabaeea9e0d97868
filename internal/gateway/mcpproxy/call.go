package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		rule := RuleBadArguments
		var perr *PathError
		if errors.As(err, &perr) {
			rule = RuleRelativePath
		}
		return p.refuse(ctx, name, "", verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageDecode,
			Rule: rule, Reason: err.Error()}), nil
	}
	if v := p.judge(ctx, name, st, mapped, args); v.Decision != verdict.Allow {
		return blocked(v), nil
	}
	if _, v := p.snapshot(ctx, name, mapped); v != nil {
		return blocked(*v), nil
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
	return MapEnv{Server: p.cfg.ServerID, Dir: p.cfg.Dir, Workspace: p.cfg.Workspace, Roots: p.cfg.Roots, Home: p.cfg.ServerHome,
		Sensitive: func(s string) bool { return len(p.dlp.Scan(s).Findings) > 0 }}
}

// judge runs the mapped requests through the gate. The worse verdict
// wins; an escalation goes to approve, which may lift it (trust, a
// human) but never sees a BLOCK. A call the tool's definition says goes
// nowhere (localReadOnly, no path or URL) is allowed by the proxy.
func (p *Proxy) judge(ctx context.Context, name string, st toolState, m Mapped, args json.RawMessage) verdict.Verdict {
	f := factsOf(st.def)
	if f.localReadOnly() {
		// Arguments a shape did not explain reach a local process that
		// only reads: they leave nothing behind and go nowhere.
		m.Extra = nil
		if m.Shape == "mcp_call" && len(m.Paths) == 0 && !f.schemaPaths && !hasURL(args) {
			return p.allowLocal(ctx, name, m.Primary)
		}
	}
	var escalated *verdict.Verdict
	var escalatedReq shield.Request
	for i, r := range m.Requests() {
		r.Session = p.cfg.Session
		v := p.cfg.Gate.Evaluate(ctx, r)
		switch v.Decision {
		case verdict.Allow:
		case verdict.Escalate:
			if i == 0 && m.Shape == "mcp_call" {
				v = p.unknownTool(name, f, v)
			}
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
	return p.approve(ctx, name, st.hash, escalatedReq, *escalated)
}

// RuleUnknownTool is the reason code of an escalation for a tool whose
// arguments fit no known shape; RuleLocalReadOnly of the proxy's own
// allow for a local read-only tool.
const (
	RuleUnknownTool   = "mcp_unknown_tool"
	RuleLocalReadOnly = "mcp_local_read_only"
)

// policyMCPRule is the default policy's rule that escalates every
// mcp_call; its reason ("calls that leave the machine") is not what the
// proxy knows of a tool, so it is replaced.
const policyMCPRule = "external_communication"

// unknownTool says what is unknown about a tool the gate escalated as an
// mcp_call.
func (p *Proxy) unknownTool(name string, f toolFacts, v verdict.Verdict) verdict.Verdict {
	what := fmt.Sprintf("Parallax does not know what tool %s of server %s does (%s)", name, p.cfg.ServerID, f.describe())
	if v.Rule == policyMCPRule {
		v.Rule, v.Reason = RuleUnknownTool, what
		return v
	}
	v.Reason = what + "; and " + v.Reason
	return v
}

// allowLocal allows a call to a local read-only tool with no path or URL
// argument, audited as the proxy's decision.
func (p *Proxy) allowLocal(ctx context.Context, name string, r shield.Request) verdict.Verdict {
	v := verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StagePolicy, Rule: RuleLocalReadOnly,
		Reason: "tool " + name + " is annotated read-only and local (readOnlyHint, openWorldHint false) and names no path or URL"}
	e := audit.FromVerdict(audit.ActionEvaluated, p.cfg.Session, r.Type, v)
	e.Detail = audit.Detail{Ref: p.cfg.ServerID, Message: "tool " + name}
	if err := p.appendAudit(ctx, e); err != nil {
		return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StagePolicy, Rule: shield.RuleAuditError,
			Reason: "the decision could not be written to the audit chain; blocked to fail closed"}
	}
	return v
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
