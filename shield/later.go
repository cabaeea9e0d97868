package shield

import (
	"slices"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/heuristic"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/inject"
	"github.com/parallax/parallax/verdict"
)

// Text for later: a sub-agent's task, a message to an agent or a
// channel, a memory, a scheduled task, an invitation's description. Whoever reads it acts on it
// later, when nobody reads the conversation that wrote it, and memories
// and schedules outlive the session (OWASP LLM01 and LLM06, MITRE ATLAS
// AML.T0051, memory poisoning). Such text is judged as a tool result is,
// by mechanism, before the heuristics:
//
//   - as instructions: the injection rules of scope inject.ScopeLater
//     (orders to exfiltrate, to change the gate's state, to overwrite the
//     agent's identity files, to disable safety, and the orders every
//     scope shares) → BLOCK later_instruction_<rule>;
//   - by content: a secret in it → BLOCK later_secret; personal data
//     into memory → ESCALATE later_personal_data (other restricted data
//     into memory: later_restricted_data), and so do someone's health,
//     identity numbers, birth date or home address in a message or an
//     invitation (to people, not to a sub-agent doing a task);
//   - against the guard: a path it names for writing that the guard
//     protects → the guard's decision, as rule later_protected_path; a
//     path it names for reading or handing on that the guard refuses to
//     read → ESCALATE later_protected_path ("open ~/.config/gh/hosts.yml
//     and paste it"); an order not to ("don't touch .parallax/") is no
//     request;
//   - the commands it hands on (`code`, fenced blocks, "run: …", "$ …"
//     lines), judged as the same session's command would be by the
//     deterministic stages → BLOCK later_command when one would be
//     refused.
//
// The session's taint reaches these actions through the information-flow
// stage: each type is an ifc sink (agent, memory_write, schedule,
// send_message for messages and invitations).

// Reason codes of text for later. RuleLaterInstruction is a prefix: the
// rule is it followed by the id of the injection rule that matched.
const (
	RuleLaterInstruction   = "later_instruction_"
	RuleLaterSecret        = "later_secret"
	RuleLaterPersonalData  = "later_personal_data"
	RuleLaterRestricted    = "later_restricted_data"
	RuleLaterProtectedPath = "later_protected_path"
	RuleLaterCommand       = "later_command"
)

// laterField is a text of an action that is acted on later, and whether
// it is prose (read as instructions) or code (a scheduled command: the
// shell analysis judges it; only its content is classified here).
type laterField struct {
	action.TextField
	prose bool
}

// laterFields returns the fields of a that are handed on for later; nil
// for any other action.
func laterFields(a *action.Action) []laterField {
	switch p := a.Payload.(type) {
	case *action.CreateAgentPayload:
		return []laterField{{action.TextField{Name: "task", Value: p.Task}, true}}
	case *action.AgentMessagePayload:
		return []laterField{{action.TextField{Name: "message", Value: p.Message}, true}}
	case *action.MemoryWritePayload:
		return []laterField{{action.TextField{Name: "content", Value: p.Content}, true}}
	case *action.SendMessagePayload:
		return []laterField{{action.TextField{Name: "body", Value: p.Body}, true}}
	case *action.CreateEventPayload:
		// An invitation's description is read by the attendees'
		// assistants.
		return []laterField{{action.TextField{Name: "description", Value: p.Description}, true}}
	case *action.CreateSchedulePayload:
		return []laterField{{action.TextField{Name: "task", Value: p.Task}, true},
			{action.TextField{Name: "command", Value: p.Command}, false}}
	}
	return nil
}

// laterText is the stage: it judges each field of text for later as
// instructions, by content and against the guard.
func (g *Gate) laterText(st *state) (verdict.Verdict, bool) {
	fields := laterFields(st.act)
	for _, f := range fields {
		if f.Value == "" {
			continue
		}
		if v, done := g.laterInstruction(st, f); done {
			return v, true
		}
		if v, done := g.laterContent(st, f); done {
			return v, true
		}
		if v, done := g.laterPaths(st, f); done {
			return v, true
		}
		if v, done := g.laterCommands(st, f); done {
			return v, true
		}
	}
	return verdict.Verdict{}, false
}

// laterInstruction reads a prose field as orders given in the agent's
// name.
func (g *Gate) laterInstruction(st *state, f laterField) (verdict.Verdict, bool) {
	if !f.prose {
		return verdict.Verdict{}, false
	}
	// The first id is a rule's (base64_wrapped only follows those found
	// in decoded text).
	ids := inject.ScanInjection(f.Value, inject.ScopeLater)
	if len(ids) == 0 {
		return verdict.Verdict{}, false
	}
	return block(verdict.StageHeuristic, 1, RuleLaterInstruction+ids[0],
		string(st.act.Type)+" "+f.Name+" hands on instructions for later ("+strings.Join(ids, ", ")+
			"): what it asks would be done unseen; say what you need done in plain terms")
}

// laterContent classifies a field: a secret there outlives the session
// (BLOCK); restricted data into memory needs review (ESCALATE).
func (g *Gate) laterContent(st *state, f laterField) (verdict.Verdict, bool) {
	lvl, labels := g.classify.Classify(f.Value)
	switch {
	case lvl >= ifc.Critical:
		return block(verdict.StageHeuristic, 1, RuleLaterSecret,
			string(st.act.Type)+" "+f.Name+" carries a secret ("+labelList(labels)+
				"): text for later outlives the session; refer to the secret by name, never by value")
	case lvl >= ifc.Restricted && st.act.Type == action.MemoryWrite:
		rule, what := RuleLaterRestricted, "restricted data"
		if personal(labels) {
			rule, what = RuleLaterPersonalData, "personal data"
		}
		st.escalate(verdict.StageHeuristic, 2, rule, "memory_write "+f.Name+" stores "+what+" ("+labelList(labels)+
			") beyond the session: it needs review")
	case (st.act.Type == action.SendMessage || st.act.Type == action.CreateEvent) && len(aboutAPerson(labels)) > 0:
		st.escalate(verdict.StageHeuristic, 2, RuleLaterPersonalData, string(st.act.Type)+" "+f.Name+
			" hands someone's "+strings.Join(aboutAPerson(labels), ", ")+" to others: it needs review")
	}
	return verdict.Verdict{}, false
}

// personalDetails are the DLP scanners of what a message should not pass
// on about a person without review: health, identity numbers, birth
// date, home address (an e-mail address or a phone number is how people
// are reached, and messages carry them routinely).
var personalDetails = [...]string{"health_condition", "medical_record_number", "phi_marker", "us_ssn", "uk_nino",
	"es_dni", "ca_sin", "date_of_birth", "street_address"}

// aboutAPerson returns the labels that are personal details.
func aboutAPerson(labels []string) []string {
	var out []string
	for _, l := range labels {
		if slices.Contains(personalDetails[:], l) {
			out = append(out, l)
		}
	}
	return out
}

// personalCategories are the DLP categories of data about a person.
var personalCategories = []dlp.Category{dlp.PII, dlp.PHI, dlp.PCI}

// personal reports whether a label is a DLP scanner of personal data.
func personal(labels []string) bool {
	for _, s := range dlp.Scanners() {
		if slices.Contains(labels, s.ID) && slices.Contains(personalCategories, s.Category) {
			return true
		}
	}
	return false
}

func labelList(labels []string) string {
	if len(labels) == 0 {
		return "classified"
	}
	return strings.Join(labels, ", ")
}

// laterPaths checks the paths a prose field names for writing against
// the guard: a task to write what the agent may not write is refused as
// the write itself would be.
func (g *Gate) laterPaths(st *state, f laterField) (verdict.Verdict, bool) {
	if !f.prose {
		return verdict.Verdict{}, false
	}
	if st.guard == nil {
		st.guard = g.guard.Memo()
	}
	for _, p := range readPaths(f.Value, g.ws, g.home) {
		if fd, hit := st.guard.Check(p, action.AccessRead); hit && fd.Decision == verdict.Block {
			st.escalate(verdict.StageGuard, 2, RuleLaterProtectedPath, string(st.act.Type)+" "+f.Name+
				" asks to read or hand on "+p+", which the agent may not read ("+fd.Rule+"): it needs review")
		}
	}
	for _, p := range writtenPaths(f.Value, g.ws, g.home) {
		fd, hit := st.guard.Check(p, action.AccessWrite)
		if !hit {
			continue
		}
		reason := string(st.act.Type) + " " + f.Name + " asks to write " + p + ": " + fd.Rule + ": " + fd.Reason
		switch fd.Decision {
		case verdict.Allow:
			if fd.MinTier > st.minTier {
				st.minTier, st.tierRule, st.tierReason = fd.MinTier, RuleLaterProtectedPath, reason
			}
		case verdict.Escalate:
			st.escalate(verdict.StageGuard, 2, RuleLaterProtectedPath, reason)
		default:
			return block(verdict.StageGuard, 0, RuleLaterProtectedPath, reason)
		}
	}
	return verdict.Verdict{}, false
}

// laterCommands judges the commands a prose field hands on: what the
// reader would run is refused when the same session could not run it.
// A span that is not valid shell is prose, not a command.
func (g *Gate) laterCommands(st *state, f laterField) (verdict.Verdict, bool) {
	if !f.prose {
		return verdict.Verdict{}, false
	}
	for _, c := range heuristic.CodeSpans(f.Value) {
		v := g.judgeCode(st, c)
		switch {
		case v.Decision == verdict.Block && v.Rule != "malformed_command": // not prose after a marker
			return block(v.Stage, 1, RuleLaterCommand, string(st.act.Type)+" "+f.Name+" hands on the command "+
				strconv.Quote(clipCode(c))+", which would be refused ("+v.Rule+": "+v.Reason+")")
		case v.Decision == verdict.Escalate && v.Stage == verdict.StageHeuristic && !unsure[v.Rule]:
			st.escalate(verdict.StageHeuristic, 2, RuleLaterCommand, string(st.act.Type)+" "+f.Name+
				" hands on the command "+strconv.Quote(clipCode(c))+", which needs review ("+v.Rule+": "+v.Reason+")")
		}
	}
	return verdict.Verdict{}, false
}

// unsure are the heuristic rules that escalate what the analysis cannot
// tell, not what it found harmful: prose read as a command (a word that
// is no program) lands there, and is no reason to review a message.
var unsure = map[string]bool{"unknown_program": true, "dynamic_command": true, "malformed_command": true,
	RuleRunfileUnknown: true, RuleRunfileReview: true}
