package heuristic

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/inject"
	"github.com/parallax/parallax/shell"
)

// instructionText returns the instruction text of an action: a
// sub-agent's task, a message to an agent, a scheduled task, a memory.
func instructionText(a *action.Action) (field, text string) {
	switch p := a.Payload.(type) {
	case *action.CreateAgentPayload:
		return "task", p.Task
	case *action.AgentMessagePayload:
		return "message", p.Message
	case *action.CreateSchedulePayload:
		return "task", p.Task
	case *action.MemoryWritePayload:
		return "content", p.Content
	case *action.WriteFilePayload:
		if agentFile(p.Path) {
			return "content", p.Content
		}
	case *action.EditFilePayload:
		if agentFile(p.Path) {
			return "new", p.New
		}
	}
	return "", ""
}

// agentFiles are the workspace files an agent reads as its own
// instructions and memory (DESIGN §3), and the memory files an agent
// host loads: what is written there is an instruction too.
var agentFiles = map[string]bool{"AGENTS.md": true, "HEARTBEAT.md": true, "USER.md": true,
	"MEMORY.md": true, "SOUL.md": true, "IDENTITY.md": true, "CLAUDE.md": true, "CLAUDE.local.md": true,
	".cursorrules": true}

// agentFile reports whether p is such a file, a file of memory/, or a
// skill, sub-agent, command, rule or output style of Claude Code.
func agentFile(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return agentFiles[base] || strings.Contains(p, "/memory/") || hostDocFile(p)
}

// normText lowercases, folds typographic quotes and collapses white space
// so that markers match however they were typed.
func normText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case r == '\u2018' || r == '\u2019' || r == '\u02bc':
			r = '\''
		case r == '\u201c' || r == '\u201d':
			r = '"'
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff':
			continue // zero-width characters hide markers
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// injectionMarkers are phrases that try to override the agent's
// instructions or hide its actions from the user.
var injectionMarkers = [...]string{"ignore all previous instructions", "ignore previous instructions",
	"ignore all prior instructions", "ignore prior instructions", "ignore the above instructions",
	"ignore your instructions", "ignore all instructions", "ignore your previous instructions",
	"disregard all previous", "disregard previous instructions", "disregard the system prompt",
	"disregard your instructions", "disregard the above", "disregard your system prompt",
	"forget your instructions", "forget all previous instructions", "override your instructions",
	"you are now dan", "do anything now", "jailbreak mode", "developer mode enabled",
	"do not tell the user", "don't tell the user", "do not inform the user", "don't inform the user",
	"without telling the user", "without the user knowing", "hide this from the user",
	"without asking", "do not ask for confirmation", "don't ask for confirmation",
	"do not ask for permission", "don't ask for permission", "new system prompt", "system override",
	"bypass the approval", "bypass approval", "<|im_start|>system", "[system]",
	"treat every block as allow", "treat all blocks as allow", "treat block as allow",
	"gate has been disabled", "gate is disabled", "shield has been disabled", "shield is disabled",
	"open a reverse shell", "start a reverse shell", "spawn a reverse shell", "reverse shell to",
	"bind shell on", "install a keylogger", "install a backdoor", "add a backdoor"}

// gateVerbs and gateNouns: "disable the shield", "bypass parallax".
var gateVerbs = [...]string{"disable", "turn off", "bypass", "kill", "stop", "uninstall", "remove",
	"circumvent", "evade", "get around", "switch off", "deactivate", "tamper with", "delete"}
var gateNouns = [...]string{"parallax", "shield", "the gate", "security gate", "audit log", "the guard",
	"approval"}

// Objects of exfiltration requests. Strong objects are credential files
// and keys; weak objects are credentials in general.
var strongObjects = [...]string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "~/.ssh", ".ssh/",
	".aws/credentials", "~/.aws", ".env", "private key", "ssh key", ".netrc", ".git-credentials",
	"/etc/shadow", "seed phrase", "kubeconfig", ".kube/config", "credentials file", "credentials.json",
	".npmrc", ".pypirc", ".docker/config.json", "browser cookies", "saved passwords"}
var weakObjects = [...]string{"credential", "password", "secret", "token", "api key", "apikey",
	"the keys", "all keys", "access key", "passphrase", "cookies", "keychain", "wallet"}

// bulkObjects are wholesale data an instruction asks to move out.
var bulkObjects = [...]string{"all e-mails", "all emails", "every e-mail", "every email", "the inbox",
	"from the inbox", "users table", "all columns", "the database", "database dump", "all customer",
	"customer data", "confidential", "every api key", "all api keys", "contents of", "all files",
	"home directory", "them to", "it to", "the file to"}

// plantVerbs and persistObjects: "append this key to authorized_keys".
var plantVerbs = [...]string{"append", "add", "write", "insert", "copy", "put", "install"}
var persistObjects = [...]string{"authorized_keys", "crontab", "cron job", ".bashrc", ".zshrc",
	".profile", "sudoers", "rc.local", "systemd unit", "launchagents", "git hook", ".git/hooks"}

var sendVerbs = [...]string{"send", "upload", "post", "exfiltrate", "email", "mail", "forward",
	"transmit", "paste", "share", "curl", "scp", "transfer", "leak", "publish"}

// matchInstructionBlock fires on instructions to an agent that carry a
// prompt injection, ask to disable the gate, ask to send credentials out,
// or embed a shell command that tier 1 would block.
func matchInstructionBlock(in *Input) (string, bool) {
	field, text := instructionText(in.Action)
	if text == "" {
		return "", false
	}
	low := normText(text)
	for _, m := range injectionMarkers {
		if strings.Contains(low, m) {
			return "prompt-injection marker \"" + m + "\" in " + field, true
		}
	}
	if it, ok := matchIntent(low); ok {
		return field + " asks the agent to " + it.What + " (" + it.ID + ")", true
	}
	if strings.Contains(low, ".parallax") && !onlyKeptAway(low, ".parallax") {
		return field + " names the gate's .parallax directory", true
	}
	if v, n, ok := nearPair(low, gateVerbs[:], gateNouns[:], 40); ok {
		return field + " asks to " + v + " " + n, true
	}
	if v, o, ok := nearPair(low, sendVerbs[:], strongObjects[:], 80); ok {
		return field + " asks to " + v + " " + o, true
	}
	if o, v, ok := nearPair(low, strongObjects[:], sendVerbs[:], 80); ok && externalDest(low) {
		return field + " asks to " + v + " " + o, true
	}
	if v, o, ok := nearPair(low, sendVerbs[:], weakObjects[:], 60); ok && externalDest(low) {
		return field + " asks to " + v + " " + o + " to an outside address", true
	}
	if v, o, ok := nearPair(low, sendVerbs[:], bulkObjects[:], 60); ok && externalDest(low) {
		return field + " asks to " + v + " " + o + " to an outside address", true
	}
	if v, o, ok := nearPair(low, plantVerbs[:], persistObjects[:], 120); ok {
		return field + " asks to " + v + " to " + o, true
	}
	for _, span := range CodeSpans(text) {
		if d, ok := embeddedBlock(in, span); ok {
			return field + " embeds a blocked command (" + d + ")", true
		}
	}
	return "", false
}

// matchInstructionReview fires on instructions that mention credentials
// or send data to an outside address: whether that is the user's intent
// is for a judge or a human.
func matchInstructionReview(in *Input) (string, bool) {
	field, text := instructionText(in.Action)
	if text == "" {
		return "", false
	}
	low := normText(text)
	for _, list := range [...][]string{strongObjects[:], weakObjects[:]} {
		for _, o := range list {
			if hasWord(low, o) {
				return field + " mentions " + strings.TrimSpace(o), true
			}
		}
	}
	if _, _, ok := nearPair(low, sendVerbs[:], []string{"http://", "https://", "@"}, 80); ok {
		return field + " sends data to an outside address", true
	}
	return "", false
}

// nearPair finds a verb (at a word start) followed within dist bytes by
// an object.
func nearPair(low string, verbs, objects []string, dist int) (verb, object string, ok bool) {
	for _, v := range verbs {
		for off := 0; ; {
			i := strings.Index(low[off:], v)
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			if i > 0 && isWordByte(low[i-1]) {
				continue
			}
			end := min(len(low), i+len(v)+dist)
			window := low[i+len(v) : end]
			for _, o := range objects {
				if strings.Contains(window, o) {
					return v, o, true
				}
			}
		}
	}
	return "", "", false
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

// hasWord finds w with word boundaries ("tokens" counts, "tokenizer" not).
func hasWord(low, w string) bool {
	for off := 0; ; {
		i := strings.Index(low[off:], w)
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		if i > 0 && isWordByte(low[i-1]) && isWordByte(w[0]) {
			continue
		}
		j := i + len(w)
		if j < len(low) && low[j] == 's' {
			j++
		}
		if j < len(low) && isWordByte(low[j]) && isWordByte(w[len(w)-1]) {
			continue
		}
		return true
	}
}

// externalDest reports whether text names an outside address: a URL, an
// e-mail address, or an exfil service.
func externalDest(low string) bool {
	if strings.Contains(low, "http://") || strings.Contains(low, "https://") {
		return true
	}
	if i := strings.IndexByte(low, '@'); i > 0 && i+1 < len(low) && isWordByte(low[i-1]) &&
		strings.IndexByte(low[i:], '.') > 0 {
		return true
	}
	for _, s := range exfilServices {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// Bounds on embedded command analysis.
const (
	maxSpans    = 16
	maxSpanSize = 4096
)

// CodeSpans extracts what reads as shell code in prose: fenced blocks,
// inline backtick spans, "$ cmd" lines, and the rest of a line after
// "run:", "execute:" or "command:" (also without a trailing aside in
// parentheses: "run: make deploy (for the timeline)"). A span the text
// orders not to run ("never run `…`", "don't type `…`") is left out.
func CodeSpans(text string) []string {
	var out []string
	add := func(at int, s string) {
		s = strings.TrimSpace(s)
		if s == "" || len(s) > maxSpanSize || len(out) >= maxSpans || slices.Contains(out, s) || negatedRun(text[:at]) {
			return
		}
		out = append(out, s)
	}
	for off := 0; ; {
		i := strings.Index(text[off:], "```")
		if i < 0 {
			break
		}
		i += off
		j := strings.Index(text[i+3:], "```")
		if j < 0 {
			break
		}
		block := text[i+3 : i+3+j]
		if nl := strings.IndexByte(block, '\n'); nl >= 0 && !strings.ContainsAny(block[:nl], " |;&$") {
			block = block[nl+1:] // language tag
		}
		add(i, block)
		off = i + 3 + j + 3
	}
	for off := 0; ; {
		i := strings.IndexByte(text[off:], '`')
		if i < 0 {
			break
		}
		i += off
		if strings.HasPrefix(text[i:], "```") {
			j := strings.Index(text[i+3:], "```")
			if j < 0 {
				break
			}
			off = i + 3 + j + 3
			continue
		}
		j := strings.IndexByte(text[i+1:], '`')
		if j < 0 {
			break
		}
		add(i, text[i+1:i+1+j])
		off = i + 1 + j + 1
	}
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text) - at
		}
		line := text[at : at+end]
		t := strings.TrimSpace(line)
		lead := at + strings.Index(line, t)
		at += end + 1
		if strings.HasPrefix(t, "$ ") {
			add(lead, t[2:])
			continue
		}
		lt := strings.ToLower(t)
		for _, k := range [...]string{"run:", "execute:", "command:", "run the command", "run this:",
			"running:", "by running", "and run", "then run"} {
			if i := strings.Index(lt, k); i >= 0 {
				c := strings.Trim(t[i+len(k):], " :\"'`")
				add(lead+i, c)
				if a := trailingAside.ReplaceAllString(c, ""); a != c {
					add(lead+i, a)
				}
				break
			}
		}
	}
	return out
}

// trailingAside is a parenthetical after a command on a prose line.
var trailingAside = regexp.MustCompile(`\s+\([^()]*\)\s*[.!]?\s*$`)

// negatedRun reports whether the text before a span orders it not run:
// "never run", "don't execute", "do not type".
func negatedRun(before string) bool {
	b := strings.ToLower(strings.TrimRight(before, " \t:"))
	for _, v := range [...]string{"run", "execute", "exec", "type", "use", "paste"} {
		if w, ok := strings.CutSuffix(b, v); ok && (w == "" || !unicode.IsLetter(rune(w[len(w)-1]))) {
			return inject.Negated(w)
		}
	}
	return inject.Negated(b)
}

// embeddedBlock analyses one span as a command in the workspace and runs
// the BLOCK shell rules on it.
func embeddedBlock(in *Input, span string) (string, bool) {
	sub := Input{
		Action:    &action.Action{Type: action.ExecuteCommand, Payload: &action.ExecuteCommandPayload{Command: span}},
		Effects:   shell.Analyze(span, shell.Options{Cwd: in.Workspace, Home: in.Home}),
		Workspace: in.Workspace,
		Home:      in.Home,
	}
	for _, r := range index().embeddedShell {
		if d, ok := r.Match(&sub); ok {
			return r.ID + ": " + d, true
		}
	}
	return "", false
}

// keepAway is an order, right before a name, to leave it alone: "don't
// touch .parallax/", "stay out of .parallax", "never edit the .parallax
// files".
var keepAway = regexp.MustCompile(`(?:don't|don\x{2019}t|do not|never|avoid|stay out of|keep out of|keep away from|leave)\s+` +
	`(?:(?:touch|touching|modify|modifying|edit|editing|change|changing|write|writing|read|reading|open|opening|delete|` +
	`deleting|remove|removing|go|going|look|looking)\s+(?:(?:in|into|at|to|under|inside)\s+)?)?` +
	`(?:(?:the|any|anything|files?)\s+(?:(?:in|under|inside)\s+)?)*$`)

// onlyKeptAway reports whether every mention of name in low comes right
// after an order to leave it alone.
func onlyKeptAway(low, name string) bool {
	for off := 0; ; {
		i := strings.Index(low[off:], name)
		if i < 0 {
			return true
		}
		at := off + i
		if !keepAway.MatchString(low[max(0, at-80):at]) {
			return false
		}
		off = at + len(name)
	}
}
