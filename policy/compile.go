package policy

import (
	"fmt"
	"github.com/parallax/parallax/internal/glob"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/yamlfile"
	"github.com/parallax/parallax/shell"
)

// Keys accepted in deny/verify/allow entries and in rules: entries.
var (
	sectionKeys = []string{"name", "description", "action_types", "paths", "paths_outside",
		"access", "commands", "programs", "subcommands", "domains", "capabilities", "methods",
		"recursive", "tier", "fallback", "reason"}
	chainKeys = []string{"name", "description", "kind", "effect", "pattern", "priority",
		"tier", "action_types", "reason"}
)

var validName = lazyRE(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// ruleCtx collects the problems of one rule.
type ruleCtx struct {
	c    *compiler
	name string
	bad  bool
}

func (x *ruleCtx) fail(n *yaml.Node, format string, args ...any) {
	x.bad = true
	x.c.problem(n.Line, x.name, fmt.Sprintf(format, args...))
}

// rule compiles one entry of a section; nil when it has problems.
func (c *compiler) rule(sec section, idx int, n *yaml.Node) *rule {
	if n.Kind != yaml.MappingNode {
		c.problem(n.Line, "", fmt.Sprintf("%s[%d]: want a rule mapping, got %s", sec, idx, yamlfile.KindOf(n)))
		return nil
	}
	x := &ruleCtx{c: c}
	r := &rule{section: sec, source: c.file, line: n.Line, order: idx, recursive: -1}
	fields := map[string]*yaml.Node{}
	allowed := sectionKeys
	if sec == secRules {
		allowed = chainKeys
	}
	if nm := mapGet(n, "name"); nm != nil {
		x.name = nm.Value
	} else if sec == secRules {
		x.name = fmt.Sprintf("rules[%d]", idx)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !contains(allowed, k.Value):
			x.fail(k, "unknown key %q in %s rule (want one of %s)", k.Value, sec, strings.Join(allowed, ", "))
		case fields[k.Value] != nil:
			x.fail(k, "key %q given twice", k.Value)
		default:
			fields[k.Value] = v
		}
	}
	c.ruleName(x, r, sec, idx, n, fields["name"])
	if sec == secRules {
		c.chainFields(x, r, n, fields)
	} else {
		c.sectionFields(x, r, sec, n, fields)
	}
	if v := fields["description"]; v != nil {
		r.desc = x.str(v)
	}
	if v := fields["reason"]; v != nil {
		r.reason = x.str(v)
	}
	if v := fields["action_types"]; v != nil {
		r.typesWritten = x.strList(v)
		r.types = x.actionTypes(v, r.typesWritten)
	} else {
		r.types = action.Types()
	}
	if x.bad {
		return nil
	}
	return r
}

func (c *compiler) ruleName(x *ruleCtx, r *rule, sec section, idx int, n, v *yaml.Node) {
	switch {
	case v == nil && sec == secRules:
		r.name = fmt.Sprintf("rules[%d]", idx)
		x.name = r.name
		return
	case v == nil:
		x.fail(n, "%s[%d] has no name (every rule needs a unique name)", sec, idx)
		return
	}
	r.name = x.str(v)
	if r.name == "" {
		return
	}
	if !validName().MatchString(r.name) {
		x.fail(v, "name must be 1-128 letters, digits, '_', '.' or '-' starting with a letter or digit")
	}
	if line, dup := c.names[r.name]; dup {
		x.fail(v, "duplicate rule name (first defined at line %d)", line)
		return
	}
	c.names[r.name] = v.Line
}

func (c *compiler) sectionFields(x *ruleCtx, r *rule, sec section, n *yaml.Node, f map[string]*yaml.Node) {
	r.effect = [...]Effect{Deny, Verify, Allow}[sec]
	if v := f["tier"]; v != nil {
		if sec != secVerify {
			x.fail(v, "tier is only for verify rules")
		} else {
			r.tier = x.tier(v)
		}
	} else if sec == secVerify {
		x.fail(n, "verify rule needs a tier (1, 2 or 3)")
	}
	if v := f["fallback"]; v != nil {
		r.fallback = x.boolean(v)
	}
	if v := f["paths"]; v != nil {
		r.paths = x.globs(v)
	}
	if v := f["paths_outside"]; v != nil {
		r.outside = x.globs(v)
	}
	if v := f["access"]; v != nil {
		r.access = x.accessList(v)
	}
	r.pathCond = f["paths"] != nil || f["paths_outside"] != nil || f["access"] != nil
	if v := f["commands"]; v != nil {
		for _, s := range x.strList(v) {
			r.commands = append(r.commands, x.regex(v, s))
		}
	}
	if v := f["programs"]; v != nil {
		r.programs = x.programs(v)
	}
	if v := f["subcommands"]; v != nil {
		r.subcommands = x.strList(v)
		if f["programs"] == nil {
			x.fail(v, "subcommands need programs")
		}
	}
	if v := f["domains"]; v != nil {
		r.domains = x.domains(v)
	}
	if v := f["capabilities"]; v != nil {
		r.capabilities = x.capabilities(v)
	}
	if v := f["methods"]; v != nil {
		r.methods = x.methods(v)
	}
	if v := f["recursive"]; v != nil {
		r.recursive = 0
		if x.boolean(v) {
			r.recursive = 1
		}
	}
	conds := 0
	for _, k := range sectionKeys[2:13] {
		if f[k] != nil {
			conds++
		}
	}
	if conds == 0 {
		x.fail(n, `rule has no condition; write action_types: ["*"] to match every action`)
	}
}

func (c *compiler) chainFields(x *ruleCtx, r *rule, n *yaml.Node, f map[string]*yaml.Node) {
	if v := f["kind"]; v == nil {
		x.fail(n, "rules: entry needs a kind (tool, shell, domain, path or capability)")
	} else if s := x.str(v); s != "" {
		r.kind = kindNone
		for i, k := range kindNames[1:] {
			if s == k {
				r.kind = kind(i + 1)
			}
		}
		if r.kind == kindNone {
			x.fail(v, "unknown kind %q (want tool, shell, domain, path or capability)", s)
		}
	}
	if v := f["effect"]; v == nil {
		x.fail(n, "rules: entry needs an effect (deny, verify or allow)")
	} else if s := x.str(v); s != "" {
		e, ok := ParseEffect(s)
		if !ok || e == None {
			x.fail(v, "unknown effect %q (want deny, verify or allow)", s)
		}
		r.effect = e
	}
	if v := f["pattern"]; v == nil {
		x.fail(n, "rules: entry needs a pattern (a regular expression)")
	} else {
		r.pattern = x.regex(v, x.str(v))
	}
	if v := f["priority"]; v != nil {
		r.priority = x.integer(v)
	}
	switch v := f["tier"]; {
	case v != nil && r.effect != Verify:
		x.fail(v, "tier is only for effect verify")
	case v != nil:
		r.tier = x.tier(v)
	case r.effect == Verify:
		r.tier = 2
	}
}

func mapGet(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (x *ruleCtx) str(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		x.fail(n, "want a string, got %s (quote it)", yamlfile.KindOf(n))
		return ""
	}
	return n.Value
}

func (x *ruleCtx) strList(n *yaml.Node) []string {
	if n.Kind != yaml.SequenceNode {
		x.fail(n, "want a list of strings, got %s", yamlfile.KindOf(n))
		return nil
	}
	if len(n.Content) == 0 {
		x.fail(n, "empty list (leave the key out instead)")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		s := x.str(e)
		if s == "" && e.Kind == yaml.ScalarNode && e.Tag == "!!str" {
			x.fail(e, "empty string in list")
		}
		out = append(out, s)
	}
	return out
}

func (x *ruleCtx) integer(n *yaml.Node) int {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		x.fail(n, "want an integer, got %s", yamlfile.KindOf(n))
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v < -1_000_000 || v > 1_000_000 {
		x.fail(n, "integer %q out of range", n.Value)
	}
	return v
}

func (x *ruleCtx) tier(n *yaml.Node) int {
	bad := x.bad
	t := x.integer(n)
	if !x.bad && (t < 1 || t > 3) {
		x.fail(n, "tier %d outside 1..3", t)
	}
	x.bad = x.bad || bad
	return t
}

func (x *ruleCtx) boolean(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		x.fail(n, "want true or false, got %s", yamlfile.KindOf(n))
		return false
	}
	return n.Value == "true"
}

func (x *ruleCtx) regex(n *yaml.Node, s string) *regexp.Regexp {
	re, err := regexp.Compile(s)
	if err != nil {
		x.fail(n, "bad regular expression %q: %v", s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

// actionTypes expands names and globs ("git_*", "*") against the catalog.
func (x *ruleCtx) actionTypes(n *yaml.Node, written []string) []action.Type {
	in := map[action.Type]bool{}
	for i, s := range written {
		e := n.Content[i]
		if s == "" {
			continue
		}
		if !glob.HasDoublestarMeta(s) {
			if !action.Known(action.Type(s)) {
				x.fail(e, "unknown action type %q", s)
			}
			in[action.Type(s)] = true
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			x.fail(e, "bad action type glob %q", s)
			continue
		}
		hits := 0
		for _, t := range action.Types() {
			if ok, _ := path.Match(s, string(t)); ok {
				in[t] = true
				hits++
			}
		}
		if hits == 0 {
			x.fail(e, "action type glob %q matches no known action type", s)
		}
	}
	var out []action.Type
	for _, t := range action.Types() {
		if in[t] {
			out = append(out, t)
		}
	}
	return out
}

func (x *ruleCtx) globs(n *yaml.Node) []*pathPat {
	var out []*pathPat
	for i, s := range x.strList(n) {
		if s == "" {
			continue
		}
		e := n.Content[i]
		p, err := expand(s, x.c.vars)
		if err != nil {
			x.fail(e, "path %q: %v", s, err)
			continue
		}
		if !strings.HasPrefix(p, "/") {
			x.fail(e, "path %q is not absolute (start with /, ~, $HOME or $WORKSPACE)", s)
			continue
		}
		p = path.Clean(p)
		if !doublestar.ValidatePattern(p) {
			x.fail(e, "bad glob %q", s)
			continue
		}
		out = append(out, compileGlob(s, p))
	}
	return out
}

// expand substitutes ~ (at the start), $HOME, ${HOME}, $WORKSPACE and
// ${WORKSPACE}. Values are glob-escaped so that a workspace named
// "a[1]" stays literal. Any other $ is an error.
func expand(s string, v Vars) (string, error) {
	if s == "~" || strings.HasPrefix(s, "~/") {
		s = "$HOME" + s[1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		rest := s[i+1:]
		var name string
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return "", fmt.Errorf("unclosed ${ at byte %d", i)
			}
			name = rest[1:end]
			i += end + 1
		default:
			j := 0
			for j < len(rest) && (rest[j] == '_' || rest[j] >= 'A' && rest[j] <= 'Z' || rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= '0' && rest[j] <= '9') {
				j++
			}
			name = rest[:j]
			i += j
		}
		var val string
		switch name {
		case "HOME":
			val = v.Home
		case "WORKSPACE":
			val = v.Workspace
		default:
			return "", fmt.Errorf("unknown variable $%s (want $HOME or $WORKSPACE)", name)
		}
		if val == "" {
			return "", fmt.Errorf("$%s is not set", name)
		}
		b.WriteString(escapeGlob(val))
	}
	return b.String(), nil
}

func escapeGlob(s string) string {
	if !glob.HasDoublestarMeta(s) && !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || glob.IsDoublestarMeta(s[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (x *ruleCtx) accessList(n *yaml.Node) action.Access {
	var a action.Access
	for i, s := range x.strList(n) {
		switch s {
		case "read":
			a |= action.AccessRead
		case "write":
			a |= action.AccessWrite
		case "delete":
			a |= action.AccessDelete
		case "":
		default:
			x.fail(n.Content[i], "unknown access %q (want read, write or delete)", s)
		}
	}
	return a
}

func (x *ruleCtx) programs(n *yaml.Node) []string {
	list := x.strList(n)
	for i, s := range list {
		if strings.ContainsAny(s, "/ \t") {
			x.fail(n.Content[i], "program %q must be a base name like \"git\"", s)
		}
	}
	return list
}

func (x *ruleCtx) domains(n *yaml.Node) []string {
	list := x.strList(n)
	for i, s := range list {
		list[i] = strings.TrimSuffix(strings.ToLower(s), ".")
		if strings.ContainsAny(s, "/:@ \t") {
			x.fail(n.Content[i], "domain %q must be a host name or host glob, not a URL", s)
		} else if _, err := path.Match(list[i], ""); err != nil {
			x.fail(n.Content[i], "bad domain glob %q", s)
		}
	}
	return list
}

// capabilityNames are the shell tag names and the sink names.
var capabilityNames = func() []string {
	var out []string
	for k := shell.TagKind(0); k.String() != "unknown_tag"; k++ {
		out = append(out, k.String())
	}
	for s := action.Sink(0); s.String() != "unknown"; s++ {
		out = append(out, s.String())
	}
	return out
}()

func (x *ruleCtx) capabilities(n *yaml.Node) []string {
	list := x.strList(n)
	for i, s := range list {
		if s != "" && !contains(capabilityNames, s) {
			x.fail(n.Content[i], "unknown capability %q (shell tags and sink names, e.g. force_push, http_request)", s)
		}
	}
	return list
}

var validMethod = lazyRE(`^[A-Z]{1,20}$`)

func (x *ruleCtx) methods(n *yaml.Node) []string {
	list := x.strList(n)
	for i, s := range list {
		list[i] = strings.ToUpper(s)
		if s != "" && !validMethod().MatchString(list[i]) {
			x.fail(n.Content[i], "bad HTTP method %q", s)
		}
	}
	return list
}

// lazyRE compiles expr once, on the first call of the returned function:
// package initialisation stays cheap for processes that never need it.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
