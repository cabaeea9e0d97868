package claudecode

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/parallax/parallax/action"
)

// Mappers of the tools Claude Code 2.1 added: sub-agents and workflows,
// messages to other agents, schedules, monitors, notifications, MCP
// resources. Same rules as tools.go.

// mapWorkflow: Workflow {script | name | scriptPath, args, resumeFromRunId,
// description, title} → create_agent: a workflow script spawns agents
// with the prompts it holds. The task is what names the work (the script,
// the predefined workflow's name or the script file's path) and its args.
func mapWorkflow(_ *mapCtx, f *fields) (Mapped, error) {
	var parts []string
	for _, name := range []string{"script", "name", "scriptPath", "resumeFromRunId"} {
		v, err := f.str(name, false, false)
		if err != nil {
			return Mapped{}, err
		}
		if v != "" {
			parts = append(parts, name+": "+v)
		}
	}
	if len(parts) == 0 {
		//lint:ignore ST1005 it starts with the Claude Code tool's name, spelled as the host spells it
		return Mapped{}, errors.New(`Workflow input: one of "script", "name", "scriptPath" is needed`)
	}
	if f.present("args") {
		parts = append(parts, "args: "+string(f.raw["args"]))
	}
	f.drop("args", "description", "title") // args is in the task; the others are ignored by the host
	task := parts[0]
	for _, p := range parts[1:] {
		task += "\n" + p
	}
	return payloadOf(Mapped{Type: action.CreateAgent}, action.CreateAgentPayload{Task: task})
}

// mapSendMessage: SendMessage {to, message, summary, notify_when_idle} →
// agent_message {agent, message}. The recipient is another agent: a
// sub-agent, a teammate, another Claude session on this machine or in
// the cloud. summary labels the sender's own transcript (not sent);
// notify_when_idle asks for one notice back.
func mapSendMessage(_ *mapCtx, f *fields) (Mapped, error) {
	to, err := f.str("to", true, true)
	if err != nil {
		return Mapped{}, err
	}
	msg, err := f.str("message", false, false)
	if err != nil {
		return Mapped{}, err
	}
	f.drop("summary", "notify_when_idle")
	if msg == "" {
		msg = "(no text: asks to be told when the recipient is idle)"
	}
	return payloadOf(Mapped{Type: action.AgentMessage}, action.AgentMessagePayload{Agent: to, Message: msg})
}

// mapMonitor: Monitor {description, timeout_ms, command | ws} → the
// command runs like Bash (execute_command, in cwd); a WebSocket is
// opened like a GET of its URL (http_request).
func mapMonitor(c *mapCtx, f *fields) (Mapped, error) {
	f.drop("description", "timeout_ms") // a label; how long it may watch
	hasCmd, hasWS := f.present("command"), f.present("ws")
	switch {
	case hasCmd && hasWS:
		//lint:ignore ST1005 it starts with the Claude Code tool's name, spelled as the host spells it
		return Mapped{}, errors.New(`Monitor input: "command" and "ws" cannot be combined`)
	case hasCmd:
		return mapBash(c, f)
	case !hasWS:
		//lint:ignore ST1005 it starts with the Claude Code tool's name, spelled as the host spells it
		return Mapped{}, errors.New(`Monitor input: "command" or "ws" is needed`)
	}
	f.known["ws"] = true
	ws, err := newFields(f.tool, "ws.", f.raw["ws"])
	if err != nil {
		return Mapped{}, err
	}
	u, err := ws.str("url", true, true)
	if err != nil {
		return Mapped{}, err
	}
	ws.drop("protocols") // subprotocol names offered to the same server
	return payloadOf(Mapped{Type: action.HTTPRequest, Unknown: ws.unknown()},
		action.HTTPRequestPayload{Method: "GET", URL: u})
}

// mapCronCreate: CronCreate {cron, prompt, recurring, durable} →
// create_schedule {cron, task}. Whether it repeats and whether it
// survives a restart change how often the same task runs, not what it is.
func mapCronCreate(_ *mapCtx, f *fields) (Mapped, error) {
	cron, err := f.str("cron", true, true)
	if err != nil {
		return Mapped{}, err
	}
	prompt, err := f.str("prompt", true, true)
	if err != nil {
		return Mapped{}, err
	}
	f.drop("recurring", "durable")
	return payloadOf(Mapped{Type: action.CreateSchedule}, action.CreateSchedulePayload{Cron: cron, Task: prompt})
}

// mapCronDelete: CronDelete {id} → delete_schedule {id}.
func mapCronDelete(_ *mapCtx, f *fields) (Mapped, error) {
	id, err := f.str("id", true, true)
	if err != nil {
		return Mapped{}, err
	}
	return payloadOf(Mapped{Type: action.DeleteSchedule}, action.DeleteSchedulePayload{ID: id})
}

// mapCronList: CronList {} → list_schedules.
func mapCronList(_ *mapCtx, _ *fields) (Mapped, error) {
	return payloadOf(Mapped{Type: action.ListSchedules}, action.EmptyPayload{})
}

// mapScheduleWakeup: ScheduleWakeup {delaySeconds, prompt, reason, noop,
// stop} → create_schedule {cron: "after N s", task: prompt}: the prompt
// runs later, unattended. stop ends the loop: nothing is scheduled, and
// the call is left to the host like its other bookkeeping.
func mapScheduleWakeup(_ *mapCtx, f *fields) (Mapped, error) {
	f.drop("reason", "noop") // shown to the user; a flag for the host's view
	if f.present("stop") {
		var stop bool
		if err := json.Unmarshal(f.raw["stop"], &stop); err != nil {
			return Mapped{}, errors.New(`ScheduleWakeup input: field "stop" must be a boolean`)
		}
		f.known["stop"] = true
		if stop {
			return Mapped{Internal: true, What: "ends the session's wake-up loop"}, nil
		}
	}
	secs, err := f.num("delaySeconds")
	if err != nil {
		return Mapped{}, err
	}
	prompt, err := f.str("prompt", true, true)
	if err != nil {
		return Mapped{}, err
	}
	return payloadOf(Mapped{Type: action.CreateSchedule},
		action.CreateSchedulePayload{Cron: "after " + strconv.FormatInt(secs, 10) + " s", Task: prompt})
}

// mapPushNotification: PushNotification {message, status} → send_message
// to the user's devices (it leaves the machine).
func mapPushNotification(_ *mapCtx, f *fields) (Mapped, error) {
	msg, err := f.str("message", true, true)
	if err != nil {
		return Mapped{}, err
	}
	f.drop("status") // marks it as unprompted
	return payloadOf(Mapped{Type: action.SendMessage},
		action.SendMessagePayload{Channel: "claude-code-push", Body: msg})
}

// mapSendFeedback: SendFeedback {type, title, details, area, failure_mode,
// task_category} → send_message to Anthropic: title and details leave the
// machine; the rest are categories from fixed lists.
func mapSendFeedback(_ *mapCtx, f *fields) (Mapped, error) {
	title, err := f.str("title", true, false)
	if err != nil {
		return Mapped{}, err
	}
	details, err := f.str("details", true, false)
	if err != nil {
		return Mapped{}, err
	}
	f.drop("type", "area", "failure_mode", "task_category")
	return payloadOf(Mapped{Type: action.SendMessage},
		action.SendMessagePayload{Channel: "anthropic-feedback", Body: title + "\n\n" + details})
}

// mapReadMcpResource: ReadMcpResourceTool and ReadMcpResourceDirTool
// {server, uri} → mcp_call of resources/read (or resources/list for a
// directory) on that server, like any other call to it.
func mapReadMcpResource(_ *mapCtx, f *fields) (Mapped, error) {
	server, err := f.str("server", true, true)
	if err != nil {
		return Mapped{}, err
	}
	uri, err := f.str("uri", true, true)
	if err != nil {
		return Mapped{}, err
	}
	method := "resources/read"
	if f.tool == "ReadMcpResourceDirTool" {
		method = "resources/list"
	}
	args, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return Mapped{}, err
	}
	return payloadOf(Mapped{Type: action.MCPCall}, action.MCPCallPayload{Server: server, Tool: method, Arguments: args})
}
