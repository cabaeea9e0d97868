package action

import "fmt"

// GitPathPayload is git_status, git_diff and git_log.
type GitPathPayload struct {
	noTexts
	Path string `json:"path,omitempty"`
}

func (*GitPathPayload) validate() error { return nil }

// PathFields implements Payload.
func (p *GitPathPayload) PathFields() []PathField {
	if p.Path == "" {
		return nil
	}
	return []PathField{{"path", &p.Path, AccessRead}}
}

// GitCommitPayload is git_commit.
type GitCommitPayload struct {
	Message string   `json:"message"`
	Paths   []string `json:"paths,omitempty"`
}

func (p *GitCommitPayload) validate() error { return required("message", p.Message) }

// PathFields implements Payload.
func (p *GitCommitPayload) PathFields() []PathField {
	out := make([]PathField, len(p.Paths))
	for i := range p.Paths {
		out[i] = PathField{fmt.Sprintf("paths[%d]", i), &p.Paths[i], AccessRead}
	}
	return out
}

// Texts implements Payload.
func (p *GitCommitPayload) Texts() []TextField { return []TextField{{"message", p.Message}} }

// GitPushPayload is git_push.
type GitPushPayload struct {
	noPaths
	noTexts
	Remote string `json:"remote,omitempty"`
	Branch string `json:"branch,omitempty"`
	Force  bool   `json:"force,omitempty"`
}

func (*GitPushPayload) validate() error { return nil }

// GitPullPayload is git_pull.
type GitPullPayload struct {
	noPaths
	noTexts
	Remote string `json:"remote,omitempty"`
}

func (*GitPullPayload) validate() error { return nil }

// GitCheckoutPayload is git_checkout.
type GitCheckoutPayload struct {
	noPaths
	noTexts
	Ref string `json:"ref"`
}

func (p *GitCheckoutPayload) validate() error { return required("ref", p.Ref) }

// GitClonePayload is git_clone.
type GitClonePayload struct {
	URL  string `json:"url"`
	Path string `json:"path"`
}

func (p *GitClonePayload) validate() error {
	return firstErr(required("url", p.URL), required("path", p.Path))
}

// PathFields implements Payload.
func (p *GitClonePayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessWrite}}
}

// Texts implements Payload.
func (p *GitClonePayload) Texts() []TextField { return []TextField{{"url", p.URL}} }

// HTTPRequestPayload is http_request.
type HTTPRequestPayload struct {
	noPaths
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

func (p *HTTPRequestPayload) validate() error {
	return firstErr(required("method", p.Method), required("url", p.URL))
}

// Texts implements Payload. Header values are outbound data too.
func (p *HTTPRequestPayload) Texts() []TextField {
	out := []TextField{{"url", p.URL}, {"body", p.Body}}
	for k, v := range p.Headers {
		out = append(out, TextField{"headers." + k, v})
	}
	return out
}

// BrowserNavigatePayload is browser_navigate.
type BrowserNavigatePayload struct {
	noPaths
	URL string `json:"url"`
}

func (p *BrowserNavigatePayload) validate() error { return required("url", p.URL) }

// Texts implements Payload.
func (p *BrowserNavigatePayload) Texts() []TextField { return []TextField{{"url", p.URL}} }

// BrowserSelectorPayload is browser_click and browser_extract.
type BrowserSelectorPayload struct {
	noPaths
	noTexts
	Selector string `json:"selector,omitempty"`
	required bool
}

func (p *BrowserSelectorPayload) validate() error {
	if p.required {
		return required("selector", p.Selector)
	}
	return nil
}

// BrowserTypePayload is browser_type.
type BrowserTypePayload struct {
	noPaths
	Selector string `json:"selector"`
	Text     string `json:"text"`
}

func (p *BrowserTypePayload) validate() error { return required("selector", p.Selector) }

// Texts implements Payload.
func (p *BrowserTypePayload) Texts() []TextField { return []TextField{{"text", p.Text}} }

// SendEmailPayload is send_email.
type SendEmailPayload struct {
	To          StringList `json:"to"`
	CC          StringList `json:"cc,omitempty"`
	Subject     string     `json:"subject"`
	Body        string     `json:"body"`
	Attachments []string   `json:"attachments,omitempty"`
}

func (p *SendEmailPayload) validate() error {
	if len(p.To) == 0 || p.To[0] == "" {
		return fmt.Errorf("payload field %q is required", "to")
	}
	return nil
}

// PathFields implements Payload: attachments are read and sent.
func (p *SendEmailPayload) PathFields() []PathField {
	out := make([]PathField, len(p.Attachments))
	for i := range p.Attachments {
		out[i] = PathField{fmt.Sprintf("attachments[%d]", i), &p.Attachments[i], AccessRead}
	}
	return out
}

// Texts implements Payload.
func (p *SendEmailPayload) Texts() []TextField {
	return []TextField{{"subject", p.Subject}, {"body", p.Body}}
}

// EmailQueryPayload is read_email and search_email.
type EmailQueryPayload struct {
	noPaths
	noTexts
	Folder string `json:"folder,omitempty"`
	Query  string `json:"query,omitempty"`
}

func (*EmailQueryPayload) validate() error { return nil }

// ReadCalendarPayload is read_calendar.
type ReadCalendarPayload struct {
	noPaths
	noTexts
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

func (*ReadCalendarPayload) validate() error { return nil }

// CreateEventPayload is create_event.
type CreateEventPayload struct {
	noPaths
	Title           string     `json:"title"`
	Start           string     `json:"start"`
	End             string     `json:"end,omitempty"`
	DurationMinutes Int        `json:"duration_minutes,omitempty"`
	Attendees       StringList `json:"attendees,omitempty"`
	Description     string     `json:"description,omitempty"`
}

func (p *CreateEventPayload) validate() error {
	return firstErr(required("title", p.Title), required("start", p.Start))
}

// Texts implements Payload.
func (p *CreateEventPayload) Texts() []TextField {
	return []TextField{{"title", p.Title}, {"description", p.Description}}
}

// SendMessagePayload is send_message.
type SendMessagePayload struct {
	noPaths
	Channel string `json:"channel"`
	To      string `json:"to,omitempty"`
	Body    string `json:"body"`
}

func (p *SendMessagePayload) validate() error { return required("channel", p.Channel) }

// Texts implements Payload.
func (p *SendMessagePayload) Texts() []TextField { return []TextField{{"body", p.Body}} }

// MemoryWritePayload is memory_write.
type MemoryWritePayload struct {
	noPaths
	Content string `json:"content"`
	Key     string `json:"key,omitempty"`
}

func (p *MemoryWritePayload) validate() error { return required("content", p.Content) }

// Texts implements Payload.
func (p *MemoryWritePayload) Texts() []TextField { return []TextField{{"content", p.Content}} }

// MemorySearchPayload is memory_search.
type MemorySearchPayload struct {
	noPaths
	noTexts
	Query string `json:"query"`
}

func (p *MemorySearchPayload) validate() error { return required("query", p.Query) }

// CreateSchedulePayload is create_schedule. Its task and command run later,
// unattended: both are instructions.
type CreateSchedulePayload struct {
	noPaths
	Cron    string `json:"cron"`
	Task    string `json:"task,omitempty"`
	Command string `json:"command,omitempty"`
}

func (p *CreateSchedulePayload) validate() error {
	if p.Task == "" && p.Command == "" {
		return fmt.Errorf("payload needs %q or %q", "task", "command")
	}
	return required("cron", p.Cron)
}

// Texts implements Payload.
func (p *CreateSchedulePayload) Texts() []TextField {
	return []TextField{{"task", p.Task}, {"command", p.Command}}
}

// DeleteSchedulePayload is delete_schedule.
type DeleteSchedulePayload struct {
	noPaths
	noTexts
	ID string `json:"id"`
}

func (p *DeleteSchedulePayload) validate() error { return required("id", p.ID) }

// CreateAgentPayload is create_agent.
type CreateAgentPayload struct {
	noPaths
	Task  string `json:"task"`
	Model string `json:"model,omitempty"`
}

func (p *CreateAgentPayload) validate() error { return required("task", p.Task) }

// Texts implements Payload.
func (p *CreateAgentPayload) Texts() []TextField { return []TextField{{"task", p.Task}} }

// AgentMessagePayload is agent_message.
type AgentMessagePayload struct {
	noPaths
	Agent   string `json:"agent,omitempty"`
	Message string `json:"message"`
}

func (p *AgentMessagePayload) validate() error { return required("message", p.Message) }

// Texts implements Payload.
func (p *AgentMessagePayload) Texts() []TextField { return []TextField{{"message", p.Message}} }
