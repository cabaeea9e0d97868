//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// DefaultAgentReadOnly is all a static Go agent reads once sandboxed:
//
//   - /etc/localtime: time.Local loads it lazily, on first use, which
//     happens after the sandbox is up (timestamps in the transcript);
//   - /usr/share/zoneinfo: time.LoadLocation for named zones (calendar
//     events), and the usual target of the /etc/localtime symlink.
//
// Nothing else: randomness comes from getrandom(2), never /dev/urandom;
// DNS, TLS roots and the network belong to the engine; the agent opens
// no /dev/null because it starts no process.
func DefaultAgentReadOnly() []string {
	return []string{"/etc/localtime", "/usr/share/zoneinfo"}
}

// ApplyAgent sandboxes the calling process for good: every capability
// dropped on every thread (and verified from /proc, which Landlock closes
// next), Landlock at the kernel's best ABI (read-only access to
// spec.ReadOnly, nothing else; no TCP from ABI 4; abstract unix sockets
// and signals scoped from ABI 6), then no_new_privs and the agent's
// seccomp filter on every thread. Any
// failure is returned and the caller must not start the agent; a
// failure after Landlock leaves the process restricted, never looser.
func ApplyAgent(spec AgentSpec) (Report, error) {
	k := Support()
	rep := Report{LandlockABI: k.LandlockABI}
	if err := k.Usable(); err != nil {
		return rep, err
	}
	cfg, err := landlockConfig(k.LandlockABI)
	if err != nil {
		return rep, err
	}
	forbidden, err := resolveAll(spec.Forbidden, "forbidden")
	if err != nil {
		return rep, err
	}
	var grants []grant
	for _, p := range spec.ReadOnly {
		g, ok, err := agentReadGrant(p, forbidden)
		if err != nil {
			return rep, err
		}
		if !ok {
			rep.Skipped = append(rep.Skipped, p)
			continue
		}
		grants = append(grants, g)
		rep.ReadOnly = append(rep.ReadOnly, p)
	}
	if err := dropAllCaps(); err != nil {
		return rep, err
	}
	if err := restrictLandlock(cfg, grants); err != nil {
		return rep, err
	}
	rep.Landlock = cfg.String()
	rep.TCPDenied = cfg.HandledAccessNet != 0
	rep.Scoped = cfg.Scoped != 0
	if err := installSeccomp(filterKind{agent: true}); err != nil {
		return rep, err
	}
	rep.Seccomp = true
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil || nnp != 1 {
		return rep, fmt.Errorf("no_new_privs not set after seccomp (%d, %v)", nnp, err)
	}
	rep.NoNewPrivs = true
	return rep, nil
}

// agentReadGrant grants read access to one path; ok is false for a path
// that does not exist. A relative path, or one that overlaps a forbidden
// tree (either way round, after resolving symlinks), is an error.
func agentReadGrant(p string, forbidden []string) (grant, bool, error) {
	if !filepath.IsAbs(p) {
		return grant{}, false, fmt.Errorf("read-only path %q: not absolute", p)
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return grant{}, false, nil
	}
	if err != nil {
		return grant{}, false, fmt.Errorf("read-only path %s: %w", p, err)
	}
	for _, f := range forbidden {
		if within(real, f) || within(f, real) {
			return grant{}, false, fmt.Errorf("read-only path %s overlaps forbidden %s", p, f)
		}
	}
	return grant{path: real, rights: rightReadFile | rightReadDir}, true, nil
}

// resolveAll makes each path absolute and clean and resolves its
// symlinks where it exists; both spellings are kept, so a check against
// the list catches either.
func resolveAll(paths []string, what string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s path %q: not absolute", what, p)
		}
		clean := filepath.Clean(p)
		out = append(out, clean)
		real, err := filepath.EvalSymlinks(clean)
		switch {
		case err == nil && real != clean:
			out = append(out, real)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%s path %s: %w", what, p, err)
		}
	}
	return out, nil
}

// within reports whether p is dir or lies beneath it (clean, absolute).
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/'
}

// ConfineAgent is the agent's start sequence: ApplyAgent, then every
// probe. It returns an error, and the agent must not start, when the
// sandbox cannot be applied or any probe was not blocked; the report
// goes to the engine for the audit either way.
func ConfineAgent(spec AgentSpec, t ProbeTargets) (Report, error) {
	rep, err := ApplyAgent(spec)
	if err != nil {
		return rep, fmt.Errorf("apply agent sandbox: %w", err)
	}
	rep.Probes = RunProbes(t)
	if !rep.OK() {
		return rep, fmt.Errorf("agent sandbox probes not blocked: %s", rep.Failures())
	}
	return rep, nil
}
