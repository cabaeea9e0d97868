// Package sandbox confines Parallax's own agent and every command the
// engine runs for it, with the kernel's Landlock LSM and a seccomp
// filter, and proves the agent's confinement from inside at each start.
//
// # What the kernel offers
//
// [Support] reports the Landlock ABI, seccomp filter mode and the
// no_new_privs bit without applying anything (for doctor and status).
//
// # The agent's sandbox
//
// [ApplyAgent] is called by the agent on itself before it reads
// anything. It is irreversible and covers every thread. Defenses:
//
//   - Landlock at exactly the kernel's ABI (never go-landlock's
//     best-effort mode, which may fall back to enforcing nothing; ABI < 1
//     is an error): every file right is handled and only
//     [DefaultAgentReadOnly] (the time zone files) is readable; nothing is
//     writable or executable; no path of the workspace or the home
//     directory can be granted, even through a symlink.
//   - Landlock ABI >= 4: TCP bind and connect handled with no port
//     allowed; ABI >= 6: abstract unix sockets and signals scoped to the
//     sandbox, so the agent can neither reach a local abstract socket nor
//     signal the engine.
//   - no_new_privs, then a seccomp filter (assembled with x/net/bpf,
//     loaded with SECCOMP_FILTER_FLAG_TSYNC on all threads): a foreign
//     architecture or an x32 syscall number kills the process; execve,
//     execveat, fork, vfork, clone without CLONE_THREAD (or with a
//     namespace flag), socket, socketpair, ptrace, process_vm_readv/
//     writev, pidfd_getfd, io_uring_*, bpf, the mount API, unshare,
//     setns and the keyring calls fail with EPERM; clone3 fails with
//     ENOSYS, because its flags are behind a pointer the filter cannot
//     read (the Go runtime starts threads with clone).
//
// The agent keeps working: it inherits its engine socket as a file
// descriptor, allocates, and starts threads.
//
// # The probes
//
// [RunProbes] tries, from inside, what the sandbox must prevent. A
// probe counts as blocked only when it fails with EPERM or EACCES: a
// missing file or a refused connection proves nothing. [Report.OK] wants
// every probe blocked; the agent does not start otherwise.
//
//   - read_workspace_file, read_home_file: Landlock grants no read
//     outside the time zone files.
//   - write_tmp: no file can be created anywhere.
//   - exec: fork-then-exec of /bin/true fails (seccomp refuses clone
//     without CLONE_THREAD).
//   - execve: a direct execve, with an argv pointer the kernel cannot
//     read so that an unconfined call fails with EFAULT instead of
//     replacing the agent, is refused (seccomp, or Landlock's execute
//     right).
//   - tcp_socket: socket(AF_INET) is refused.
//   - connect_engine: a TCP connection to the engine's HTTP port is
//     refused (seccomp at socket; Landlock TCP rules behind it).
//
// # A command's sandbox
//
// [CommandSpec] describes what the gate's verdict allows one command;
// [CommandSpec.Command] re-executes this binary with the hidden
// [ExecArg] subcommand, whose [ExecMain] applies the sandbox to itself
// and execs the command (Go cannot run code between fork and exec).
// Defenses:
//
//   - Landlock write access only to the workspace, the private temp dir,
//     the paths the verdict allowed, the listed toolchain caches
//     ([DefaultCaches]) and the character devices a shell opens
//     (/dev/null, /dev/zero, /dev/full, /dev/tty).
//   - Read and execute everywhere except the denied directories: every
//     entry of each directory on the way to a denied one is granted,
//     recursively, except the denied one; a writable tree holding a
//     denied directory (the workspace's .parallax/) is granted around it
//     the same way. Symlinks on the way are never followed: Landlock
//     judges an access by where it lands. Every rule is added from a
//     descriptor opened with RESOLVE_NO_SYMLINKS, so a path swapped for a
//     symlink between planning and enforcement is refused, not followed.
//     A writable path inside a denied directory is a contradiction and an
//     error.
//   - No network unless the analysed effects include network: Landlock
//     TCP rules (ABI >= 4) and seccomp refusing AF_INET and AF_INET6
//     sockets with EACCES. io_uring (which can open sockets around
//     seccomp) fails with ENOSYS; ptrace, bpf, mounts, namespaces and
//     keyrings with EPERM; abstract sockets and signals are scoped.
//   - Hidden directories ([CommandSpec.Hide], the workspace's .parallax/):
//     the wrapper runs in a new user and mount namespace
//     ([CommandSpec.SetSysProcAttr]; its caller's uid and gid mapped to
//     themselves, CAP_SYS_ADMIN and CAP_SETPCAP ambient), makes the mount
//     tree private, covers each hidden directory with an empty read-only
//     tmpfs (mode 0, nosuid, nodev, noexec), empties every capability set
//     of the thread that execs, then applies Landlock, with the writable
//     tree granted whole (new top-level files work), and seccomp, which
//     refuses every mount, umount, unshare, setns and pivot_root. Landlock
//     also refuses mounts and reaching the caller's mount namespace
//     through /proc/PID/root. The wrapper refuses to mount while still in
//     its caller's namespaces. Without user namespaces, Command refuses a
//     spec with Hide ([ErrNoUserns], naming the sysctl) unless
//     [CommandSpec.HideOptional]; [ProbeHide] runs the whole path once.
//   - Fail closed: a bad spec, a missing workspace or a kernel that
//     cannot honour the spec makes ExecMain exit with [ExitSandboxFailed]
//     and a one-line reason on stderr; the command never runs without
//     its sandbox.
//
// # An isolated command ([CommandSpec.Isolate], what the engine runs)
//
// The wrapper starts from the engine's own open executable ([Self]:
// /proc/self/fd/N of the binary the engine started from, never a path a
// command could have replaced) in new user, mount, PID, network, IPC
// and UTS namespaces, and before anything of its own is dropped:
//
//   - mounts a fresh /proc and brings up loopback (the only interface);
//     with [CommandSpec.Proxy] it listens on 127.0.0.1:PORT there and
//     hands the listening socket to the engine over fd 3 (the egress
//     proxy; the command gets no other way out);
//   - mounts its temp directory on /tmp and /var/tmp and an empty tmpfs
//     on /dev/shm (a workspace or home under /tmp is cloned first and
//     attached again at its path; then only /tmp/.parallax-tmp is
//     writable, since a Landlock grant on /tmp would reach into them);
//   - shows each shared cache through an overlay ([Overlay]) whose
//     writable layer is the workspace's own;
//   - covers each [CommandSpec.MaskFiles] file with an empty mode-0 file,
//     /run and each [CommandSpec.Hide] directory with an empty read-only
//     tmpfs, and binds each [CommandSpec.ReadOnly] path read-only;
//   - re-enters its working directory (it was entered before the mounts),
//     drops every capability, applies Landlock (write: the workspace,
//     the private temp trees, the caches, each [CommandSpec.WriteFiles]
//     file exactly, directory creation below [CommandSpec.MakeDirs],
//     removal in [CommandSpec.RemoveTrees]; read everywhere else), the
//     command filter of seccomp and the rlimits of [Limits], then execs.
//
// Everything the command starts lives in its PID namespace and dies
// when the command (PID 1 there) ends.
//
// Capabilities (agent): before Landlock, ApplyAgent empties the
// bounding set (when the process holds CAP_SETPCAP), the ambient set and
// the effective, permitted and inheritable sets of every thread at once
// (psx), then reads every thread's sets back and fails unless each is
// empty.
//
// Privileged calls (both filters): reboot, kexec, module loading,
// sethostname, setdomainname, syslog, swapon/off, acct, clock setting,
// quotactl, perf_event_open, userfaultfd, lookup_dcookie,
// open_by_handle_at, vhangup, nfsservctl (and iopl, ioperm on amd64)
// fail with EPERM; personality passes only the common values.
//
// Sockets (commands): an allowlist. AF_UNIX always; with network
// effects, AF_INET and AF_INET6 streams and datagrams only. Netlink,
// packet, vsock and every other family or type fail with EACCES (tools
// that list interfaces over netlink fail; getaddrinfo falls back).
//
// # Figures
//
//	go test -run='^$' -bench=. -benchtime=30x -count=3 ./sandbox/
//
// prints the medians and p95. On a quiet machine (2 cores): /bin/true
// plainly 0.65-0.72 ms; under Landlock and seccomp 3.5 ms; with the
// .parallax mask 4.1 ms; isolated (every namespace, /proc, private /tmp,
// masks, limits) 4.75 ms, p95 5.4 ms — mostly starting the Go binary a
// second time and making the namespaces. ApplyAgent takes 0.37-0.41 ms
// and all probes 0.10-0.13 ms inside the agent.
//
// # Known gaps
//
//   - The directories on the path to a denied directory can be walked
//     through but not listed, and no entry can be created in them
//     (Landlock rules cover whole trees); hence Hide, not ReadDeny, for a
//     directory inside a writable tree. Hide covers directories only.
//   - Inside the user namespace only the caller's uid and gid are mapped:
//     files of other owners (root's) show as owned by the overflow uid
//     (nobody); access checks are unchanged.
//   - Before Landlock ABI 9, pathname unix sockets are not restricted;
//     a command may connect to one it can reach on disk.
//   - RLIMIT_NPROC is not applied by the kernel to uid 0: as root, the
//     engine puts each command in a cgroup v1 pids group ([PidsCgroup],
//     which the wrapper joins before anything else); where there is none
//     (cgroup v2 only), only the PID namespace bounds its processes.
//   - Only amd64 and arm64 have syscall tables; arm64 is untested here.
package sandbox
