package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shield"
)

// Status is the outcome of one doctor check.
type Status string

// The outcomes. Only FAIL makes a workspace unusable; WARN names
// something to look at; SKIP means a check could not run because an
// earlier one failed.
const (
	StatusOK   Status = "OK"
	StatusWarn Status = "WARN"
	StatusFail Status = "FAIL"
	StatusSkip Status = "SKIP"
)

// Check is one line of a doctor report. Detail says what was found
// (never a secret value); Fix, when not OK, says what to do.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is the result of Doctor.
type Report struct {
	Workspace string  `json:"workspace"`
	Checks    []Check `json:"checks"`
}

// Count returns how many checks ended with s.
func (r Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// OK reports whether no check failed.
func (r Report) OK() bool { return r.Count(StatusFail) == 0 }

// DoctorOptions configure Doctor.
type DoctorOptions struct {
	// Home decides what ~ means in policies (and where the user policy
	// ~/.parallax/policy.yaml is). Empty fails the policy check.
	Home string
	// Sandbox reports the kernel's sandbox support; nil probes this
	// machine (SandboxChecks).
	Sandbox func() []Check
}

// Doctor checks the workspace at root (absolute) without changing it:
// its directory, layout, config, policy, tokens, database, audit chain
// and Chronicle index, and the kernel's sandbox support. It never fails
// itself: every problem is a check with a fix.
func Doctor(ctx context.Context, root string, opts DoctorOptions) Report {
	d := &doctor{ctx: ctx, root: filepath.Clean(root), opts: opts}
	rep := Report{Workspace: d.root}
	if !filepath.IsAbs(root) {
		rep.Checks = append(rep.Checks, fail("workspace", fmt.Sprintf("%s is not an absolute path", root),
			"pass an absolute directory"))
		return rep
	}
	defer d.close()
	for i, c := range doctorChecks {
		ch := c.run(d)
		ch.Name = c.name
		rep.Checks = append(rep.Checks, ch)
		if i == 0 && !d.dirOK {
			break // nothing else to look at
		}
	}
	sandbox := opts.Sandbox
	if sandbox == nil {
		sandbox = SandboxChecks
	}
	rep.Checks = append(rep.Checks, sandbox()...)
	return rep
}

// doctor carries what earlier checks learnt to later ones.
type doctor struct {
	ctx   context.Context
	root  string
	opts  DoctorOptions
	dirOK bool      // .parallax is a directory
	cfg   *Config   // nil when config.yaml does not load
	db    *store.DB // open when the schema is current
	dbWhy string    // why db is nil
}

func (d *doctor) close() {
	if d.db != nil {
		_ = d.db.Close()
	}
}

// doctorChecks is the ordered table of workspace checks; the first must
// be the directory check.
var doctorChecks = []struct {
	name string
	run  func(*doctor) Check
}{
	{"workspace", (*doctor).checkDir},
	{"layout", (*doctor).checkLayout},
	{"config", (*doctor).checkConfig},
	{"agent", (*doctor).checkAgent},
	{"commands", (*doctor).checkCommands},
	{"policy", (*doctor).checkPolicy},
	{"canary.token", func(d *doctor) Check { return checkToken(CanaryPath(d.root)) }},
	{"api.token", func(d *doctor) Check { return checkToken(APITokenPath(d.root)) }},
	{"client.token", func(d *doctor) Check {
		// The engine's clients prove themselves with it; a workspace made
		// before it existed gets one when the engine next starts.
		if _, err := os.Lstat(ClientTokenPath(d.root)); errors.Is(err, fs.ErrNotExist) {
			return warn(ClientTokenPath(d.root)+" is missing: the engine creates it when it starts", "parallax start")
		}
		return checkToken(ClientTokenPath(d.root))
	}},
	{"database", (*doctor).checkDB},
	{"taint", (*doctor).checkTaintJournal},
	{"audit", (*doctor).checkAudit},
	{"chronicle", (*doctor).checkChronicle},
	{"judge", (*doctor).checkJudge},
}

func ok(detail string) Check         { return Check{Status: StatusOK, Detail: detail} }
func warn(detail, fix string) Check  { return Check{Status: StatusWarn, Detail: detail, Fix: fix} }
func skip(detail string) Check       { return Check{Status: StatusSkip, Detail: detail} }
func failc(detail, fix string) Check { return Check{Status: StatusFail, Detail: detail, Fix: fix} }

func fail(name, detail, fix string) Check {
	c := failc(detail, fix)
	c.Name = name
	return c
}

func (d *doctor) checkDir() Check {
	dir := StateDir(d.root)
	reinit := "run: parallax init " + d.root
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failc("no .parallax directory in "+d.root, reinit)
	case err != nil:
		return failc(fmt.Sprintf("cannot inspect %s: %v", dir, err), "check the permissions of "+d.root)
	case st.Mode()&fs.ModeSymlink != 0:
		return failc(dir+" is a symlink; the sealed state must be a real directory",
			"replace the link by the directory it points to")
	case !st.IsDir():
		return failc(fmt.Sprintf("%s is not a directory (%s)", dir, st.Mode().Type()),
			"move it away, then "+reinit)
	}
	d.dirOK = true
	if perm := st.Mode().Perm(); perm != 0o700 {
		return failc(fmt.Sprintf("%s has mode %04o, want 0700 (others must not read the audit chain or tokens)", dir, perm),
			"run: chmod 700 "+dir)
	}
	if uid, mine, known := ownedByMe(st); known && !mine {
		return failc(fmt.Sprintf("%s is owned by uid %d, not by you (uid %d)", dir, uid, os.Geteuid()),
			"run parallax as the workspace's owner, or chown -R the directory to yourself")
	}
	return ok(dir + " is a 0700 directory owned by you")
}

func (d *doctor) checkLayout() Check {
	var missing []string
	for _, sub := range []string{chronicleDir, backupsDir} {
		if st, err := os.Stat(filepath.Join(StateDir(d.root), sub)); err != nil || !st.IsDir() {
			missing = append(missing, sub+"/")
		}
	}
	left, _ := filepath.Glob(filepath.Join(d.root, initTempGlob))
	switch {
	case len(left) > 0:
		return warn(fmt.Sprintf("an interrupted parallax init left %s", strings.Join(left, ", ")),
			"if its .parallax/backups/ holds a previous workspace you need, move that out; then delete the directory")
	case len(missing) > 0:
		return warn("missing "+strings.Join(missing, ", ")+" in "+StateDir(d.root),
			"create it with mode 0700 (mkdir -m 700), or re-create the workspace with parallax init --force")
	}
	if b, err := os.ReadFile(GitignorePath(d.root)); err != nil || string(b) != gitignore { //nolint:gosec // the workspace's own file
		return warn(GitignorePath(d.root)+" is missing or not the one parallax init writes: the tokens may reach version control",
			"write it with these lines: "+strings.Join(strings.Fields(gitignoreRules), " "))
	}
	return ok("chronicle/, backups/ and .gitignore present; no leftovers of an interrupted init")
}

func (d *doctor) checkConfig() Check {
	path := ConfigPath(d.root)
	cfg, err := LoadConfig(d.root)
	if err != nil {
		return failc(strings.Join(strings.Fields(err.Error()), " "),
			"edit "+path+": it holds exactly version: 1 and policy: <default|permissive|strict|FILE>")
	}
	d.cfg = &cfg
	if c, bad := othersCanWrite(path); bad {
		return c
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return warn(path+" is missing; the default policy preset applies",
			"write "+path+" with version: 1 and policy: default (or parallax init --force)")
	}
	return ok(fmt.Sprintf("version %d, policy %s", cfg.Version, cfg.Policy))
}

// checkAgent reports the own agent's settings, loudly when its sandbox
// is switched off.
func (d *doctor) checkAgent() Check {
	if d.cfg == nil {
		return skip("config.yaml does not load")
	}
	s := d.cfg.AgentSettings()
	if s.SandboxOff {
		return warn("agent.sandbox is OFF: Parallax's own agent runs without its kernel sandbox (Landlock, seccomp); "+
			"only the gate stands between it and the machine",
			"parallax config set agent.sandbox on")
	}
	if err := sandbox.Available(); err != nil {
		return failc("agent.sandbox is on but this kernel cannot apply it ("+err.Error()+"): parallax start refuses to start the agent",
			"use a kernel with Landlock and seccomp filters, or set agent.sandbox: off (the agent then runs unconfined)")
	}
	return ok(fmt.Sprintf("sandbox on (kernel: Landlock ABI %d, seccomp); daily budget $%.2f; %d tool rounds per turn",
		sandbox.Support().LandlockABI, s.DailyBudgetUSD, s.MaxToolRounds))
}

// checkCommands reports the sandbox each command of the own agent gets,
// and what would weaken it here.
func (d *doctor) checkCommands() Check {
	if d.cfg == nil {
		return skip("config.yaml does not load")
	}
	s := d.cfg.AgentSettings()
	if s.SandboxOff {
		return skip("agent.sandbox is off: commands run without their kernel sandbox")
	}
	if d.opts.Home != "" {
		roots, err := Registered(d.opts.Home)
		if err != nil {
			return warn("the list of workspaces whose state every command hides cannot be read: "+err.Error(),
				"fix or remove "+RegistryPath(d.opts.Home)+"; parallax start writes it again")
		}
		if !slices.Contains(roots, d.root) {
			return warn("this workspace is not in "+RegistryPath(d.opts.Home)+": commands of other workspaces' engines can see its .parallax",
				"parallax start registers it (or add its path as a line to that file)")
		}
	}
	if os.Geteuid() == 0 {
		for _, h := range []string{"pids", "memory"} {
			if _, err := os.Stat("/sys/fs/cgroup/" + h + "/cgroup.procs"); err != nil {
				return warn("running as root without a cgroup v1 "+h+" hierarchy: a command's "+h+" are bounded only by rlimits "+
					"(which exempt root from the process limit and do not count shared memory) and its PID namespace",
					"run Parallax as an ordinary user, or mount the "+h+" cgroup controller")
			}
		}
	}
	regs := "the default registries"
	if s.Registries != nil {
		regs = fmt.Sprintf("%d configured registries", len(s.Registries))
	}
	return ok("each command isolated (own namespaces, private /tmp, exact writes, caches add-only, secrets masked); network only through the egress proxy to its verdict's hosts and " +
		regs + "; parallax sandbox explain CMD shows one")
}

func (d *doctor) checkPolicy() Check {
	if d.cfg == nil {
		return skip("config.yaml does not load (see above)")
	}
	if d.opts.Home == "" || !filepath.IsAbs(d.opts.Home) {
		return failc("HOME is not set to an absolute path; it decides what ~ means in policies", "set HOME")
	}
	if c, bad := othersCanWrite(PolicyPath(d.root)); bad {
		return c
	}
	g, err := shield.New(shield.Config{Workspace: d.root, Home: d.opts.Home, Policy: d.cfg.policySpec(d.root)})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failc(oneLine(err.Error()), "create the file, or name a preset in "+ConfigPath(d.root))
	case err != nil:
		return failc(oneLine(err.Error()),
			"fix the file and line named above; parallax policy lint FILE lists every problem")
	}
	p := g.Policy()
	detail := fmt.Sprintf("%d rules from %s", p.Rules(), strings.Join(p.Sources(), ", "))
	if ws := p.Lint(); len(ws) > 0 {
		return warn(fmt.Sprintf("%s; %d lint warning(s), first: %s", detail, len(ws), ws[0]),
			"remove or change the rules that can never decide")
	}
	return ok(detail + "; lint clean")
}

// othersCanWrite fails a file that group or others may write.
func othersCanWrite(path string) (Check, bool) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode().Perm()&0o022 == 0 {
		return Check{}, false
	}
	return failc(fmt.Sprintf("%s has mode %04o: others can change the policy", path, st.Mode().Perm()),
		"run: chmod 600 "+path), true
}

func checkToken(path string) Check {
	_, err := ReadToken(path)
	switch {
	case err == nil:
		return ok(fmt.Sprintf("%s: %d hex characters, mode 0600", path, tokenHexChars))
	case errors.Is(err, fs.ErrNotExist):
		return failc(path+" is missing", recreate)
	}
	fix := recreate
	if st, serr := os.Lstat(path); serr == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o077 != 0 {
		fix = "run: chmod 600 " + path + ", and treat the token as leaked: " + recreate
	}
	return failc(err.Error(), fix)
}

// oneLine keeps the first line of a multi-line error and counts the rest.
func oneLine(s string) string {
	first, rest, found := strings.Cut(s, "\n")
	if !found {
		return s
	}
	return fmt.Sprintf("%s (and %d more)", first, strings.Count(rest, "\n")+1)
}
