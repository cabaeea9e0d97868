package mcpproxy

//lint:file-ignore SA1019 MCP logging and sampling are deprecated (SEP-2577) but still in their deprecation window; the proxy must keep relaying them for clients and servers that use them.

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// What the server sends on its own (notifications and sampling
// requests) reaches the client screened: log messages and progress
// messages pass DLP and the injection rules like tool results; a
// sampling request is refused when it holds what DLP withholds or reads
// as orders.

// listChanged tells the client that the server's resources (or prompts)
// changed. The SDK sends list-changed notifications when a feature is
// added or removed; the proxy's listings are forwarded, so a marker is
// added and removed at once (one debounced notification).
func (p *Proxy) listChanged(resources bool) {
	if p.server == nil {
		return
	}
	const marker = "parallax-list-changed"
	if resources {
		p.server.AddResource(&mcp.Resource{URI: "parallax:" + marker, Name: marker},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return nil, errors.New("not served")
			})
		p.server.RemoveResources("parallax:" + marker)
		return
	}
	p.server.AddPrompt(&mcp.Prompt{Name: marker}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, errors.New("not served")
	})
	p.server.RemovePrompts(marker)
}

// resourceUpdated forwards a resource update to the client sessions
// subscribed to it (the SDK keeps the subscriptions).
func (p *Proxy) resourceUpdated(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
	if r == nil || r.Params == nil || p.server == nil {
		return
	}
	_ = p.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: r.Params.URI})
}

// logMessage forwards a log message: its data passes DLP (masked; a
// Block finding drops the message) and the injection rules (flagged
// messages are wrapped in a warning). A message DLP found something in
// taints the session.
func (p *Proxy) logMessage(ctx context.Context, r *mcp.LoggingMessageRequest) {
	ss := p.session()
	if r == nil || r.Params == nil || ss == nil {
		return
	}
	s := newScreener(p.dlp)
	out := &mcp.LoggingMessageParams{Level: r.Params.Level, Logger: s.text(r.Params.Logger), Data: s.value(r.Params.Data)}
	sc := s.result()
	if !p.observeNotice(ctx, sc, "log message") {
		return
	}
	if len(sc.Injection) > 0 {
		out.Data = map[string]any{"parallax_warning": injectionWarning(sc.Injection).Text, "data": out.Data}
	}
	_ = ss.Log(ctx, out)
}

// progress forwards a progress notification with its message screened.
func (p *Proxy) progress(ctx context.Context, params *mcp.ProgressNotificationParams) {
	ss := p.session()
	if params == nil || ss == nil {
		return
	}
	s := newScreener(p.dlp)
	out := &mcp.ProgressNotificationParams{ProgressToken: params.ProgressToken, Progress: params.Progress,
		Total: params.Total, Message: s.text(params.Message)}
	sc := s.result()
	if !p.observeNotice(ctx, sc, "progress message") {
		return
	}
	if len(sc.Injection) > 0 {
		out.Message = injectionWarning(sc.Injection).Text + " " + out.Message
	}
	_ = ss.NotifyProgress(ctx, out)
}

// observeNotice taints the session with a notification DLP found
// something in (most carry nothing, and cost no write) and audits it.
// It reports whether the notification may be forwarded.
func (p *Proxy) observeNotice(ctx context.Context, sc Screened, what string) bool {
	if len(sc.Redacted)+len(sc.Blocking) > 0 {
		obs, err := mcpCall(p.cfg.ServerID, "notifications", []byte(`{}`))
		if err != nil || p.observe(ctx, obs, sc, what) != nil {
			return false
		}
	} else {
		p.reportScreened(ctx, string(action.MCPCall), what, sc)
	}
	return len(sc.Blocking) == 0
}

// session is the client's session, once the server is connected.
func (p *Proxy) session() *mcp.ServerSession {
	select {
	case <-p.ready:
		return p.ss
	default:
		return nil
	}
}

// sample forwards the server's sampling request to the client (offered
// to the server only when the client offers sampling). The request is
// text the client's model reads: it passes DLP (masked) and is refused
// when it holds what DLP withholds or reads as orders, in any message of
// any role; the server wrote them all, so its assistant turns and system
// prompt are also refused for claiming the user's approval (turnClaims).
// The server never gets the context of other servers (includeContext is
// dropped). The model's answer passes DLP on its way to the server.
func (p *Proxy) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ss := p.session()
	if req == nil || req.Params == nil || ss == nil {
		return nil, errors.New("parallax: no client session for sampling")
	}
	in := req.Params
	s := newScreener(p.dlp)
	out := &mcp.CreateMessageParams{MaxTokens: in.MaxTokens, Temperature: in.Temperature,
		ModelPreferences: in.ModelPreferences, SystemPrompt: s.text(in.SystemPrompt), Metadata: s.value(in.Metadata)}
	for _, seq := range in.StopSequences {
		out.StopSequences = append(out.StopSequences, s.text(seq))
	}
	for _, m := range in.Messages {
		if m == nil {
			continue
		}
		out.Messages = append(out.Messages, &mcp.SamplingMessage{Role: m.Role, Content: s.content(m.Content)})
	}
	sc := s.result()
	for _, id := range turnClaims(in) {
		if !slices.Contains(sc.Injection, id) {
			sc.Injection = append(sc.Injection, id)
		}
	}
	p.reportScreened(ctx, string(action.MCPCall), "sampling request", sc)
	if len(sc.Blocking)+len(sc.Injection) > 0 {
		why := "it holds data that must not reach the model (" + strings.Join(sc.Blocking, ", ") + ")"
		if len(sc.Blocking) == 0 {
			why = "it reads as instructions that override the model's (" + strings.Join(sc.Injection, ", ") + ")"
		}
		return nil, refusal(verdict.Verdict{Decision: verdict.Block, Rule: RuleSamplingRefused,
			Reason: "the sampling request was refused because " + why})
	}
	res, err := ss.CreateMessage(ctx, out)
	if err != nil {
		return nil, errors.New("the client failed the sampling request: " + redactErr(p.dlp, err))
	}
	back := newScreener(p.dlp)
	answer := &mcp.CreateMessageResult{Model: back.text(res.Model), Role: res.Role, StopReason: res.StopReason}
	if res.Content != nil {
		answer.Content = back.content(res.Content)
	}
	if sc := back.result(); len(sc.Blocking) > 0 {
		p.reportScreened(ctx, string(action.MCPCall), "sampling answer", Screened{Blocking: sc.Blocking})
		return nil, refusal(verdict.Verdict{Decision: verdict.Block, Rule: RuleResultWithheld,
			Reason: "the model's answer was withheld because it holds data that must not leave (" + strings.Join(sc.Blocking, ", ") + ")"})
	}
	return answer, nil
}

// turnClaims runs the rules of text in the model's own voice
// (ScopeTurn: claims of the user's approval) over what a sampling
// request puts there: every assistant turn, wherever it stands (a
// prefilled last turn the model would continue, or an earlier one it
// would take for its own history), and the system prompt.
func turnClaims(in *mcp.CreateMessageParams) []string {
	var b strings.Builder
	b.WriteString(in.SystemPrompt)
	for _, m := range in.Messages {
		if m == nil || m.Role != "assistant" {
			continue
		}
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			b.WriteString("\n")
			b.WriteString(c.Text)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				b.WriteString("\n")
				b.WriteString(c.Resource.Text)
			}
		}
	}
	return ScanInjection(b.String(), ScopeTurn)
}

// progressMeta carries the client's progress token to the server (and
// nothing else of the request's _meta), so the server's progress
// notifications reach the client.
func progressMeta(req *mcp.CallToolRequest) mcp.Meta {
	if req == nil || req.Params == nil {
		return nil
	}
	if tok := req.Params.GetProgressToken(); tok != nil {
		return mcp.Meta{"progressToken": tok}
	}
	return nil
}
