package ifc

import (
	"fmt"
	"strings"
)

// Sink is a category of place data can go. An action reaches zero or
// more sinks; the policy decides, per sink, which levels may reach it.
type Sink uint8

// Sinks. Keep sinkNames in sync; the order is the order of reports.
const (
	SinkHTTP           Sink = iota // http_request and other HTTP-backed actions
	SinkEmail                      // send_email, reply_email
	SinkMessage                    // send_message, calendar invitations
	SinkBrowser                    // a browser talks to the web
	SinkGitRemote                  // git_push: the repository leaves
	SinkMCP                        // an MCP server receives arguments
	SinkNetwork                    // a shell command with network effects
	SinkOpaqueCommand              // a shell command whose effects are not fully known
	SinkWriteOutside               // a write outside the workspace
	SinkWriteWorkspace             // a write inside the workspace
	SinkExecute                    // a command or program runs
	SinkMemory                     // memory_write: long-term agent memory
	SinkAgent                      // create_agent, agent_message
	SinkSchedule                   // create_schedule: runs later, unattended
	sinkCount
)

var sinkNames = [sinkCount]string{"http_request", "send_email", "send_message", "browser",
	"git_remote", "mcp", "network", "opaque_command", "write_outside", "write_workspace",
	"execute", "memory_write", "agent", "schedule"}

// String names the sink (stable: policies, reasons and audit use it).
func (s Sink) String() string {
	if s < sinkCount {
		return sinkNames[s]
	}
	return "unknown_sink"
}

// External reports whether data given to the sink leaves the machine.
func (s Sink) External() bool { return s <= SinkNetwork }

// AllSinks lists every sink in order.
func AllSinks() []Sink {
	out := make([]Sink, sinkCount)
	for i := range out {
		out[i] = Sink(i)
	}
	return out
}

// ParseSink reads a sink name.
func ParseSink(s string) (Sink, error) {
	for i, n := range sinkNames {
		if n == s {
			return Sink(i), nil
		}
	}
	return 0, fmt.Errorf("unknown sink %q (want %s, or the groups external and *)", s, strings.Join(sinkNames[:], ", "))
}

// sinkSet is a set of sinks.
type sinkSet uint16

func (s sinkSet) has(k Sink) bool { return s&(1<<k) != 0 }
func (s *sinkSet) add(k Sink)     { *s |= 1 << k }
func (s sinkSet) empty() bool     { return s == 0 }
func setOf(ks ...Sink) (out sinkSet) {
	for _, k := range ks {
		out.add(k)
	}
	return out
}
func (s sinkSet) union(o sinkSet) sinkSet { return s | o }

// externalSinks is the "external" group of policies.
var externalSinks = setOf(SinkHTTP, SinkEmail, SinkMessage, SinkBrowser, SinkGitRemote, SinkMCP, SinkNetwork)

// allSinks is the "*" group.
const allSinks = sinkSet(1<<sinkCount - 1)

// names lists the set's sink names in order.
func (s sinkSet) names() []string {
	var out []string
	for k := Sink(0); k < sinkCount; k++ {
		if s.has(k) {
			out = append(out, k.String())
		}
	}
	return out
}
