package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/sandbox"
)

// CommandSandboxPolicy is what the kernel would grant one command in a
// workspace: the typed policy the engine derives from the gate's
// analysis, for people to read (parallax sandbox explain) and tests.
type CommandSandboxPolicy struct {
	Command     string              `json:"command"`
	Spec        sandbox.CommandSpec `json:"spec"`
	Hosts       []string            `json:"hosts,omitempty"`        // named by the analysis, allowed by the proxy
	Registries  []string            `json:"registries,omitempty"`   // allowed to every networked command
	Forwarded   []string            `json:"forwarded,omitempty"`    // loopback registries relayed into the namespace
	WouldCreate []string            `json:"would_create,omitempty"` // empty files made for exact grants
	Cgroups     bool                `json:"cgroups"`                // root: the task and whole-command memory limits are cgroups
}

// ExplainCommandSandbox derives, without running anything or changing
// the disk, the sandbox the engine would give code in the workspace root
// with the given settings.
func ExplainCommandSandbox(root, home string, s workspace.AgentSettings, code string) (CommandSandboxPolicy, error) {
	cfg, registries := settingsSandbox(root, home, s)
	plan, err := cfg.plan(code, true)
	if err != nil {
		return CommandSandboxPolicy{}, err
	}
	spec := plan.spec
	spec.Limits = spec.Limits.WithDefaults()
	out := CommandSandboxPolicy{Command: code, Spec: spec, Hosts: plan.hosts, WouldCreate: plan.wouldCreate,
		Cgroups: os.Geteuid() == 0}
	if spec.Network {
		out.Registries = registries
		for _, f := range cfg.Forward {
			out.Forwarded = append(out.Forwarded, f.String())
		}
	}
	return out, nil
}

// commandLimits are the settings' limits as the sandbox takes them.
func commandLimits(s workspace.AgentSettings) sandbox.Limits {
	mb := func(v int) uint64 { return uint64(v) << 20 }
	return sandbox.Limits{MemoryBytes: mb(s.Limits.MemoryMB), TotalMemoryBytes: mb(s.Limits.TotalMemoryMB), Processes: uint64(s.Limits.Processes),
		FileSizeBytes: mb(s.Limits.FileSizeMB), OpenFiles: uint64(s.Limits.OpenFiles)}
}

// String renders the policy for a terminal, one line per restriction.
func (p CommandSandboxPolicy) String() string {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "  %-12s %s\n", k, v) }
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return strings.Join(xs, ", ")
	}
	s := p.Spec
	fmt.Fprintf(&b, "the kernel sandbox of: %s\n", p.Command)
	line("namespaces", "own user, mount, PID, network, IPC and UTS; fresh /proc; everything it starts dies with it")
	if s.Network {
		line("network", "only through the egress proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY): hosts "+list(p.Hosts)+
			"; registries "+list(p.Registries))
		if len(p.Forwarded) > 0 {
			line("", "relayed loopback registries: "+list(p.Forwarded))
		}
		line("sockets", "AF_UNIX; AF_INET/AF_INET6 streams and datagrams (loopback only); no netlink, packet, raw, vsock")
	} else {
		line("network", "none (loopback only, nothing listening)")
		line("sockets", "AF_UNIX only")
	}
	line("writes", "the workspace "+s.Workspace+" whole (host-trusted files read-only, its .parallax hidden); /tmp, /var/tmp, /dev/shm private")
	line("write files", list(s.WriteFiles))
	if len(p.WouldCreate) > 0 {
		line("", "created empty before the command, removed if left empty: "+list(p.WouldCreate))
	}
	line("make dirs", list(s.MakeDirs))
	line("remove in", list(s.RemoveTrees))
	var caches []string
	for _, o := range s.Overlays {
		caches = append(caches, o.Lower)
	}
	line("caches", "add-only (overlay, changes kept in "+filepath.Join(s.Workspace, ".parallax", "caches")+"): "+list(caches))
	line("hidden", list(append(s.Hide, "/run")))
	line("masked", fmt.Sprintf("%d secret files and sockets: %s", len(s.MaskFiles), list(s.MaskFiles)))
	var ro []string
	for _, r := range s.ReadOnly {
		if _, err := os.Lstat(r); err == nil {
			ro = append(ro, r)
		}
	}
	line("read-only", list(ro))
	l := s.Limits
	procs, total := fmt.Sprintf("%d tasks (RLIMIT_NPROC)", l.Processes), ""
	if p.Cgroups {
		procs = fmt.Sprintf("%d tasks (a pids cgroup: root is exempt from RLIMIT_NPROC)", l.Processes)
		total = fmt.Sprintf(", %d MiB for the whole command (a memory cgroup)", l.TotalMemoryBytes>>20)
	}
	line("limits", fmt.Sprintf("%d MiB of data per process%s, %s, files up to %d MiB, %d open files",
		l.MemoryBytes>>20, total, procs, l.FileSizeBytes>>20, l.OpenFiles))
	line("environment", "an allowlist; no secret-looking variable, none an api_key_env names")
	return b.String()
}
