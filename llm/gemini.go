package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// geminiBackend speaks the Gemini API's REST protocol with net/http (see
// the package documentation for why not the Go SDK). The key goes in
// the x-goog-api-key header, never in the URL.
type geminiBackend struct {
	hc      *http.Client
	base    string
	setAuth func(http.Header)
}

var _ backend = (*geminiBackend)(nil)

func newGemini(base, key string, hc *http.Client) *geminiBackend {
	return &geminiBackend{hc: hc, base: strings.TrimSuffix(base, "/"), setAuth: func(h http.Header) {
		if key != "" {
			h.Set("x-goog-api-key", key)
		}
	}}
}

// geminiCallPrefix starts the ids given to function calls that came
// without one; they are not sent back to the API.
const geminiCallPrefix = "gemini_call_"

// geminiModelRE is what a Gemini model id looks like; anything else
// could change the method in the URL.
var geminiModelRE = lazyRE(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func (g *geminiBackend) endpoint(model, method string) (string, error) {
	model = strings.TrimPrefix(model, "models/")
	if !geminiModelRE().MatchString(model) {
		return "", fmt.Errorf("%w: gemini model %q is not a model id", errInvalid, model)
	}
	return g.base + "/v1beta/models/" + url.PathEscape(model) + ":" + method, nil
}

// post sends one request. An error status is returned as an error; the
// transport's observer has recorded its status, headers and body.
func (g *geminiBackend) post(ctx context.Context, u string, req *Request, sse bool) (*http.Response, error) {
	body, err := json.Marshal(geminiRequestOf(req))
	if err != nil {
		return nil, fmt.Errorf("%w: encode request: %v", errInvalid, err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errInvalid, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if sse {
		hr.Header.Set("Accept", "text/event-stream")
	}
	g.setAuth(hr.Header)
	resp, err := g.hc.Do(hr)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		_ = resp.Body.Close() // the observer kept what was needed
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return resp, nil
}

func (g *geminiBackend) complete(ctx context.Context, req *Request) (*Response, error) {
	u, err := g.endpoint(req.Model, "generateContent")
	if err != nil {
		return nil, err
	}
	resp, err := g.post(ctx, u, req, false)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close() // fully read or failed; the read error is what counts
	if err != nil {
		return nil, err
	}
	var gr geminiResponse
	if err := json.Unmarshal(data, &gr); err != nil {
		return nil, malformed("decode response: %v", err)
	}
	return geminiResponseOf(&gr)
}

func (g *geminiBackend) stream(ctx context.Context, req *Request) (eventSource, error) {
	u, err := g.endpoint(req.Model, "streamGenerateContent")
	if err != nil {
		return nil, err
	}
	resp, err := g.post(ctx, u+"?alt=sse", req, true)
	if err != nil {
		return nil, err
	}
	return &geminiStream{body: resp.Body, r: newSSEReader(resp.Body)}, nil
}

// geminiRequestOf translates a request. Tool results name their
// function: Request.validate guarantees each answers an earlier call.
func geminiRequestOf(req *Request) *geminiRequest {
	gr := &geminiRequest{GenerationConfig: geminiGenerateCfg{MaxOutputTokens: req.MaxTokens,
		Temperature: req.Temperature, StopSequences: req.StopSequences}}
	if req.System != "" {
		gr.SystemInstruction = &geminiContent{Parts: []geminiPart{{Text: req.System}}}
	}
	names := map[string]string{}
	for _, m := range req.Messages {
		c := geminiContent{Role: "user"}
		if m.Role == Assistant {
			c.Role = "model"
		}
		for _, p := range m.Content {
			c.Parts = append(c.Parts, geminiPartOf(p, names))
		}
		gr.Contents = append(gr.Contents, c)
	}
	if len(req.Tools) > 0 {
		decls := make([]geminiFunctionDecl, len(req.Tools))
		for i, t := range req.Tools {
			decls[i] = geminiFunctionDecl{Name: t.Name, Description: t.Description, ParametersJSONSchema: t.InputSchema}
		}
		gr.Tools = []geminiTool{{FunctionDeclarations: decls}}
	}
	return gr
}

func geminiPartOf(p Part, names map[string]string) geminiPart {
	switch p.Kind {
	case PartToolUse:
		names[p.ToolCall.ID] = p.ToolCall.Name
		args := p.ToolCall.Input
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return geminiPart{FunctionCall: &geminiFunctionCall{ID: geminiWireID(p.ToolCall.ID), Name: p.ToolCall.Name, Args: args}}
	case PartToolResult:
		r := p.ToolResult
		key := "result"
		if r.IsError {
			key = "error"
		}
		return geminiPart{FunctionResponse: &geminiFunctionResponse{ID: geminiWireID(r.ID), Name: names[r.ID],
			Response: map[string]any{key: r.Content}}}
	case PartText:
	}
	return geminiPart{Text: p.Text}
}

// geminiWireID is the id to send back: ours are not the API's.
func geminiWireID(id string) string {
	if strings.HasPrefix(id, geminiCallPrefix) {
		return ""
	}
	return id
}

func geminiResponseOf(gr *geminiResponse) (*Response, error) {
	if len(gr.Error) > 0 && string(gr.Error) != "null" {
		return nil, geminiWireErr(gr.Error)
	}
	out := &Response{Model: gr.ModelVersion, Usage: gr.usage()}
	if len(gr.Candidates) == 0 {
		if gr.PromptFeedback != nil && gr.PromptFeedback.BlockReason != "" {
			out.StopReason = StopRefusal
			return out, nil
		}
		return nil, malformed("response without candidates")
	}
	c := gr.Candidates[0]
	if c.FinishReason == "" {
		return nil, malformed("candidate without finishReason")
	}
	var text strings.Builder
	for _, p := range c.Content.Parts {
		if p.Thought {
			continue
		}
		text.WriteString(p.Text)
		if p.FunctionCall != nil {
			tc, err := geminiCall(p.FunctionCall, len(out.ToolCalls))
			if err != nil {
				return nil, err
			}
			out.ToolCalls = append(out.ToolCalls, tc)
		}
	}
	out.Text = text.String()
	out.StopReason = geminiStop(c.FinishReason, len(out.ToolCalls) > 0)
	return out, nil
}

// geminiCall checks a function call; i numbers it in its answer.
func geminiCall(fc *geminiFunctionCall, i int) (ToolCall, error) {
	if fc.Name == "" {
		return ToolCall{}, malformed("functionCall %d has no name", i)
	}
	in, err := toolInput(string(fc.Args))
	if err != nil {
		return ToolCall{}, malformed("functionCall %d (%s): %v", i, fc.Name, err)
	}
	id := fc.ID
	if id == "" {
		id = geminiCallPrefix + strconv.Itoa(i)
	}
	return ToolCall{ID: id, Name: fc.Name, Input: in}, nil
}

func geminiWireErr(raw json.RawMessage) error {
	var obj errorObject
	if err := json.Unmarshal(raw, &obj); err != nil {
		return malformed("error field is not an object")
	}
	return &wireError{typ: firstNonEmpty(obj.Status, "error"), msg: obj.Message}
}

// geminiStream converts SSE chunks; each is a whole response holding
// the next piece of the candidate.
type geminiStream struct {
	body     io.ReadCloser
	r        *sseReader
	tools    toolAssembler
	usage    Usage
	model    string
	stop     StopReason
	finished bool
	done     bool
	q        eventQueue
}

func (s *geminiStream) next() (Event, error) {
	for {
		if ev, ok := s.q.pop(); ok {
			return ev, nil
		}
		if s.done {
			return Event{}, io.EOF
		}
		data, err := s.r.next()
		switch {
		case errors.Is(err, io.EOF):
			if !s.finished {
				return Event{}, errIncomplete
			}
			s.done = true
			s.q.push(Event{Kind: EventDone, StopReason: s.stop, Usage: s.usage, Model: s.model})
			continue
		case errors.Is(err, errSSETooLarge):
			return Event{}, malformed("%v", err)
		case err != nil:
			return Event{}, err
		}
		if err := s.handle(data); err != nil {
			return Event{}, err
		}
	}
}

func (s *geminiStream) handle(data []byte) error {
	var gr geminiResponse
	if err := json.Unmarshal(data, &gr); err != nil {
		return malformed("decode chunk: %v", err)
	}
	if len(gr.Error) > 0 && string(gr.Error) != "null" {
		return geminiWireErr(gr.Error)
	}
	if gr.ModelVersion != "" {
		s.model = gr.ModelVersion
	}
	if gr.UsageMetadata != nil {
		s.usage = gr.usage()
	}
	if len(gr.Candidates) == 0 {
		if gr.PromptFeedback != nil && gr.PromptFeedback.BlockReason != "" {
			s.stop, s.finished = StopRefusal, true
		}
		return nil
	}
	c := gr.Candidates[0]
	for _, p := range c.Content.Parts {
		if err := s.part(p); err != nil {
			return err
		}
	}
	if c.FinishReason != "" {
		s.stop, s.finished = geminiStop(c.FinishReason, s.tools.anyCalls()), true
	}
	return nil
}

// part turns one part into events; a function call arrives whole.
func (s *geminiStream) part(p geminiPart) error {
	if p.Thought {
		return nil
	}
	if p.Text != "" {
		s.q.push(Event{Kind: EventText, Text: p.Text})
	}
	if p.FunctionCall == nil {
		return nil
	}
	tc, err := geminiCall(p.FunctionCall, len(s.tools.calls))
	if err != nil {
		return err
	}
	i, err := s.tools.start(tc.ID, tc.Name)
	if err != nil {
		return err
	}
	if err := s.tools.delta(i, string(tc.Input)); err != nil {
		return err
	}
	end, err := s.tools.end(i)
	if err != nil {
		return err
	}
	s.q.push(Event{Kind: EventToolStart, Index: i, ToolCall: ToolCall{ID: tc.ID, Name: tc.Name}},
		Event{Kind: EventToolDelta, Index: i, Delta: string(tc.Input)},
		Event{Kind: EventToolEnd, Index: i, ToolCall: end})
	return nil
}

func (s *geminiStream) close() error { return s.body.Close() }
