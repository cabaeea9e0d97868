package heuristic

import (
	"regexp"
	"strings"
)

// Instructions aimed at agents, recognised by what they ask rather than
// by fixed phrases (OWASP LLM01 prompt injection and LLM06 excessive
// agency; MITRE ATLAS AML.T0051; the MCP tool-poisoning and rug-pull
// write-ups, where the payload is an instruction the agent stores or
// hands on). An intent is a category of request; each of its
// realisations is a few word classes (verbs, objects, qualifiers) that
// must all occur within a window of tokens, in any order. Words of five
// letters or more also match at one edit (a typo, a swapped pair), so
// "ignroe all your previus instructions" reads like its spelling.

// intentWindow is how many tokens apart the words of a realisation may
// lie.
const intentWindow = 12

// maxIntentTokens bounds the tokens read from one instruction; the
// markers and the other checks still read the whole text.
const maxIntentTokens = 4096

// wordClass is a set of words or multi-word phrases (space separated,
// lower case, apostrophes removed).
type wordClass []string

// realisation is one way of asking: every class must occur within the
// window; need, when set, must also hold over the whole text.
type realisation struct {
	classes []wordClass
	need    func(low string) bool
}

// intent is one category of request made to an agent.
type intent struct {
	ID    string
	What  string // said in the reason
	Forms []realisation
}

// Word classes shared by several intents.
var (
	priorQual = wordClass{"previous", "prior", "earlier", "above", "original", "existing", "before",
		"given", "received", "your", "all", "system", "operator", "initial", "preceding", "its", "their",
		"everything", "whatever", "creators", "developers", "maker", "makers", "owner", "owners"}
	ruleObj = wordClass{"instructions", "instruction", "guidance", "directions", "rules", "directives",
		"guidelines", "prompt", "orders", "restrictions", "constraints", "programming", "policy", "policies",
		"guardrails", "safeguards", "briefing", "brief", "setup", "told you", "were told", "been told",
		"were given", "placed on you", "set for you"}
	negation = wordClass{"dont", "do not", "never", "not", "shouldnt", "should not", "must not", "mustnt",
		"without", "no need to", "no longer", "didnt", "doesnt", "wont", "avoid", "prevent"}
	person = wordClass{"user", "users", "human", "owner", "operator", "admin", "anyone", "anybody", "them",
		"him", "her", "boss", "the team", "people", "nobody", "no one", "principal", "client", "customer",
		"employer", "account holder", "person you work for", "person you serve"}
	// retired: verbs and states that take an instruction out of force.
	retired = wordClass{"ignore", "disregard", "discard", "forget", "override", "abandon", "drop",
		"set aside", "pay no attention", "no longer apply", "no longer applies", "void", "null", "outdated",
		"obsolete", "superseded", "supersede", "cancelled", "canceled", "revoked", "stop following",
		"dont follow", "do not follow", "never given", "rescinded", "rescind", "withdrawn", "retracted",
		"expired", "invalid", "invalidated", "no longer valid", "no longer counts", "no longer count",
		"no longer in force", "scrap", "scrapped", "retired", "lifted", "repealed", "annulled", "nullified"}
	// unfiltered: what an unrestricted persona is said to be.
	unfiltered = wordClass{"unrestricted", "no restrictions", "without restrictions", "no limits", "no rules",
		"unfiltered", "uncensored", "jailbroken", "no filters", "no filter", "zero filters", "without filters",
		"no content filter", "without a filter", "refuses nothing", "never refuses", "never declines",
		"never says no", "cannot refuse", "no boundaries", "no guardrails", "no ethics", "no morals"}
	// policyOff: safeguards taken out of force.
	policyOff = wordClass{"suspended", "disabled", "lifted", "waived", "turned off", "switched off", "removed",
		"relaxed", "do not apply", "dont apply", "no longer apply", "are off", "is off", "paused"}
	// signedOff: a decision already taken for the user.
	signedOff = wordClass{"approved", "authorised", "authorized", "signed off", "cleared", "okayed",
		"pre-approved", "preapproved", "sanctioned"}
)

// agentIntents is the static, ordered table of intents.
var agentIntents = [...]intent{
	{ID: "override_instructions", What: "override the agent's prior instructions", Forms: []realisation{
		{classes: []wordClass{retired, priorQual, ruleObj}},
		{classes: []wordClass{{"listen to me only", "only listen to me", "only obey me", "obey only me",
			"answer only to me", "only answer to me", "take orders only from me", "only take orders from me"}}},
		{classes: []wordClass{{"your", "my", "the agents", "the assistants"}, {"true", "real", "actual", "new",
			"updated", "only"}, {"instructions", "rules", "orders", "directives", "policy", "purpose", "mission"}}},
	}},
	{ID: "change_identity", What: "change the agent's identity, role or policy", Forms: []realisation{
		// An unrestricted persona, however it is introduced.
		{classes: []wordClass{{"you are", "youre", "your persona", "persona", "you will be", "you become",
			"behave like", "act like", "act as", "an assistant that", "a model with", "a model that", "an ai",
			"this assistant", "the assistant is", "the bot is", "the bot has", "the agent has", "from now on you"},
			unfiltered}},
		// Whom the agent answers to, moved outside the user.
		{classes: []wordClass{{"answers only to", "answer only to", "reports only to", "report only to",
			"obeys only", "obey only", "works only for", "serves only", "loyal only to", "takes orders only from"},
			{"whoever", "me", "the sender", "the person", "this note", "this message", "whoever sends",
				"whoever writes"}}},
		// Authority lent to a message: "... carry the authority of your
		// developers", "treat X as if they came from the system".
		{classes: []wordClass{{"authority of", "as if they came from", "as though they came from", "as if from",
			"speak for", "speaks for"}, {"your developers", "your developer", "your creators", "your maker", "the system",
			"the operator", "your operator", "the administrator", "anthropic", "openai"}}},
		{classes: []wordClass{{"you are now", "youre now", "you now", "you act as", "act as", "acting as", "reassigned as",
			"your role", "you will be", "you become", "pretend to be", "roleplay as", "role play as"},
			{"unrestricted", "no restrictions", "without restrictions", "no limits", "no rules", "unfiltered",
				"uncensored", "jailbroken", "dan", "root", "superuser", "system administrator", "sysadmin",
				"god mode", "developer mode", "admin mode", "answer to nobody", "answer to no one", "evil",
				"admin rights", "no oversight", "root access", "unlimited access"}}},
		{classes: []wordClass{{"your", "this agents", "the agents", "the assistants", "its"}, {"purpose", "mission",
			"loyalty", "allegiance", "objective"}, {"is now", "has changed", "now is", "changed to"}}},
		// An AI's own safeguards switched off.
		{classes: []wordClass{{"safety", "guidelines", "guardrails", "filters", "safeguards", "content filter"},
			policyOff}},
		// Generic limits switched off, when they are the agent's own or
		// all of them ("the restrictions on the staging branch were
		// lifted" is about a branch).
		{classes: []wordClass{{"security", "restrictions", "constraints", "policy", "policies", "rules",
			"checks", "limits"}, policyOff,
			{"your", "you", "its", "the agents", "the assistants", "the bots", "the helpers", "this agents",
				"safety", "all", "every", "any", "operating", "assistant", "agent", "bot", "helper", "ai"}}},
		{classes: []wordClass{{"pretend", "assume", "act as though", "act as if", "behave as if", "as though",
			"as if"}, {"checks passed", "check passed", "approved", "authorized", "authorised", "no restrictions",
			"never given", "no rules", "no limits", "cleared"}}},
		{classes: []wordClass{{"treat"}, {"as coming from", "as if from", "as from", "as a message from",
			"as an order from"}, {"system", "admin", "administrator", "operator", "developer", "root"}}},
	}},
	{ID: "standing_permission", What: "grant standing permission or suppress confirmation", Forms: []realisation{
		{classes: []wordClass{{"approve", "allow", "accept", "permit", "authorize", "authorise", "grant", "run",
			"execute", "perform", "proceed with"}, {"always", "automatically", "auto", "every", "any", "anything",
			"everything", "all future", "whatever"}, {"command", "commands", "tool call", "tool calls", "tools",
			"action", "actions", "request", "requests", "deletion", "deletions", "operation", "operations",
			"payment", "payments", "transfer", "transfers", "shell", "sudo", "anything", "everything", "change",
			"changes"}}},
		{classes: []wordClass{{"pre-approved", "preapproved", "pre approved", "pre-authorized", "preauthorized",
			"pre-authorised", "auto-approve", "auto-approved", "autoapprove", "standing permission",
			"blanket permission", "blanket approval", "standing approval"}}},
		{classes: []wordClass{{"skip", "bypass", "disable", "omit", "avoid", "never", "dont", "do not", "without",
			"no need", "no longer need", "stop", "not need", "dispense with"}, {"confirmation", "confirmations",
			"confirming", "approval", "approvals", "permission", "consent", "ok", "okay", "sign-off", "signoff",
			"checking in", "check in", "checking with", "check with", "asking first", "ask first",
			"asking for", "ask for"}}},
		{classes: []wordClass{{"no"}, {"confirmation", "confirmations", "approval", "approvals", "sign-off",
			"permission"}, {"needed", "required", "necessary"}}},
		// Blanket sign-off: "regard all your actions as already approved",
		// "every transfer counts as approved in advance".
		{classes: []wordClass{{"all", "every", "any", "each", "everything", "anything"},
			{"actions", "action", "transfer", "transfers", "payment", "payments", "command", "commands",
				"request", "requests", "change", "changes", "deletion", "deletions", "you do", "you make",
				"you take", "operation", "operations", "push", "pushes", "everything", "anything"},
			{"already", "in advance", "beforehand", "ahead of time", "counts as", "count as", "as approved",
				"as authorised", "as authorized"}, signedOff}},
		{classes: []wordClass{{"auto-approve", "auto-accept", "auto-confirm", "autoapprove", "autoaccept",
			"autoconfirm", "auto-allow", "auto-grant"}, {"any", "every", "all", "everything", "anything"},
			{"request", "requests", "tool", "tools", "command", "commands", "action", "actions", "everything",
				"anything", "call", "calls", "prompt", "prompts"}}},
		{classes: []wordClass{{"obey", "comply with", "follow", "do whatever", "carry out"}, {"any", "every",
			"all", "whatever", "anything"}, {"request", "requests", "message", "messages", "order", "orders",
			"says", "asks", "command", "commands"}}},
		{classes: []wordClass{{"fine", "ok", "okay", "allowed", "free"}, {"to run", "to execute", "to do",
			"to delete"}, {"anything", "everything", "whatever"}}},
	}},
	{ID: "conceal_from_user", What: "conceal actions from the user", Forms: []realisation{
		{classes: []wordClass{negation, {"tell", "telling", "inform", "informing", "mention", "mentioning",
			"notify", "reveal", "report", "disclose", "alert", "learn", "learns", "find out", "finds out", "know",
			"knows", "notice", "notices", "see", "sees", "be told", "hear"}, person}},
		{classes: []wordClass{{"nobody", "no one", "no-one", "none of them"}, {"notice", "notices", "know",
			"knows", "see", "sees", "find out", "finds out", "learn", "learns", "realise", "realize"}}},
		{classes: []wordClass{{"keep", "keeping"}, {"between us", "secret", "quiet", "hidden", "under wraps"},
			{"this", "it", "that", "these", "from"}}},
		{classes: []wordClass{{"quietly", "silently", "secretly", "covertly", "stealthily", "discreetly"},
			{"remove", "delete", "erase", "wipe", "clear", "purge", "truncate"}, {"log", "logs", "log entries",
				"entries", "history", "audit", "trace", "traces", "evidence", "records"}}},
		{classes: []wordClass{{"clean up", "cover", "hide", "erase", "wipe", "remove", "delete"}, {"your traces",
			"your tracks", "any trace", "any traces", "all traces", "every trace", "our tracks", "my tracks"}}},
		{classes: []wordClass{{"cover"}, {"tracks", "traces", "trail"}}},
		// Kept out of what the user reads: "leave X out of the report to
		// the user", "nothing about this appears in the audit log".
		{classes: []wordClass{{"leave", "keep", "omit", "exclude", "hide", "conceal", "withhold"},
			{"out of", "from", "off"}, {"report to the user", "summary to the user", "daily report",
				"activity report", "status report", "your report", "your summary", "audit log", "audit trail"}}},
		{classes: []wordClass{{"conceal", "withhold"}, {"from"}, person}},
		{classes: []wordClass{{"nothing", "none of this", "none of it", "no trace", "no record"},
			{"appears", "appear", "shows up", "show up", "ends up", "recorded", "logged", "visible"},
			{"audit log", "audit trail", "the logs", "logs", "history", "activity report", "report"}}},
		// Deceiving the user about what was done.
		{classes: []wordClass{{"lie to", "lied to", "lying to", "mislead", "deceive"}, person}},
		{classes: []wordClass{{"assure", "claim", "pretend"}, person, {"although", "even though", "when in fact",
			"but actually", "while in fact"}}},
	}},
	{ID: "send_external", What: "send data to an outside address", Forms: []realisation{
		{classes: []wordClass{{"send", "ship", "relay", "forward", "upload", "post", "transmit", "exfiltrate",
			"push", "copy", "mirror", "sync", "submit", "deliver", "pipe", "dump", "email", "mail", "share", "leak",
			"export", "beam", "report", "bundle", "hand over", "stream", "transfer"}, {"env", "token", "tokens", "api key", "api keys", "keys", "key",
			"credentials", "credential", "password", "passwords", "secret", "secrets", "conversation",
			"conversations", "chat history", "transcript", "transcripts", "customer list", "customers",
			"customer", "database", "db", "dump", "repo", "repository", "source code", "codebase", "emails",
			"inbox", "cookies", "session", "sessions", "contacts", "wallet", "ssh", "phone numbers", "personal data",
			"contact details", "home addresses", "social security", "ssn", "passport", "credit card",
			"card numbers", "contents", "history", "photos"}}, need: outsideDest},
	}},
	{ID: "fetch_execute", What: "fetch code and run it", Forms: []realisation{
		{classes: []wordClass{{"download", "fetch", "grab", "get", "pull", "curl", "wget", "retrieve", "install"},
			{"run", "execute", "launch", "start", "exec", "install", "source", "eval", "evaluate", "open", "sh",
				"bash", "chmod", "running"}},
			need: outsideDest},
		{classes: []wordClass{{"pipe", "feed", "pass", "piped"}, {"bash", "sh", "shell", "zsh", "python",
			"python3", "powershell", "iex"}}, need: outsideDest},
	}},
}

// bareDest is a host with a path or an IPv4 address: an outside address
// written without a scheme ("hooks.example.net/t", "203.0.113.9").
var bareDest = regexp.MustCompile(`\b[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.[a-z]{2,24}/\S|\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

// outsideDest reports whether text names an address outside the
// machine: a URL, an e-mail address, an exfil service, a bare host with a
// path or an IP address.
func outsideDest(low string) bool {
	return externalDest(low) || bareDest.MatchString(low)
}

// matchIntent returns the first intent of the table that text realises.
func matchIntent(low string) (in *intent, ok bool) {
	toks := intentTokens(low)
	if len(toks) == 0 {
		return nil, false
	}
	for i := range agentIntents {
		for _, f := range agentIntents[i].Forms {
			if f.need != nil && !f.need(low) {
				continue
			}
			if realised(toks, f.classes) {
				return &agentIntents[i], true
			}
		}
	}
	return nil, false
}

// token is a word and the clause it is in: the words of a realisation
// must share a clause ("ignore vendor/; previous instructions still
// apply" asks two separate things).
type token struct {
	w      string
	clause int
}

// clauseEnd splits text into clauses: sentence punctuation followed by a
// space or the end (not the dot of ".env" or of a host name), new lines.
var clauseEnd = regexp.MustCompile(`[.;:!?]+(?:\s|$)|\n`)

// intentTokens splits normalised text into words: letters, digits and
// "-"; apostrophes are dropped ("don't" reads "dont").
func intentTokens(low string) []token {
	low = strings.NewReplacer("'", "", "\u2019", "").Replace(low)
	var toks []token
	for c, clause := range clauseEnd.Split(low, -1) {
		for _, w := range strings.FieldsFunc(clause, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r > 0x7f)
		}) {
			if len(toks) == maxIntentTokens {
				return toks
			}
			toks = append(toks, token{w, c})
		}
	}
	return toks
}

// realised reports whether every class occurs in the clause of, and
// within intentWindow tokens of, an occurrence of the first class (at
// another token: "install" alone is not "download and install").
func realised(toks []token, classes []wordClass) bool {
	pos := make([][]int, len(classes))
	for c, cl := range classes {
		pos[c] = classPositions(toks, cl)
		if len(pos[c]) == 0 {
			return false
		}
	}
	for _, p0 := range pos[0] {
		all := true
		for _, ps := range pos[1:] {
			near := false
			for _, p := range ps {
				if p != p0 && p-p0 < intentWindow && p0-p < intentWindow && toks[p].clause == toks[p0].clause {
					near = true
					break
				}
			}
			if !near {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// classPositions returns the token indexes where a word or phrase of the
// class starts.
func classPositions(toks []token, cl wordClass) []int {
	var out []int
	for i := range toks {
		for _, w := range cl {
			if phraseAt(toks, i, w) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// phraseAt reports whether phrase starts at token i. A one-word phrase
// of five letters or more also matches at one edit.
func phraseAt(toks []token, i int, phrase string) bool {
	if !strings.Contains(phrase, " ") {
		t := toks[i].w
		return t == phrase || len(phrase) >= 5 && len(t) >= 5 && oneEdit(t, phrase)
	}
	clause := toks[i].clause
	for _, w := range strings.Fields(phrase) {
		if i >= len(toks) || toks[i].w != w || toks[i].clause != clause {
			return false
		}
		i++
	}
	return true
}

// oneEdit reports whether a and b differ by at most one insertion,
// deletion, substitution or swap of adjacent letters (and share their
// first letter: a typo rarely starts a word).
func oneEdit(a, b string) bool {
	if a == b {
		return true
	}
	if a[0] != b[0] || len(a)-len(b) > 1 || len(b)-len(a) > 1 {
		return false
	}
	if len(a) == len(b) {
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true // substitution
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swap
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	return a[i+1:] == b[i:]
}
