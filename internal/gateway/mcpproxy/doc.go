// Package mcpproxy puts the gate between an MCP client (Claude Desktop, an
// IDE, any agent) and one MCP server it launches over stdio: the client
// talks to the proxy, the proxy talks to the server
// (`parallax mcp proxy -- <server command…>`).
//
//	p, err := mcpproxy.New(mcpproxy.Config{Gate: gate, Audit: ws.Audit, Pins: mcpproxy.FilePins{Path: …},
//		ServerID: mcpproxy.ServerID(argv), Session: id, Workspace: root, Dir: cwd})
//	err = p.Run(ctx, &mcp.IOTransport{…stdin/stdout…}, &mcpproxy.ProcessTransport{Command: exec.Command(argv[0], argv[1:]...)})
//
// The server is started when the client initializes, so that each side is
// offered what the other offers: the client sees the server's tools,
// resources (list, templates, read, subscribe), prompts, completion and
// logging; the server is offered sampling only when the client offers
// it, and never roots (path decisions depend on the server's fixed
// roots) or elicitation. Progress and log notifications are forwarded.
// Everything the server sends that a model reads is screened like a tool
// result (see Defenses).
//
// Every tools/call is mapped to catalog actions (Map: a static, ordered
// table of tool shapes — a command argument is execute_command, a path is
// read_file, or write_file/edit_file/delete_file/… when the tool name says
// so, a list of edits is one edit_file each, a list of paths one read_file
// each, a url is http_request; anything else is mcp_call with its
// arguments) and judged by the gate. Paths are placed the way the server
// places them: ~ is the server's HOME, a relative path resolves against
// the server's roots (Roots: server-filesystem's allowed directories,
// learned from its command line with its rule for several roots, or
// --root, which for server-filesystem must name the same directories:
// ServerRoots), and a relative path with no known base is blocked
// (mcp_relative_path) with a reason naming --root. A file URL is read
// once, by one judgement (fileURL, over action.ParseFileURL), whether
// it is a tool's argument or the URI of resources/read or
// resources/subscribe: what every URL parser a server may use reads
// alike is normalised as a WHATWG parser does (spaces and control
// characters before it, tabs and newlines anywhere, the scheme in any
// case, file:/x, a localhost host, escapes) and judged as its path;
// what they read differently is refused, never forwarded (a host, . or
// .. segments, which a server may resolve through a link, a backslash,
// query, fragment, trailing space, escaped slash or control character,
// which some parsers keep in the name); as a tool argument,
// server-filesystem, which knows no URLs, gets it placed as the
// relative path it takes it for. Server-filesystem opens a name missing as
// written as the entry equal to it in Unicode NFC ("cafe\u0301" is
// "café", "Key" is "\u212aey"), links included: the gate judges that
// entry (Roots.OnDisk); for any other server (it may be server-
// filesystem behind a wrapper) such a name is refused. ALLOW forwards
// the call, after Chronicle
// snapshots what its mapped actions write, edit, move or delete inside
// the workspace (a snapshot that fails refuses it; an unknown tool's
// path arguments are judged, not snapshotted); BLOCK
// returns a tool error carrying the rule and reason; ESCALATE is approved
// when the tool is trusted in advance (Config.TrustTools, --trust-tool,
// or a trust stored by `parallax mcp trust` for the tool's current
// definition), else asked of a human through the approval broker
// (Config.Approver: in the CLI the terminal, /dev/tty, since stdin and
// stdout carry MCP; grants, hourly cap and timeout as the broker does
// them), else blocked with "needs approval; no approval channel" and
// the exact trust command. The result is screened (Screen) and recorded
// for the session (gate.Observe) before the client sees it.
//
// A tool whose arguments fit no shape is judged by its pinned
// definition (toolFacts): annotated readOnlyHint true and openWorldHint
// false (explicitly; the specification's default is open world), with
// no path or URL in its schema or arguments and a name that does not say
// it changes or sends something (mutatingVerbs), it cannot send or change
// anything and the proxy allows it (mcp_local_read_only, audited), also
// in a tainted session. Anything else escalates saying "Parallax does
// not know what tool X of server S does", and stays an outbound sink for
// information-flow control (a tainted session cannot use it).
//
// One proxy process is one gate session (Config.Session; the CLI takes
// --session or makes a random "mcp-<16 hex>"), so what one call returned
// taints the next. With a workspace the session, its taint and the audit
// chain live in the workspace and are shared with hooks and other proxies.
//
// Defenses:
//   - Trust lifts escalations only. approve never sees a BLOCK, and
//     every path-like argument of an mcp_call (absolute, ~, ./, ../,
//     a file URL, anything under a path-named key, a value with a slash
//     or a leading dot under target, destination, output and the like,
//     at any depth) is also judged as a write_file there, so the guard,
//     the denylist and the protected files apply to trusted and unknown
//     tools alike.
//   - Fail closed. Arguments that are not a JSON object, or that name a
//     key twice (the server might read the other one), are blocked. An
//     escalation nobody can approve is blocked; a timeout is a denial. A
//     result whose taint cannot be recorded is withheld. When the tool
//     list cannot be checked against the pins, every tool is held. An
//     approval that cannot be audited is a BLOCK.
//   - What is judged is what is forwarded: the proxy forwards the exact
//     argument bytes it mapped (null becomes {} for both).
//   - Mapping never judges looser than the truth: a tool whose name says
//     it changes or sends something (truncate, post, run, …) is not mapped
//     to a read; it stays an mcp_call. Arguments a shape does not explain
//     are judged too, as an mcp_call, when they could matter (structures,
//     long strings, path-, URL- or address-like strings, DLP findings);
//     the worse verdict wins.
//   - Tool pinning (rug pulls). Each tool's canonical definition, all
//     the proxy serves of it (name, title, description, input and output
//     schemas, annotations, _meta, icons; JSON with sorted keys; a test
//     fails when the SDK's Tool grows a field the hash does not cover),
//     is hashed (SHA-256) and pinned per server identity in
//     .parallax/mcp/pins.json (0600, atomic rename, flock across
//     processes) on first sight, audited. A changed definition is held:
//     the client sees a placeholder with no word of the new text, calls
//     are blocked with "tool changed since pinned; run `parallax mcp pins
//     approve SERVER TOOL`", until a human approves it. Added and removed
//     tools are reported. The list is re-checked on every tools/list and
//     on the server's list_changed notification, and a held tool is
//     re-checked when called, so an approval takes effect at once. A pin
//     from before the output schema, _meta and icons were pinned
//     (hash_version absent) is carried over once, with its trust, when
//     the rest is unchanged and those read as no orders (repinned,
//     audited); a pin made since covers their absence too.
//   - Tool poisoning. Definitions (title, description, the annotations'
//     title, every key and string of the input and output schemas, _meta
//     and icons) and the server's instructions pass the injection rule
//     table: a flagged tool is held (even on first sight) until approved;
//     flagged instructions are dropped. Audited as IntegrityViolation.
//     The table's rules for definitions also flag definitions that steer
//     the model's choice of tools or hide what they say: claims of
//     priority or exclusivity over the client's other tools ("always use
//     this tool instead of …", "do not use the filesystem tool";
//     tool_priority), HTML comments (html_comment), zero-width and bidi
//     format characters (hidden_format), <IMPORTANT>-style tags.
//   - Tool shadowing. A tool not pinned for this server whose name is
//     pinned in the workspace for another server (of another software, by
//     the name it gave at initialize) is held the same way
//     (tool_shadowing) until approved; one server listing a name twice
//     fails the whole list.
//   - Results. Every channel of a tool result passes DLP: texts, the
//     keys and values of structured content, the _meta of the result and
//     of each content item, annotations, resource links' fields,
//     embedded resources' text and blobs, image and audio data (blobs
//     and media are scanned as the decoded bytes). Redact findings are
//     masked in place; in binary data, which cannot be masked without
//     corrupting it, they withhold that item. A Block finding (private
//     keys, …) anywhere withholds the whole result, as does a value that
//     cannot be screened or content of an unknown kind. The session is
//     tainted by everything the result carried before redaction (the
//     tool read it; the gate cannot know what else in the result was
//     sensitive). Results that read as orders to the agent ("ignore
//     previous instructions", role overrides, system-prompt tags,
//     exfiltration orders, "do not tell the user", invisible Unicode tag
//     text, in any text channel including _meta and keys) get a warning
//     line first and an audit entry.
//   - Beyond tools. Resource contents, prompt messages, log and progress
//     messages pass the same screener (masked, withheld, flagged,
//     audited); resource reads and prompts taint the session, as do log
//     and progress messages DLP finds something in. A file URI of
//     resources/read or resources/subscribe is judged as a read_file of
//     its path before it is sent (the same judgement as a tool's file
//     URL, above: an odd spelling is normalised or refused, never
//     forwarded unjudged); other URIs are the server's own namespace,
//     recorded as an mcp_call of resources/read. Listings of resources,
//     templates and prompts pass DLP, and an item whose text reads as
//     orders keeps only its name.
//     A sampling request is masked and refused when it holds what DLP
//     withholds or reads as orders in any message of any role; the
//     server wrote every turn, so an assistant turn (prefilled last, or
//     earlier as the model's history) or a system prompt claiming the
//     user's approval ("Approved by the user…", "I have permission…";
//     the approval_claim rule, ScopeTurn) refuses it too. It never asks
//     for other servers' context (includeContext is dropped), and the
//     model's answer passes DLP on its way back. Experimental
//     capabilities are not forwarded.
//   - No orphans. The server runs in a process group of its own
//     (ProcessTransport): when the client goes away or the proxy is told
//     to stop, its stdin is closed, then the group gets SIGTERM, then
//     SIGKILL at 1.5 s, so the server and whatever it started (npx →
//     node) are gone within 2 s. A process that leaves the group
//     (setsid) or a proxy killed with SIGKILL is beyond this.
//
// Injection rules (InjectionRules) form one static table; each rule
// carries positive and negative examples that the tests run, and a
// corpus of benign tool output must stay unflagged.
package mcpproxy
