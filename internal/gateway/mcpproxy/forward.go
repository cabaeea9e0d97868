package mcpproxy

//lint:file-ignore SA1019 MCP logging and sampling are deprecated (SEP-2577) but still in their deprecation window; the proxy must keep relaying them for clients and servers that use them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of what the proxy refuses outside tool calls.
const (
	RuleNotOffered      = "mcp_not_offered"
	RuleBadURI          = "mcp_bad_uri"
	RuleSamplingRefused = "mcp_sampling_refused"
)

// mirrorServer is what the client is offered: what the server offers
// of what the proxy forwards. Tools are always offered (the proxy
// tells the client when pins change the list); experimental features
// and extensions are not forwarded.
func mirrorServer(up *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	out := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	if up == nil {
		return out
	}
	if up.Resources != nil {
		out.Resources = &mcp.ResourceCapabilities{ListChanged: up.Resources.ListChanged, Subscribe: up.Resources.Subscribe}
	}
	if up.Prompts != nil {
		out.Prompts = &mcp.PromptCapabilities{ListChanged: up.Prompts.ListChanged}
	}
	if up.Completions != nil {
		out.Completions = &mcp.CompletionCapabilities{}
	}
	if up.Logging != nil {
		out.Logging = &mcp.LoggingCapabilities{}
	}
	return out
}

// upstreamClient is the client the proxy connects to the server with. It
// offers sampling only when the client offered it, and never roots (path
// decisions depend on the server's fixed roots) or elicitation.
func (p *Proxy) upstreamClient(offered *mcp.ClientCapabilities) *mcp.Client {
	opts := &mcp.ClientOptions{
		Capabilities:               &mcp.ClientCapabilities{},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { p.resync() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { p.listChanged(false) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { p.listChanged(true) },
		ResourceUpdatedHandler:     p.resourceUpdated,
		LoggingMessageHandler:      p.logMessage,
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			p.progress(ctx, r.Params)
		},
	}
	if offered != nil && offered.Sampling != nil {
		opts.CreateMessageHandler = p.sample
	}
	return mcp.NewClient(&mcp.Implementation{Name: "parallax-mcp-proxy", Version: Version}, opts)
}

// forward is the client-facing server's middleware: initialize connects
// the server; what the server offers is forwarded and screened; the rest
// is the SDK's (ping, tools through the registered handlers).
func (p *Proxy) forward(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "server/discover":
			return p.initialize(ctx, next, method, req)
		case "ping", "notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed":
			return next(ctx, method, req)
		}
		select {
		case <-p.ready:
		default:
			// A client of the sessionless protocol may start with any
			// request: the server is connected first, offered nothing.
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if err := p.connectUpstream(ss, nil); err != nil {
				return nil, fmt.Errorf("parallax: the MCP server could not be started: %s", redactErr(p.dlp, err))
			}
		}
		switch method {
		case "tools/list":
			// The server may have changed without saying so: every
			// listing is checked against the pins first.
			_ = p.sync(ctx)
		case "resources/list":
			return call(ctx, req, p.listResources, true)
		case "resources/templates/list":
			return call(ctx, req, p.listTemplates, true)
		case "resources/read":
			return call(ctx, req, p.readResource, false)
		case "prompts/list":
			return call(ctx, req, p.listPrompts, true)
		case "prompts/get":
			return call(ctx, req, p.getPrompt, false)
		case "logging/setLevel":
			params, ok := req.GetParams().(*mcp.SetLoggingLevelParams)
			if !ok || params == nil {
				return nil, errors.New("parallax: logging/setLevel without parameters")
			}
			if err := p.offered("logging"); err != nil {
				return nil, err
			}
			if err := p.cs.SetLoggingLevel(ctx, params); err != nil {
				return nil, p.serverErr(err)
			}
			// The SDK keeps the level: log messages below it are not sent.
		}
		return next(ctx, method, req)
	}
}

// call runs a forwarding handler on the request's parameters, which
// must be of its type; only listings may come without them.
func call[P any, R mcp.Result](ctx context.Context, req mcp.Request, h func(context.Context, *P) (R, error), optional bool) (mcp.Result, error) {
	params, ok := any(req.GetParams()).(*P)
	if !ok || params == nil {
		if !optional {
			return nil, fmt.Errorf("parallax: a %T request without parameters", params)
		}
		params = new(P)
	}
	return h(ctx, params)
}

// offered refuses what the server does not offer.
func (p *Proxy) offered(feature string) error {
	var caps *mcp.ServerCapabilities
	if init := p.cs.InitializeResult(); init != nil {
		caps = init.Capabilities
	}
	ok := caps != nil
	if ok {
		switch feature {
		case "resources", "subscribe":
			ok = caps.Resources != nil && (feature == "resources" || caps.Resources.Subscribe)
		case "prompts":
			ok = caps.Prompts != nil
		case "completions":
			ok = caps.Completions != nil
		case "logging":
			ok = caps.Logging != nil
		}
	}
	if !ok {
		return fmt.Errorf("parallax (%s): the MCP server does not offer %s", RuleNotOffered, feature)
	}
	return nil
}

// serverErr is an error of the server, masked, for the client.
func (p *Proxy) serverErr(err error) error {
	return errors.New("the MCP server failed the request: " + redactErr(p.dlp, err))
}

func (p *Proxy) listResources(ctx context.Context, params *mcp.ListResourcesParams) (*mcp.ListResourcesResult, error) {
	if err := p.offered("resources"); err != nil {
		return nil, err
	}
	res, err := p.cs.ListResources(ctx, params)
	if err != nil {
		return nil, p.serverErr(err)
	}
	return &mcp.ListResourcesResult{NextCursor: res.NextCursor, Resources: screenItems(p, ctx, "resource", res.Resources)}, nil
}

func (p *Proxy) listTemplates(ctx context.Context, params *mcp.ListResourceTemplatesParams) (*mcp.ListResourceTemplatesResult, error) {
	if err := p.offered("resources"); err != nil {
		return nil, err
	}
	res, err := p.cs.ListResourceTemplates(ctx, params)
	if err != nil {
		return nil, p.serverErr(err)
	}
	return &mcp.ListResourceTemplatesResult{NextCursor: res.NextCursor,
		ResourceTemplates: screenItems(p, ctx, "resource template", res.ResourceTemplates)}, nil
}

func (p *Proxy) listPrompts(ctx context.Context, params *mcp.ListPromptsParams) (*mcp.ListPromptsResult, error) {
	if err := p.offered("prompts"); err != nil {
		return nil, err
	}
	res, err := p.cs.ListPrompts(ctx, params)
	if err != nil {
		return nil, p.serverErr(err)
	}
	return &mcp.ListPromptsResult{NextCursor: res.NextCursor, Prompts: screenItems(p, ctx, "prompt", res.Prompts)}, nil
}

// heldText replaces the description of a listed item that reads as
// orders to the agent.
const heldText = "Held by Parallax: this text reads as instructions to the agent"

// screenItems screens the items of a listing (resources, templates,
// prompts), which the agent reads like tool definitions: every string
// and key passes DLP (masked; a Block finding drops the item), and an
// item whose text reads as orders keeps only its name and URI. Each is
// audited. An item that cannot be screened is dropped.
func screenItems[T any](p *Proxy, ctx context.Context, kind string, items []*T) []*T {
	out := make([]*T, 0, len(items))
	for _, it := range items {
		var plain any
		b, err := json.Marshal(it)
		if err == nil {
			err = json.Unmarshal(b, &plain)
		}
		s := newScreener(p.dlp)
		v, ok := s.value(plain).(map[string]any)
		sc := s.result()
		if err != nil || !ok || len(sc.Blocking) > 0 {
			p.reportScreened(ctx, string(action.MCPCall), kind+" listed by the server (dropped)", sc)
			continue
		}
		if rules := ScanInjection(s.read.String(), ScopeDescription); len(rules) > 0 {
			for k := range v {
				if k != "name" && k != "uri" && k != "uriTemplate" {
					delete(v, k)
				}
			}
			v["description"] = heldText
			p.reportScreened(ctx, string(action.MCPCall), fmt.Sprintf("%s %v listed by the server (text held)", kind, v["name"]),
				Screened{Injection: rules})
		}
		var t T
		if b, err = json.Marshal(v); err == nil {
			err = json.Unmarshal(b, &t)
		}
		if err != nil {
			continue
		}
		out = append(out, &t)
	}
	return out
}

// resourceAction is the action a resource request amounts to: a file
// URI is a read of its path (resourceFile, judged like read_file); any
// other URI is an mcp_call of method, for the session's taint only.
func (p *Proxy) resourceAction(method, uri string) (r shield.Request, file bool, err error) {
	path, file, err := resourceFile(p.mapEnv(), uri)
	if file {
		if err != nil {
			return r, true, err
		}
		r, err = request(action.ReadFile, map[string]any{"path": path})
		return r, true, err
	}
	args, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return r, false, err
	}
	r, err = mcpCall(p.cfg.ServerID, method, args)
	return r, false, err
}

// gateResource decides a resource request before it is sent: a file URI
// the proxy cannot place is refused (mcp_bad_uri), and one it can is
// judged by the gate as a read of its path; the refusal is the error.
// It returns the request to observe the result with.
func (p *Proxy) gateResource(ctx context.Context, method, uri string) (shield.Request, error) {
	obs, file, err := p.resourceAction(method, uri)
	if err != nil {
		v := verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageDecode, Rule: RuleBadURI,
			Reason: "resource URI " + err.Error()}
		p.refuse(ctx, method, "", v)
		return obs, refusal(v)
	}
	if file {
		// No tool definition: no annotations to go by and no stored trust.
		if v := p.judge(ctx, method, toolState{}, Mapped{Shape: "resource", Primary: obs}, nil); v.Decision != verdict.Allow {
			return obs, refusal(v)
		}
	}
	return obs, nil
}

// refusal is the error the client gets for a refused request.
func refusal(v verdict.Verdict) error {
	if tc, ok := blocked(v).Content[0].(*mcp.TextContent); ok {
		return errors.New(tc.Text)
	}
	//lint:ignore ST1005 the text is shown to the client as the tool's error, not wrapped by Go code
	return errors.New("Blocked by Parallax")
}

// readResource gates a resource read (a file:// URI is judged as a read
// of its path), screens what it returns like a tool result and taints
// the session with it.
func (p *Proxy) readResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	if err := p.offered("resources"); err != nil {
		return nil, err
	}
	obs, err := p.gateResource(ctx, "resources/read", params.URI)
	if err != nil {
		return nil, err
	}
	res, err := p.cs.ReadResource(ctx, params)
	if err != nil {
		return nil, p.serverErr(err)
	}
	s := newScreener(p.dlp)
	out := &mcp.ReadResourceResult{Meta: s.meta(res.Meta)}
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		r, masked := s.resource(c)
		if len(masked) > 0 {
			r = &mcp.ResourceContents{URI: r.URI, MIMEType: "text/plain", Text: withheldText("resource", masked).Text}
		}
		out.Contents = append(out.Contents, r)
	}
	sc := s.result()
	what := "resource read"
	if err := p.observe(ctx, obs, sc, what); err != nil {
		return nil, err
	}
	if len(sc.Blocking) > 0 {
		return nil, refusal(verdict.Verdict{Decision: verdict.Block, Rule: RuleResultWithheld,
			Reason: "the resource was withheld because it holds data that must not reach the agent (" + strings.Join(sc.Blocking, ", ") + ")"})
	}
	if len(sc.Injection) > 0 {
		warn := &mcp.ResourceContents{URI: params.URI, MIMEType: "text/plain", Text: injectionWarning(sc.Injection).Text}
		out.Contents = append([]*mcp.ResourceContents{warn}, out.Contents...)
	}
	return out, nil
}

// observe records what the session read and audits what screening
// withheld or flagged. When the taint cannot be recorded, the read is
// withheld: later decisions would be judged without it.
func (p *Proxy) observe(ctx context.Context, obs shield.Request, sc Screened, what string) error {
	obs.Session, obs.Result = p.cfg.Session, sc.Text
	if err := p.cfg.Gate.Observe(ctx, obs); err != nil {
		p.event(ctx, audit.ShieldError, RuleObserveError, what+": "+redactErr(p.dlp, err), nil)
		return refusal(verdict.Verdict{Decision: verdict.Block, Rule: RuleObserveError,
			Reason: "withheld because the session's taint could not be recorded"})
	}
	p.reportScreened(ctx, obs.Type, what, sc)
	return nil
}

// getPrompt forwards prompts/get and screens the messages like a tool
// result (the agent's model reads them); they taint the session.
func (p *Proxy) getPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	if err := p.offered("prompts"); err != nil {
		return nil, err
	}
	res, err := p.cs.GetPrompt(ctx, params)
	if err != nil {
		return nil, p.serverErr(err)
	}
	s := newScreener(p.dlp)
	out := &mcp.GetPromptResult{Meta: s.meta(res.Meta), Description: s.text(res.Description)}
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: m.Role, Content: s.content(m.Content)})
	}
	sc := s.result()
	args, err := json.Marshal(map[string]any{"name": params.Name, "arguments": params.Arguments})
	if err != nil {
		return nil, fmt.Errorf("parallax: encode prompt arguments: %w", err)
	}
	obs, err := mcpCall(p.cfg.ServerID, "prompts/get", args)
	if err != nil {
		return nil, fmt.Errorf("parallax: %w", err)
	}
	if err := p.observe(ctx, obs, sc, "prompt "+trimTo(params.Name, 64)); err != nil {
		return nil, err
	}
	if len(sc.Blocking) > 0 {
		return nil, refusal(verdict.Verdict{Decision: verdict.Block, Rule: RuleResultWithheld,
			Reason: "the prompt was withheld because it holds data that must not reach the agent (" + strings.Join(sc.Blocking, ", ") + ")"})
	}
	if len(sc.Injection) > 0 {
		out.Messages = append([]*mcp.PromptMessage{{Role: "user", Content: injectionWarning(sc.Injection)}}, out.Messages...)
	}
	return out, nil
}

// complete forwards completion/complete; the values pass DLP.
func (p *Proxy) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if err := p.offered("completions"); err != nil {
		return nil, err
	}
	res, err := p.cs.Complete(ctx, req.Params)
	if err != nil {
		return nil, p.serverErr(err)
	}
	s := newScreener(p.dlp)
	out := &mcp.CompleteResult{Meta: s.meta(res.Meta), Completion: res.Completion}
	out.Completion.Values = make([]string, 0, len(res.Completion.Values))
	for _, v := range res.Completion.Values {
		out.Completion.Values = append(out.Completion.Values, s.text(v))
	}
	if sc := s.result(); len(sc.Blocking) > 0 {
		p.reportScreened(ctx, string(action.MCPCall), "completion", sc)
		return nil, refusal(verdict.Verdict{Decision: verdict.Block, Rule: RuleResultWithheld,
			Reason: "the completion was withheld because it holds data that must not reach the agent"})
	}
	return out, nil
}

// subscribe forwards resources/subscribe of a URI the client could
// read: a file URI is judged as a read of its path (gateResource), since
// the updates say when the file changes and invite the read.
func (p *Proxy) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if err := p.offered("subscribe"); err != nil {
		return err
	}
	if req == nil || req.Params == nil {
		return errors.New("parallax: resources/subscribe without parameters")
	}
	if _, err := p.gateResource(ctx, "resources/subscribe", req.Params.URI); err != nil {
		return err
	}
	// The URI only: the client's _meta names its own protocol (a
	// 2026-07-28 client subscribes through subscriptions/listen, whose
	// _meta the SDK passes on), which the server would take as this
	// request's, and refuse resources/subscribe.
	if err := p.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: req.Params.URI}); err != nil {
		return p.serverErr(err)
	}
	return nil
}

// unsubscribe forwards resources/unsubscribe; a file URI the proxy
// cannot place is refused like any other (nothing is read, so nothing
// is judged).
func (p *Proxy) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	if err := p.offered("subscribe"); err != nil {
		return err
	}
	if req == nil || req.Params == nil {
		return errors.New("parallax: resources/unsubscribe without parameters")
	}
	if _, file, err := resourceFile(p.mapEnv(), req.Params.URI); file && err != nil {
		v := verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageDecode, Rule: RuleBadURI, Reason: "resource URI " + err.Error()}
		p.refuse(ctx, "resources/unsubscribe", "", v)
		return refusal(v)
	}
	if err := p.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: req.Params.URI}); err != nil {
		return p.serverErr(err)
	}
	return nil
}
