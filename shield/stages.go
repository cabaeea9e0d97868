package shield

import (
	"path"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/heuristic"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// stage is one named step of the pipeline. run returns done=true when the
// stage decided.
type stage struct {
	name verdict.Stage
	run  func(g *Gate, st *state) (verdict.Verdict, bool)
}

// pipeline is the gate, in order (DESIGN §1). The last stage always decides.
var pipeline = []stage{
	{verdict.StageDecode, (*Gate).decode},
	{verdict.StageVerify, (*Gate).verify},
	{verdict.StageGuard, (*Gate).guardPayload},
	{verdict.StageFastPath, (*Gate).fastPath},
	{verdict.StageGuard, (*Gate).guardEffects},
	{verdict.StagePolicy, (*Gate).applyPolicy},
	{verdict.StageHeuristic, (*Gate).laterText},
	{verdict.StageHeuristic, (*Gate).heuristics},
	{verdict.StageHeuristic, (*Gate).runFiles},
	{verdict.StageHeuristic, (*Gate).manifestSources},
	{verdict.StageIFC, (*Gate).sessionDownloadExec},
	{verdict.StageIFC, (*Gate).flows},
	{verdict.StageJudge, (*Gate).judge},
}

func block(s verdict.Stage, tier int, rule, reason string) (verdict.Verdict, bool) {
	return verdict.Verdict{Decision: verdict.Block, Stage: s, Tier: tier, Rule: rule, Reason: reason}, true
}

func (g *Gate) decode(st *state) (verdict.Verdict, bool) {
	a, err := action.Decode(st.req.Type, st.req.Payload)
	if err != nil {
		return block(verdict.StageDecode, 0, RuleDecodeError, "cannot decode action: "+err.Error())
	}
	st.act = a
	return verdict.Verdict{}, false
}

func (g *Gate) verify(st *state) (verdict.Verdict, bool) {
	if err := action.Normalize(st.act, action.Env{Home: g.home}); err != nil {
		return block(verdict.StageVerify, 0, RuleBadPath, err.Error())
	}
	h, err := action.Hash(st.act)
	if err != nil {
		return block(verdict.StageVerify, 0, RuleInternalError, err.Error())
	}
	st.hash = h
	_, mkdir := st.act.Payload.(*action.CreateDirectoryPayload)
	for _, pf := range st.act.Payload.PathFields() {
		st.paths = append(st.paths, policy.PathRef{Path: *pf.Path, Access: pf.Access, Mkdir: mkdir})
	}
	if tree, ok := readTree(st.act); ok {
		st.paths = append(st.paths, policy.PathRef{Path: tree, Access: action.AccessRead, Glob: true})
	}
	st.hosts = payloadHosts(st.act)
	if p, ok := action.FileURLPath(st.act); ok {
		// file:// in a URL field is a read of that file.
		st.paths = append(st.paths, policy.PathRef{Path: p, Access: action.AccessRead})
	}
	return g.judgePlan(st)
}

// readTree returns "ROOT/**" for a typed action that reads a whole tree
// (a recursive listing, a search), so that the guard judges what the
// tree holds, as it does for find ~ or grep -r: listing or searching ~
// names what ~/.ssh holds. A root with glob characters is left to the
// check of the root itself.
func readTree(a *action.Action) (string, bool) {
	var root string
	switch p := a.Payload.(type) {
	case *action.ListDirectoryPayload:
		if !p.Recursive {
			return "", false
		}
		root = p.Path
	case *action.SearchFilesPayload:
		root = p.Path
	default:
		return "", false
	}
	if strings.ContainsAny(root, "*?[\\") {
		return "", false
	}
	return strings.TrimSuffix(root, "/") + "/**", true
}

// guardPayload checks the paths named in the payload.
func (g *Gate) guardPayload(st *state) (verdict.Verdict, bool) {
	if v, done := g.guardPaths(st, st.paths); done {
		return v, done
	}
	if p, ok := st.act.Payload.(*action.SearchFilesPayload); ok && !g.walksJudged {
		// A search reads every file below its path (the Claude Code Grep
		// and Glob tools run it with the user's rights).
		if tree, ok := readTree(st.act); ok {
			return g.guardInternals(st, tree, action.AccessRead, shell.SearchSelection(p.Pattern), false)
		}
	}
	return verdict.Verdict{}, false
}

func (g *Gate) guardPaths(st *state, refs []policy.PathRef) (verdict.Verdict, bool) {
	if st.guard == nil {
		st.guard = g.guard.Memo() // one view of the filesystem per decision
	}
	for _, p := range refs {
		var f guardFinding
		var hit bool
		switch {
		case p.Creates:
			f, hit = st.guard.CheckTreeWrite(p.Path, p.Access)
		case p.Glob:
			f, hit = st.guard.CheckGlob(p.Path, p.Access)
		case p.Mkdir && p.Access == action.AccessWrite:
			f, hit = st.guard.CheckMkdir(p.Path)
		default:
			f, hit = st.guard.Check(p.Path, p.Access)
		}
		if !hit {
			continue
		}
		if p.Split && f.Decision != verdict.Allow {
			f.Reason = splitReason(f.Reason)
		}
		switch f.Decision {
		case verdict.Allow:
			if f.MinTier > st.minTier {
				st.minTier = f.MinTier
				st.tierRule, st.tierReason = f.Rule, f.Reason
			}
		case verdict.Escalate:
			st.escalate(verdict.StageGuard, 2, f.Rule, f.Reason)
		default:
			return block(verdict.StageGuard, 0, f.Rule, f.Reason)
		}
	}
	return verdict.Verdict{}, false
}

// fastPath allows compiled-in safe commands without analysis, unless the
// policy denies them or asks for more than tier 1.
func (g *Gate) fastPath(st *state) (verdict.Verdict, bool) {
	p, ok := st.act.Payload.(*action.ExecuteCommandPayload)
	if !ok || !fastPathAllowed(p.Command) || st.minTier > 1 || g.tainted(st.ctx, st.req.Session) ||
		g.fastPathGuarded(st, p.Command) {
		return verdict.Verdict{}, false
	}
	res := g.policy.Evaluate(&policy.Input{Action: st.act})
	switch res.Effect {
	case policy.Deny:
		return block(verdict.StagePolicy, 0, res.Rule, res.Reason)
	case policy.Verify:
		if res.Tier > 1 {
			return verdict.Verdict{}, false
		}
	case policy.None, policy.Allow:
	}
	return verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StageFastPath, Rule: RuleFastPath,
		Reason: "routine command on the compiled-in safe list"}, true
}

// fastPathGuarded reports whether the guard has a finding (of any
// decision) on a word of a fast-path command that may name a file, read
// at the workspace: such a command goes to the full analysis.
func (g *Gate) fastPathGuarded(st *state, cmd string) bool {
	if st.guard == nil {
		st.guard = g.guard.Memo()
	}
	for _, name := range fastPathNames(cmd) {
		p := name
		if !path.IsAbs(p) {
			p = path.Join(g.ws, p)
		}
		if _, hit := st.guard.Check(p, action.AccessRead); hit {
			return true
		}
	}
	return false
}

// guardEffects analyses shell code and checks every path it touches.
func (g *Gate) guardEffects(st *state) (verdict.Verdict, bool) {
	code := action.ShellCode(st.act)
	if code == "" {
		return verdict.Verdict{}, false
	}
	st.effects = shell.Analyze(code, g.shellOptions(st.req))
	start := len(st.paths)
	for _, u := range st.effects.Paths {
		st.paths = append(st.paths, policy.PathRef{Path: u.Path, Access: u.Access, Glob: u.Glob, Mkdir: u.Mkdir && !u.Glob,
			Creates: u.Creates, Split: u.Split})
	}
	for _, n := range st.effects.Network {
		// Unknown destinations stay in as "": a domain allow rule must
		// not clear a command whose destination nobody knows.
		st.hosts = append(st.hosts, n.Host)
	}
	if v, done := g.guardPaths(st, st.paths[start:]); done {
		return v, done
	}
	for _, u := range st.effects.Paths {
		var sel guard.Selector
		switch {
		case u.Creates:
			continue // git writing content: CheckTreeWrite's review
		case u.Recursive && u.Select != nil:
			sel = u.Select
		case u.Recursive:
		case !u.Glob && treeReaders[u.Program] && u.Access&action.AccessRead != 0:
			// An archiver or a recursive copy reads a directory operand
			// whole (tar cf - . reaches .parallax/canary.token).
			u.Path = strings.TrimSuffix(u.Path, "/") + "/**"
		default:
			continue
		}
		if v, done := g.guardInternals(st, u.Path, u.Access, sel, u.Split); done {
			return v, done
		}
	}
	return verdict.Verdict{}, false
}

// splitReason explains a finding on a path that only a piece of a split
// name reaches (shell.PathUse.Split), and how to avoid the split.
func splitReason(reason string) string {
	return strings.TrimSuffix(reason, ".") + ": the file names reach the command through a channel that splits them" +
		" (xargs without -0, an unquoted $(...), read), so a planted name such as \"z .. q\" passes \"..\" to it;" +
		" use find ... -print0 | xargs -0 CMD, find ... -exec CMD {} + or find ... -delete"
}

// treeReaders are the programs that read a directory operand with
// everything below it (archivers, recursive copies and syncs): for
// CheckInternals their operands are trees.
var treeReaders = map[string]bool{
	"tar": true, "gtar": true, "bsdtar": true, "zip": true, "7z": true, "7za": true, "cp": true,
	"rsync": true, "scp": true, "cpio": true, "pax": true, "rclone": true,
}

// guardInternals judges what a recursive operation reaches in the
// workspace's .parallax when the executor does not hide it
// (Config.InternalsHidden, guard.CheckInternals).
func (g *Gate) guardInternals(st *state, pattern string, acc action.Access, sel guard.Selector, split bool) (verdict.Verdict, bool) {
	f, hit := st.guard.CheckInternals(pattern, acc, sel)
	if !hit {
		return verdict.Verdict{}, false
	}
	if split && f.Decision != verdict.Allow {
		f.Reason = splitReason(f.Reason)
	}
	switch f.Decision {
	case verdict.Allow:
		return verdict.Verdict{}, false
	case verdict.Escalate:
		st.escalate(verdict.StageGuard, 2, f.Rule, f.Reason)
		return verdict.Verdict{}, false
	}
	return block(verdict.StageGuard, 0, f.Rule, f.Reason)
}

// treeRoot returns ROOT for a recursive selection "ROOT/**" or
// "ROOT/**/NAME" with a literal root (find -exec {}, xargs fed by find).
func treeRoot(p string) (string, bool) {
	i := strings.Index(p, "/**")
	if i < 0 || (i+3 < len(p) && p[i+3] != '/') || strings.ContainsAny(p[:i], "*?[") {
		return "", false
	}
	if i == 0 {
		return "/", true
	}
	return p[:i], true
}

// policyPaths is what the policy sees of the touched paths. A recursive
// read is a read of its root: it is not a targeted read of each file
// below (the guard judges what the tree holds). Recursive writes stay
// patterns, so deny rules over-match them.
func policyPaths(refs []policy.PathRef, rootsOnly bool) ([]policy.PathRef, bool) {
	var out []policy.PathRef
	trees := false
	for i, r := range refs {
		root, ok := treeRoot(r.Path)
		ok = ok && r.Glob
		trees = trees || ok
		if !ok || (!rootsOnly && r.Access&^action.AccessRead != 0) {
			if out != nil {
				out = append(out, r)
			}
			continue
		}
		if out == nil {
			out = append(make([]policy.PathRef, 0, len(refs)), refs[:i]...)
		}
		acc := r.Access
		if rootsOnly {
			// A recursive change acts on what lies below its root, not on
			// the root itself: the root is only read here.
			acc = action.AccessRead
		}
		out = append(out, policy.PathRef{Path: root, Access: acc})
	}
	if out == nil {
		return refs, trees
	}
	return out, trees
}

// guardMirrored are the preset deny rules every path of which the
// guard's tables hold as well (guard/lists.go: SOUL.md, IDENTITY.md,
// skills/, the sealed .parallax directories). Any other deny rule a
// recursive change's pattern overlaps, a preset's included (credential
// stores the guard does not know, strict's no_deletions), is kept as an
// escalation. Keep in step with policy/presets and the guard's lists.
var guardMirrored = map[[2]string]bool{
	{"preset:default", "identity_files"}: true,
	{"preset:strict", "agent_state"}:     true,
}

func (g *Gate) applyPolicy(st *state) (verdict.Verdict, bool) {
	paths, trees := policyPaths(st.paths, false)
	res := g.policy.Evaluate(&policy.Input{Action: st.act, Paths: paths, Hosts: st.hosts, Effects: st.effects})
	if res.Effect == policy.Deny && trees {
		// A recursive change whose pattern overlaps a denied area: BLOCK
		// only if the roots themselves are denied, else it needs review.
		roots, _ := policyPaths(st.paths, true)
		if again := g.policy.Evaluate(&policy.Input{Action: st.act, Paths: roots, Hosts: st.hosts, Effects: st.effects}); again.Effect != policy.Deny {
			// Its area may be reached: a judge decides, unless the rule
			// is a preset's whose paths the guard's tables hold too (the
			// guard has judged those against what exists below the root).
			if !guardMirrored[[2]string{res.Source, res.Rule}] {
				st.escalate(verdict.StagePolicy, 2, res.Rule, "a recursive change could reach a denied area: "+res.Reason)
			}
			res = again
		}
	}
	st.pol = res
	switch res.Effect {
	case policy.Deny:
		return block(verdict.StagePolicy, 0, res.Rule, res.Reason)
	case policy.Verify:
		if res.Tier > st.minTier {
			st.minTier = res.Tier
			st.tierRule, st.tierReason = res.Rule, res.Reason
		}
	case policy.None:
		if st.minTier < 2 {
			st.minTier = 2
			st.tierRule = RuleNoPolicyMatch
			st.tierReason = "no policy rule covers " + string(st.act.Type) + "; it needs tier 2"
		}
	case policy.Allow:
	}
	return verdict.Verdict{}, false
}

func (g *Gate) heuristics(st *state) (verdict.Verdict, bool) {
	st.hin = heuristic.Input{Action: st.act, Effects: st.effects, Workspace: g.ws, Home: g.home,
		TempDir: g.shellOptions(st.req).Env["TMPDIR"]}
	f, ok := heuristic.Evaluate(&st.hin)
	if !ok {
		return verdict.Verdict{}, false
	}
	reason := f.Description
	if f.Detail != "" {
		reason += ": " + f.Detail
	}
	if f.Decision == verdict.Escalate {
		st.escalate(verdict.StageHeuristic, 2, f.ID, reason)
		return verdict.Verdict{}, false
	}
	return block(verdict.StageHeuristic, 1, f.ID, reason)
}

// judge is tier 2. What the earlier tiers escalated goes to the judge
// when one is configured (and does not ask for a human outright);
// without one it comes back ESCALATE. Everything else was cleared by
// tier 0/1.
func (g *Gate) judge(st *state) (verdict.Verdict, bool) {
	var esc *verdict.Verdict
	switch {
	case st.pending != nil:
		esc = st.pending
	case st.minTier >= 2:
		esc = &verdict.Verdict{Decision: verdict.Escalate, Stage: verdict.StagePolicy, Tier: st.minTier,
			Rule: st.tierRule, Reason: st.tierReason}
	}
	if esc != nil {
		if g.tier2 == nil || esc.Tier >= 3 {
			return *esc, true
		}
		return g.askJudge(st, esc), true
	}
	if st.pol.Effect == policy.Allow && st.effects == nil {
		return verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StagePolicy, Tier: 0,
			Rule: st.pol.Rule, Reason: st.pol.Reason}, true
	}
	reason := "no heuristic fired"
	if st.effects != nil {
		reason = "the command's effects are routine: no sensitive path, network egress of local data, or code execution found"
	}
	return verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StageHeuristic, Tier: 1,
		Rule: RuleRoutine, Reason: reason}, true
}

// askJudge hands an escalated action to tier 2 as data: its type and
// payload, what the earlier tiers found, the session's taint.
func (g *Gate) askJudge(st *state, esc *verdict.Verdict) verdict.Verdict {
	findings := []string{esc.Rule + ": " + esc.Reason}
	if st.tierRule != "" && st.tierRule != esc.Rule {
		findings = append(findings, st.tierRule+": "+st.tierReason)
	}
	taint := ifc.Critical.String() // unknown taint is judged as the worst
	if st.req.Session == "" {
		taint = ifc.Public.String()
	} else if lvl, _, err := g.ifc.Store().MaxTaint(st.ctx, st.req.Session); err == nil {
		taint = lvl.String()
	}
	return g.tier2.Evaluate(st.ctx, verdict.JudgeInput{Session: st.req.Session, Type: string(st.act.Type),
		Payload: st.req.Payload, Hash: st.hash, Findings: findings, Taint: taint})
}

func (st *state) escalate(s verdict.Stage, tier int, rule, reason string) {
	if st.pending != nil {
		return
	}
	st.pending = &verdict.Verdict{Decision: verdict.Escalate, Stage: s, Tier: tier, Rule: rule, Reason: reason}
}

// payloadHosts lists the hosts a typed action reaches. An unknown host
// stays in as "" (any host).
func payloadHosts(a *action.Action) []string {
	if u, ok := action.URLOf(a); ok {
		return []string{policy.HostOf(u)}
	}
	return nil
}

type guardFinding = guard.Finding
