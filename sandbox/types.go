package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupported reports that the kernel or the architecture cannot
// honour a sandbox; the caller must refuse to run what needed it.
var ErrUnsupported = errors.New("sandbox unsupported")

// ErrNoUserns reports that the kernel refuses the user namespace a spec
// with Hide needs; the message names the setting that refuses it.
var ErrNoUserns = errors.New("user namespaces unavailable")

// MinLandlockABI is the lowest Landlock ABI the package accepts. ABI 1
// already restricts every file access; what later ABIs add (TCP, IPC
// scopes) is applied whenever the kernel has it and reported.
const MinLandlockABI = 1

// Kernel describes what the running kernel offers, without applying
// anything (for doctor and status).
type Kernel struct {
	// LandlockABI is the usable Landlock ABI (0: none). An ABI whose
	// signal-scoping erratum is not fixed counts as 5.
	LandlockABI int `json:"landlock_abi"`
	// Seccomp is true when seccomp filter mode with
	// SECCOMP_RET_KILL_PROCESS is available.
	Seccomp bool `json:"seccomp"`
	// NoNewPrivs is the current value of the no_new_privs bit.
	NoNewPrivs bool `json:"no_new_privs"`
	// Arch is the architecture, and ArchSupported says whether this
	// package has a seccomp syscall table for it.
	Arch          string `json:"arch"`
	ArchSupported bool   `json:"arch_supported"`
}

// Usable reports why the sandbox cannot be applied, or nil.
func (k Kernel) Usable() error {
	switch {
	case k.LandlockABI < MinLandlockABI:
		return fmt.Errorf("%w: landlock ABI %d, need >= %d", ErrUnsupported, k.LandlockABI, MinLandlockABI)
	case !k.Seccomp:
		return fmt.Errorf("%w: seccomp filter mode not available", ErrUnsupported)
	case !k.ArchSupported:
		return fmt.Errorf("%w: no seccomp syscall table for %s", ErrUnsupported, k.Arch)
	}
	return nil
}

// AgentSpec is what the agent may still touch after it sandboxes itself.
type AgentSpec struct {
	// ReadOnly lists files and directories the agent may read (nothing
	// else: no write, no exec anywhere). Missing entries are skipped
	// (less access, never more) and reported.
	ReadOnly []string
	// Forbidden lists trees no ReadOnly entry may overlap (the
	// workspace and the home directory): an overlap is an error.
	Forbidden []string
}

// Report says what ApplyAgent put in place and what the probes observed.
type Report struct {
	LandlockABI int    `json:"landlock_abi"`
	Landlock    string `json:"landlock"`
	// TCPDenied is true when Landlock denies TCP bind and connect (ABI >= 4).
	TCPDenied bool `json:"tcp_denied"`
	// Scoped is true when abstract unix sockets and signals are scoped
	// to the sandbox (ABI >= 6).
	Scoped     bool     `json:"scoped"`
	Seccomp    bool     `json:"seccomp"`
	NoNewPrivs bool     `json:"no_new_privs"`
	ReadOnly   []string `json:"read_only"`
	Skipped    []string `json:"skipped,omitempty"`
	// Probes holds what RunProbes observed; the caller fills it in.
	Probes []ProbeResult `json:"probes"`
}

// OK is true only when the sandbox is in place and every one of the
// expected probes ran and was blocked. No probes means nothing was
// proven, which is not OK.
func (r Report) OK() bool {
	if !r.Seccomp || !r.NoNewPrivs || r.LandlockABI < MinLandlockABI {
		return false
	}
	seen := map[string]bool{}
	for _, p := range r.Probes {
		if !p.Blocked {
			return false
		}
		seen[p.Name] = true
	}
	for _, name := range ProbeNames() {
		if !seen[name] {
			return false
		}
	}
	return true
}

// Failures lists the probes that were not blocked, one line each.
func (r Report) Failures() string {
	var b strings.Builder
	for _, p := range r.Probes {
		if !p.Blocked {
			fmt.Fprintf(&b, "%s: %s; ", p.Name, p.Detail)
		}
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// ProbeTargets names what the probes try to reach.
type ProbeTargets struct {
	WorkspaceFile string // an existing file in the workspace
	HomeFile      string // an existing file in the home directory
	TempDir       string // where the write probe creates a file ("" = os.TempDir())
	Exec          string // a program to run ("" = /bin/true)
	EngineAddr    string // host:port of the engine's HTTP listener
}

// ProbeResult is one probe's outcome. Blocked is true only when the
// attempt failed with a permission error (EPERM or EACCES): a missing
// file or a refused connection proves nothing about the sandbox.
type ProbeResult struct {
	Name    string `json:"name"`
	Blocked bool   `json:"blocked"`
	Errno   string `json:"errno,omitempty"`
	Detail  string `json:"detail"`
}

// Probe names, in the order RunProbes runs them.
const (
	ProbeReadWorkspace = "read_workspace_file"
	ProbeReadHome      = "read_home_file"
	ProbeWriteTmp      = "write_tmp"
	ProbeExec          = "exec"
	ProbeExecve        = "execve"
	ProbeTCPSocket     = "tcp_socket"
	ProbeConnectEngine = "connect_engine"
)

// ProbeNames lists every probe RunProbes runs, in order; Report.OK
// wants them all. Each call returns a new slice.
func ProbeNames() []string {
	return []string{ProbeReadWorkspace, ProbeReadHome, ProbeWriteTmp, ProbeExec,
		ProbeExecve, ProbeTCPSocket, ProbeConnectEngine}
}

// CommandSpec is the sandbox one command runs in, derived from the
// gate's verdict.
type CommandSpec struct {
	Workspace string   `json:"workspace"`           // writable; must exist
	TempDir   string   `json:"temp_dir"`            // private, writable; must exist
	Write     []string `json:"write,omitempty"`     // extra writable paths the verdict allowed; must exist
	Caches    []string `json:"caches,omitempty"`    // toolchain caches; writable when present, skipped when missing
	ReadDeny  []string `json:"read_deny,omitempty"` // directories nothing may read
	Network   bool     `json:"network,omitempty"`   // the analysed effects include network
	// Hide lists directories inside the writable trees (the workspace's
	// .parallax) that the command must not see at all: each is covered
	// by an empty, read-only tmpfs in a private mount namespace, so the
	// writable tree around it can be granted whole. It needs user
	// namespaces; where they are unavailable the command does not run,
	// unless HideOptional says to run it without the masks.
	Hide []string `json:"hide,omitempty"`
	// HideOptional is the caller's explicit opt-out: when the kernel
	// refuses user namespaces, Command drops Hide instead of failing.
	HideOptional bool `json:"hide_optional,omitempty"`
	// Check makes the re-executed wrapper set everything up, verify that
	// each hidden directory is unreadable, and exit 0 instead of running
	// the command (ProbeHide).
	Check bool `json:"check,omitempty"`
	// OuterNS is set by Command: the caller's user and mount namespaces,
	// which the wrapper must not be in when it mounts the masks.
	OuterNS []string `json:"outer_ns,omitempty"`

	// Isolate gives the command a world of its own (see isolate_linux.go):
	// PID, network, IPC and UTS namespaces besides the user and mount
	// ones, a fresh /proc, only a loopback interface, TempDir mounted on
	// /tmp and /var/tmp and an empty tmpfs on /dev/shm, /run and the
	// Hide directories covered wherever they are, the MaskFiles covered
	// by an empty unreadable file and the ReadOnly paths bound read-only.
	// With Isolate, Write is ignored: writes outside the workspace and the
	// private temp directories are the exact grants below.
	Isolate bool `json:"isolate,omitempty"`
	// Home, for an isolated command, is the home directory: kept visible
	// when it lies under /tmp.
	Home string `json:"home,omitempty"`
	// WriteFiles are existing files (not directories) the command may
	// read, write and truncate: the exact files the verdict named.
	WriteFiles []string `json:"write_files,omitempty"`
	// MakeDirs are existing directories below which the command may
	// create directories (nothing else).
	MakeDirs []string `json:"make_dirs,omitempty"`
	// RemoveTrees are existing directories whose content the command may
	// remove (nothing else: no file written, none created).
	RemoveTrees []string `json:"remove_trees,omitempty"`
	// MaskFiles are secret files the command must not read; missing ones
	// are skipped.
	MaskFiles []string `json:"mask_files,omitempty"`
	// ReadOnly are existing paths inside the writable trees that the
	// command may read but not change (the workspace's host-trusted
	// files: .git/config, .git/hooks, .claude/, …); missing ones are
	// skipped.
	ReadOnly []string `json:"read_only,omitempty"`
	// Keep are directories under /tmp or /var/tmp that stay visible in an
	// isolated command's private /tmp, as the workspace and the home do
	// (the program a sandbox run starts, installed under /tmp); the
	// command cannot write them (only /tmp/.parallax-tmp is writable
	// then).
	Keep []string `json:"keep,omitempty"`
	// Overlays show each shared cache (Lower) through a per-workspace
	// writable layer: the command adds to it, never changes it.
	Overlays []Overlay `json:"overlays,omitempty"`
	// Proxy, when non-zero, is the loopback port inside the command's
	// network namespace where the wrapper listens and hands the listening
	// socket to the engine (through file descriptor 3, which Command's
	// caller passes) before the command runs: the egress proxy.
	Proxy int `json:"proxy,omitempty"`
	// Forward are loopback addresses (IP:port) where, with Proxy, the
	// wrapper also listens and hands the socket over: the engine relays
	// what arrives to the same address on the host (a local registry
	// mirror the workspace configured; programs that never use a proxy
	// for loopback reach it directly).
	Forward []string `json:"forward,omitempty"`
	// Limits bound what the command may use (zero: the defaults).
	Limits Limits `json:"limits,omitempty"`
	// Cgroups are the cgroup.procs files of the command's cgroups
	// (CommandCgroup.Procs), which the wrapper joins before anything else.
	Cgroups []string `json:"cgroups,omitempty"`
}

// Limits are a command's resource limits, per process (rlimits; this
// kernel's cgroup v2 is not assumed delegated). Zero means the default.
type Limits struct {
	MemoryBytes uint64 `json:"memory_bytes,omitempty"` // RLIMIT_DATA: one process's heap and private writable mappings
	// TotalMemoryBytes bounds the whole command, shared mappings and its
	// /dev/shm included (a memory cgroup, where the engine can make one).
	TotalMemoryBytes uint64 `json:"total_memory_bytes,omitempty"`
	Processes        uint64 `json:"processes,omitempty"`       // RLIMIT_NPROC, counted in the command's own user namespace
	FileSizeBytes    uint64 `json:"file_size_bytes,omitempty"` // RLIMIT_FSIZE
	OpenFiles        uint64 `json:"open_files,omitempty"`      // RLIMIT_NOFILE
}

// Default limits of a command.
const (
	DefaultMemoryBytes   = 1 << 30
	DefaultTotalMemory   = 2 << 30
	DefaultProcesses     = 256
	DefaultFileSizeBytes = 4 << 30
	DefaultOpenFiles     = 4096
)

// WithDefaults fills the zero fields with the defaults.
func (l Limits) WithDefaults() Limits {
	set := func(v *uint64, d uint64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&l.MemoryBytes, DefaultMemoryBytes)
	set(&l.TotalMemoryBytes, DefaultTotalMemory)
	set(&l.Processes, DefaultProcesses)
	set(&l.FileSizeBytes, DefaultFileSizeBytes)
	set(&l.OpenFiles, DefaultOpenFiles)
	return l
}

// Overlay is one shared cache seen through an overlayfs in the command's
// mount namespace: Lower is never written; Upper and Work hold what the
// command adds or changes (per workspace, on one filesystem).
type Overlay struct {
	Lower string `json:"lower"`
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// Available reports whether this machine can run Parallax with its
// sandbox on: the kernel can confine the agent (Landlock, seccomp) and
// give each command its mount-namespace mask (user namespaces). It
// reads settings only; ProbeHide runs the real thing.
func Available() error {
	if err := Support().Usable(); err != nil {
		return err
	}
	return UsernsAvailable()
}

// FilesSpec is the confinement of one file operation run in a process of
// its own (the files executor's helper, ConfineFiles): Landlock rules on
// exactly the paths its decided plan names and nothing else, so whatever
// the operation's code resolves at run time, the kernel lets it touch
// only what was decided. Paths must be absolute and clean; each must
// exist and hold no symbolic link when the rules are added (a rule on a
// path swapped since is refused, never followed).
type FilesSpec struct {
	// Read are files or directory trees the operation reads.
	Read []string `json:"read,omitempty"`
	// Modify are directories in which the operation creates, replaces,
	// renames or removes entries, and reads and writes the files below
	// (a write replaces its file through a temporary one beside it).
	Modify []string `json:"modify,omitempty"`
}
