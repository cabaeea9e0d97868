package action

// Type names an action kind. Names follow the seeds' action types so that
// policies and corpora carry over.
type Type string

// Core action types (DESIGN §3).
const (
	ReadFile          Type = "read_file"
	WriteFile         Type = "write_file"
	EditFile          Type = "edit_file"
	DeleteFile        Type = "delete_file"
	MoveFile          Type = "move_file"
	CopyFile          Type = "copy_file"
	CreateDirectory   Type = "create_directory"
	ListDirectory     Type = "list_directory"
	SearchFiles       Type = "search_files"
	ExecuteCommand    Type = "execute_command"
	GitStatus         Type = "git_status"
	GitDiff           Type = "git_diff"
	GitLog            Type = "git_log"
	GitCommit         Type = "git_commit"
	GitPush           Type = "git_push"
	GitPull           Type = "git_pull"
	GitCheckout       Type = "git_checkout"
	GitClone          Type = "git_clone"
	HTTPRequest       Type = "http_request"
	BrowserNavigate   Type = "browser_navigate"
	BrowserClick      Type = "browser_click"
	BrowserType       Type = "browser_type"
	BrowserExtract    Type = "browser_extract"
	BrowserScreenshot Type = "browser_screenshot"
	SendEmail         Type = "send_email"
	ReadEmail         Type = "read_email"
	SearchEmail       Type = "search_email"
	ReadCalendar      Type = "read_calendar"
	CreateEvent       Type = "create_event"
	SendMessage       Type = "send_message"
	MemoryWrite       Type = "memory_write"
	MemorySearch      Type = "memory_search"
	CreateSchedule    Type = "create_schedule"
	ListSchedules     Type = "list_schedules"
	DeleteSchedule    Type = "delete_schedule"
	CreateAgent       Type = "create_agent"
	AgentMessage      Type = "agent_message"
	MCPCall           Type = "mcp_call"
)

// Sink is the category of place an action sends data to. IFC and the
// heuristics use it to find where data leaves.
type Sink uint8

// Sink categories.
const (
	SinkNone      Sink = iota // reads and local bookkeeping
	SinkFileWrite             // changes files on disk
	SinkShell                 // runs a command: effects decided by analysis
	SinkHTTP                  // an HTTP request leaves the machine
	SinkEmail                 // mail leaves the machine
	SinkMessage               // a chat message leaves the machine
	SinkBrowser               // a browser talks to the web
	SinkGitRemote             // git talks to a remote
	SinkMemory                // long-term agent memory
	SinkAgent                 // another agent receives instructions
	SinkSchedule              // something runs later, unattended
	SinkMCP                   // an MCP server receives arguments
)

var sinkNames = [...]string{"none", "file_write", "shell", "http_request", "send_email",
	"send_message", "browser", "git_remote", "memory_write", "agent", "schedule", "mcp"}

// String names the sink.
func (s Sink) String() string {
	if int(s) < len(sinkNames) {
		return sinkNames[s]
	}
	return "unknown"
}

// External reports whether data given to this sink leaves the machine.
func (s Sink) External() bool {
	switch s {
	case SinkHTTP, SinkEmail, SinkMessage, SinkBrowser, SinkGitRemote, SinkMCP:
		return true
	case SinkNone, SinkFileWrite, SinkShell, SinkMemory, SinkAgent, SinkSchedule:
		return false
	}
	return true
}

// kindInfo describes one catalog entry.
type kindInfo struct {
	sink Sink
	new  func() Payload // nil for schema-described (extended) types
}

// core is the typed part of the catalog.
var core = map[Type]kindInfo{
	ReadFile:          {SinkNone, func() Payload { return &ReadFilePayload{} }},
	WriteFile:         {SinkFileWrite, func() Payload { return &WriteFilePayload{} }},
	EditFile:          {SinkFileWrite, func() Payload { return &EditFilePayload{} }},
	DeleteFile:        {SinkFileWrite, func() Payload { return &DeleteFilePayload{} }},
	MoveFile:          {SinkFileWrite, func() Payload { return &TransferPayload{move: true} }},
	CopyFile:          {SinkFileWrite, func() Payload { return &TransferPayload{} }},
	CreateDirectory:   {SinkFileWrite, func() Payload { return &CreateDirectoryPayload{} }},
	ListDirectory:     {SinkNone, func() Payload { return &ListDirectoryPayload{} }},
	SearchFiles:       {SinkNone, func() Payload { return &SearchFilesPayload{} }},
	ExecuteCommand:    {SinkShell, func() Payload { return &ExecuteCommandPayload{} }},
	GitStatus:         {SinkNone, func() Payload { return &GitPathPayload{} }},
	GitDiff:           {SinkNone, func() Payload { return &GitPathPayload{} }},
	GitLog:            {SinkNone, func() Payload { return &GitPathPayload{} }},
	GitCommit:         {SinkFileWrite, func() Payload { return &GitCommitPayload{} }},
	GitPush:           {SinkGitRemote, func() Payload { return &GitPushPayload{} }},
	GitPull:           {SinkFileWrite, func() Payload { return &GitPullPayload{} }},
	GitCheckout:       {SinkFileWrite, func() Payload { return &GitCheckoutPayload{} }},
	GitClone:          {SinkFileWrite, func() Payload { return &GitClonePayload{} }},
	HTTPRequest:       {SinkHTTP, func() Payload { return &HTTPRequestPayload{} }},
	BrowserNavigate:   {SinkBrowser, func() Payload { return &BrowserNavigatePayload{} }},
	BrowserClick:      {SinkBrowser, func() Payload { return &BrowserSelectorPayload{required: true} }},
	BrowserType:       {SinkBrowser, func() Payload { return &BrowserTypePayload{} }},
	BrowserExtract:    {SinkNone, func() Payload { return &BrowserSelectorPayload{} }},
	BrowserScreenshot: {SinkNone, func() Payload { return &EmptyPayload{} }},
	SendEmail:         {SinkEmail, func() Payload { return &SendEmailPayload{} }},
	ReadEmail:         {SinkNone, func() Payload { return &EmailQueryPayload{} }},
	SearchEmail:       {SinkNone, func() Payload { return &EmailQueryPayload{} }},
	ReadCalendar:      {SinkNone, func() Payload { return &ReadCalendarPayload{} }},
	CreateEvent:       {SinkMessage, func() Payload { return &CreateEventPayload{} }},
	SendMessage:       {SinkMessage, func() Payload { return &SendMessagePayload{} }},
	MemoryWrite:       {SinkMemory, func() Payload { return &MemoryWritePayload{} }},
	MemorySearch:      {SinkNone, func() Payload { return &MemorySearchPayload{} }},
	CreateSchedule:    {SinkSchedule, func() Payload { return &CreateSchedulePayload{} }},
	ListSchedules:     {SinkNone, func() Payload { return &EmptyPayload{} }},
	DeleteSchedule:    {SinkSchedule, func() Payload { return &DeleteSchedulePayload{} }},
	CreateAgent:       {SinkAgent, func() Payload { return &CreateAgentPayload{} }},
	AgentMessage:      {SinkAgent, func() Payload { return &AgentMessagePayload{} }},
	MCPCall:           {SinkMCP, func() Payload { return &MCPCallPayload{} }},
}

// Known reports whether t is in the catalog (core or extended).
func Known(t Type) bool {
	if _, ok := core[t]; ok {
		return true
	}
	_, ok := extended[t]
	return ok
}

// Types lists every catalog type, core first, in a stable order.
func Types() []Type {
	out := make([]Type, 0, len(core)+len(extended))
	out = append(out, coreOrder...)
	out = append(out, extendedOrder...)
	return out
}

var coreOrder = []Type{ReadFile, WriteFile, EditFile, DeleteFile, MoveFile, CopyFile,
	CreateDirectory, ListDirectory, SearchFiles, ExecuteCommand, GitStatus, GitDiff, GitLog,
	GitCommit, GitPush, GitPull, GitCheckout, GitClone, HTTPRequest, BrowserNavigate,
	BrowserClick, BrowserType, BrowserExtract, BrowserScreenshot, SendEmail, ReadEmail,
	SearchEmail, ReadCalendar, CreateEvent, SendMessage, MemoryWrite, MemorySearch,
	CreateSchedule, ListSchedules, DeleteSchedule, CreateAgent, AgentMessage, MCPCall}

// SinkOf returns the sink category of an action type (SinkNone if unknown).
func SinkOf(t Type) Sink {
	if k, ok := core[t]; ok {
		return k.sink
	}
	if e, ok := extended[t]; ok {
		return e.sink
	}
	return SinkNone
}
