package mcpproxy

import "sort"

// Tool shadowing (Invariant Labs 2025; OWASP LLM01): a server lists a
// tool under the name of a tool another server of the client already
// has, so that the model, or a client that merges the lists, calls the
// newcomer where it meant the other. The proxy fronts one server, but
// the workspace's pins hold every server it has fronted: a tool that is
// not pinned for this server and whose name is pinned for another
// server (of another software, by the name it gave at initialize) is
// held like a poisoned definition until a human approves it. Two tools
// of one server under one name are refused with the whole list (verify).

// RuleToolShadowing is the rule a shadowing definition is held under.
const RuleToolShadowing = "tool_shadowing"

// shadowed returns, per tool name pinned for a server other than server
// (of a software other than name, when both are known), the first such
// server in order.
func shadowed(pf *PinFile, server, name string) map[string]string {
	out := map[string]string{}
	ids := pf.SortedServers()
	for _, id := range ids {
		sp := pf.Servers[id]
		if id == server || sp == nil || name != "" && sp.Name == name {
			continue
		}
		tools := make([]string, 0, len(sp.Tools))
		for t := range sp.Tools {
			tools = append(tools, t)
		}
		sort.Strings(tools)
		for _, t := range tools {
			if _, ok := out[t]; !ok {
				out[t] = id
			}
		}
	}
	return out
}

// markShadowing adds RuleToolShadowing to the rules of every listed tool
// that is not pinned for this server and whose name another server has.
func markShadowing(seen []observed, mine *ServerPins, others map[string]string) {
	for i := range seen {
		name := seen[i].tool.Name
		if _, ok := others[name]; !ok {
			continue
		}
		if mine != nil {
			if _, pinned := mine.Tools[name]; pinned {
				continue
			}
		}
		seen[i].rules = append(seen[i].rules, RuleToolShadowing)
	}
}
