package engine

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parallax/parallax/internal/egress"
	"github.com/parallax/parallax/sandbox"
)

// SandboxEnd is what one command's sandbox reports once the command
// ended: what the model must be told, what the verdict granted it beyond
// the workspace, and what of that it used (the granted paths it changed,
// the connections its egress proxy saw), which no Chronicle snapshot
// covers.
type SandboxEnd struct {
	// Notes say how the sandbox ended (a limit reached, a host-trusted
	// file moved aside).
	Notes []string
	// Grants are what the verdict let the command change or reach
	// outside the workspace and its private temp directory.
	Grants Grants
	// Changed are the granted paths outside the workspace that changed
	// while the command ran (written, created in, removed from).
	Changed []string
	// Conns are the connections through its egress proxy, in the order
	// they ended (at most maxConnsKept); Dropped counts the rest.
	Conns   []egress.Conn
	Dropped int
}

// Grants are what a command's sandbox allows beyond the workspace (as
// the kernel and the egress proxy enforce it): the one typed value the
// model is told about and /undo reports from.
type Grants struct {
	WriteFiles, MakeDirs, RemoveTrees []string
	// Network is false when the command has no network at all; then
	// Hosts and Registries are empty.
	Network    bool
	Hosts      []string // named by the verdict
	Registries []string // the workspace's package registries
}

// grantsOf is what plan's sandbox allows beyond the workspace.
func grantsOf(plan *commandPlan, registries []string) Grants {
	s := plan.spec
	g := Grants{WriteFiles: slices.Clone(s.WriteFiles), MakeDirs: slices.Clone(s.MakeDirs),
		RemoveTrees: slices.Clone(s.RemoveTrees), Network: s.Network}
	if s.Network {
		g.Hosts, g.Registries = slices.Clone(plan.hosts), slices.Clone(registries)
	}
	return g
}

// maxConnsKept bounds the connections one command's end keeps.
const maxConnsKept = 64

// connLog collects one command's proxy connections.
type connLog struct {
	mu      sync.Mutex
	conns   []egress.Conn
	dropped int
}

func (l *connLog) add(c egress.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= maxConnsKept {
		l.dropped++
		return
	}
	l.conns = append(l.conns, c)
}

func (l *connLog) take() ([]egress.Conn, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.conns), l.dropped
}

// stamp is what tells that a path changed: its identity, size, times and
// mode (a missing path stamps as zero).
type stamp struct {
	ino, size    int64
	mtime, ctime time.Time
	mode         os.FileMode
}

func stampOf(p string) stamp {
	st, err := os.Lstat(p)
	if err != nil {
		return stamp{}
	}
	s := stamp{size: st.Size(), mtime: st.ModTime(), mode: st.Mode()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = int64(sys.Ino) //nolint:gosec // an inode number, compared only
		s.ctime = time.Unix(sys.Ctim.Unix())
	}
	return s
}

// grantStamps stamps every path a spec grants outside the workspace.
func grantStamps(s sandbox.CommandSpec) map[string]stamp {
	out := map[string]stamp{}
	for _, ps := range [][]string{s.WriteFiles, s.MakeDirs, s.RemoveTrees} {
		for _, p := range ps {
			out[p] = stampOf(p)
		}
	}
	return out
}

// changedSince lists, sorted, the stamped paths that changed.
func changedSince(before map[string]stamp) []string {
	var out []string
	for p, s := range before {
		if stampOf(p) != s {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Bounds of what the model is told of a command's grants.
const (
	maxHintItems = 8   // paths or hosts named per list
	maxHintItem  = 120 // bytes of one path or host
)

// hintList names items, bounded in number and length; "none" when empty.
func hintList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	var out []string
	for i, it := range items {
		if i == maxHintItems {
			out = append(out, fmt.Sprintf("and %d more", len(items)-maxHintItems))
			break
		}
		if len(it) > maxHintItem {
			it = strings.ToValidUTF8(it[:maxHintItem], "") + "..."
		}
		out = append(out, it)
	}
	return strings.Join(out, ", ")
}

// String says what the grants allow, for the model: the writes outside
// the workspace and the network.
func (g Grants) String() string {
	var writes []string
	writes = append(writes, g.WriteFiles...)
	for _, d := range g.MakeDirs {
		writes = append(writes, "new directories in "+d)
	}
	for _, d := range g.RemoveTrees {
		writes = append(writes, "removals in "+d)
	}
	s := "outside the workspace it may write only its private temp directory (its verdict named no other file); "
	if len(writes) > 0 {
		s = "outside the workspace it may write only its private temp directory and " + hintList(writes) + "; "
	}
	if !g.Network {
		return s + "it has no network (its verdict named no host and nothing in it reaches the network)"
	}
	return s + "it may reach only, through Parallax's egress proxy, the hosts its verdict named (" + hintList(g.Hosts) +
		") and the package registries (" + hintList(g.Registries) + ")"
}

// refusedConns names the connections the egress proxy refused for not
// being allowed (its policy, not a failing origin), bounded.
func refusedConns(conns []egress.Conn) []string {
	var out []string
	for _, c := range conns {
		if c.Decision == egress.Allowed || !policyRefusal(c.Reason) {
			continue
		}
		name := fmt.Sprintf("%s:%d (%s)", c.Host, c.Port, c.Reason)
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// policyRefusal reports whether a refusal is the proxy's rules (where
// the command was not allowed to go or what it was not allowed to send)
// rather than the origin or the network failing.
func policyRefusal(r egress.Reason) bool {
	switch r {
	case egress.ReasonHostNotAllowed, egress.ReasonNotPublic, egress.ReasonDLP, egress.ReasonBodyTooLarge,
		egress.ReasonNestedProxy, egress.ReasonProxyLoop, egress.ReasonScheme, egress.ReasonSOCKSCommand:
		return true
	}
	return false
}

// sandboxRefusals are what programs print when the kernel sandbox or the
// egress proxy refuses them.
var sandboxRefusals = [...]string{"Permission denied", "Read-only file system", "Operation not permitted",
	"Could not resolve host", "Network is unreachable", "403 Forbidden", "CONNECT tunnel failed"}

// sandboxHint tells the model, when a sandboxed command failed, that
// Parallax refused it and what its verdict allowed, so it does not take
// the refusal for a fault of its own work. A connection the egress proxy
// refused is known for certain and named; a write the kernel refused
// cannot be seen from outside, so what a refusal prints is the clue.
// The grants are named, bounded.
func sandboxHint(res *Result, end SandboxEnd) string {
	if res.ExitCode == 0 {
		return ""
	}
	if refused := refusedConns(end.Conns); len(refused) > 0 {
		return "Parallax's egress proxy refused " + hintList(refused) + ": " + end.Grants.String() +
			". Name the host in the command itself if it needs it (parallax sandbox explain 'CMD' shows a command's sandbox)"
	}
	for _, m := range sandboxRefusals {
		if strings.Contains(res.Output, m) {
			return "Parallax ran this command in its sandbox, which may be what refused it (\"" + m + "\"): " +
				end.Grants.String() + ". Name what the command writes or reaches in the command itself " +
				"(parallax sandbox explain 'CMD' shows a command's sandbox)"
		}
	}
	return ""
}
