//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// ExecArg is the hidden subcommand that runs a command in its sandbox:
// `self __sandbox-exec SPEC-JSON -- ARGV...`. Go cannot run code between
// fork and exec, so the sandbox is applied by a re-executed copy of the
// binary, which then execs the command in place.
const ExecArg = "__sandbox-exec"

// ExitSandboxFailed is the exit status of ExecMain when the sandbox
// could not be set up or the command could not be executed; the reason
// is one line on stderr prefixed by "parallax sandbox: ".
const ExitSandboxFailed = 126

// maxSpecBytes bounds the JSON spec on the command line.
const maxSpecBytes = 64 << 10

// maxRules bounds the Landlock rules one command gets.
const maxRules = 4096

// Command builds the command that runs argv inside the spec's sandbox,
// through self (the path of this binary). TMPDIR is set to the spec's
// temp dir; the caller may add to Env, Stdin, Stdout, Dir, and so on.
// Paths are checked here for form and again, for existence, where the
// sandbox is applied.
func (s CommandSpec) Command(ctx context.Context, self string, argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("sandbox command: empty argv")
	}
	var err error
	if err = s.validate(); err != nil {
		return nil, err
	}
	if len(s.Hide) > 0 {
		if err := UsernsAvailable(); err != nil {
			if !s.HideOptional {
				return nil, fmt.Errorf("sandbox spec hides %d directories: %w; not run", len(s.Hide), err)
			}
			s.Hide = nil // the caller's explicit opt-out
		}
	}
	switch {
	case s.Isolate:
		if err := UsernsAvailable(); err != nil {
			return nil, fmt.Errorf("an isolated command needs user namespaces: %w; not run", err)
		}
		if s.OuterNS, err = namespacesOf(isolateNS); err != nil {
			return nil, err
		}
	case len(s.Hide) > 0:
		if s.OuterNS, err = currentNS(); err != nil {
			return nil, err
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode sandbox spec: %w", err)
	}
	if len(raw) > maxSpecBytes {
		return nil, fmt.Errorf("sandbox spec: %d bytes, limit %d", len(raw), maxSpecBytes)
	}
	args := append([]string{ExecArg, string(raw), "--"}, argv...)
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+s.TempDir)
	s.SetSysProcAttr(cmd)
	return cmd, nil
}

// validate checks the spec's form: every path absolute, workspace and
// temp dir present.
func (s CommandSpec) validate() error {
	if s.Workspace == "" || s.TempDir == "" {
		return fmt.Errorf("sandbox spec: workspace and temp_dir are required")
	}
	lists := []struct {
		name  string
		paths []string
	}{
		{"workspace", []string{s.Workspace}}, {"temp_dir", []string{s.TempDir}},
		{"write", s.Write}, {"caches", s.Caches}, {"read_deny", s.ReadDeny}, {"hide", s.Hide},
		{"write_files", s.WriteFiles}, {"make_dirs", s.MakeDirs}, {"remove_trees", s.RemoveTrees},
		{"mask_files", s.MaskFiles}, {"read_only", s.ReadOnly}, {"keep", s.Keep},
	}
	if s.Isolate && s.Home != "" && !filepath.IsAbs(s.Home) {
		return fmt.Errorf("sandbox spec: home %q is not absolute", s.Home)
	}
	if err := validateOverlays(s.Overlays); err != nil {
		return fmt.Errorf("sandbox spec: %w", err)
	}
	if s.Proxy < 0 || s.Proxy > 65535 || (s.Proxy != 0 && !s.Isolate) {
		return fmt.Errorf("sandbox spec: proxy port %d (needs isolate, 1..65535)", s.Proxy)
	}
	for i, f := range s.Forward {
		ap, err := netip.ParseAddrPort(f)
		if err != nil || !ap.Addr().IsLoopback() || s.Proxy == 0 || ap.Port() == uint16(s.Proxy) && ap.Addr().Is4() {
			return fmt.Errorf("sandbox spec: forward[%d] %q must be a loopback IP:port beside the proxy", i, f)
		}
	}
	if s.Isolate {
		if err := s.checkIsolatedPaths(); err != nil {
			return err
		}
	}
	for _, l := range lists {
		for i, p := range l.paths {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("sandbox spec: %s[%d] %q is not absolute", l.name, i, p)
			}
		}
	}
	return nil
}

// ExecMain is the body of the hidden subcommand: args are what follows
// ExecArg. It decodes the spec, applies Landlock and seccomp and execs
// the command; it returns only on failure, with ExitSandboxFailed. A
// spec the kernel cannot honour fails: nothing runs unsandboxed.
func ExecMain(args []string) int {
	err := execSandboxed(args)
	if errors.Is(err, errChecked) {
		return 0
	}
	fmt.Fprintf(os.Stderr, "parallax sandbox: %v\n", err)
	return ExitSandboxFailed
}

// errChecked ends a check-mode run that set everything up.
var errChecked = errors.New("sandbox checked")

func execSandboxed(args []string) error {
	// Capabilities are per thread: the one that drops them must be the
	// one that execs. Never unlocked; the exec replaces the process.
	runtime.LockOSThread()
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: %s SPEC-JSON -- COMMAND [ARG...]", ExecArg)
	}
	spec, err := decodeSpec(args[0])
	if err != nil {
		return err
	}
	argv := args[2:]
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("find %s: %w", argv[0], err)
	}
	var hidden []string
	if spec.Isolate {
		// The working directory was entered before the mounts: enter it
		// again, through them, or relative paths reach the covered tree.
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		if err := spec.isolate(); err != nil {
			return err
		}
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("enter the working directory again: %w", err)
		}
		if err := dropCaps(); err != nil {
			return err
		}
	} else if len(spec.Hide) > 0 {
		if hidden, err = spec.hideDirs(); err != nil {
			return err
		}
		if err := ownNamespaces(spec.OuterNS); err != nil {
			return err
		}
		if err := mountMasks(hidden); err != nil {
			return err
		}
		if err := dropCaps(); err != nil {
			return err
		}
	}
	if err := spec.apply(); err != nil {
		return err
	}
	if spec.Isolate {
		hidden = spec.Hide
		if err := setLimits(spec.Limits); err != nil {
			return err
		}
	}
	if spec.Check {
		if err := checkHidden(hidden); err != nil {
			return err
		}
		return errChecked
	}
	if err := syscall.Exec(prog, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", prog, err)
	}
	return nil // not reached
}

// decodeSpec decodes the spec strictly: one object, no unknown field.
func decodeSpec(raw string) (CommandSpec, error) {
	var s CommandSpec
	if len(raw) > maxSpecBytes {
		return s, fmt.Errorf("sandbox spec: %d bytes, limit %d", len(raw), maxSpecBytes)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("decode sandbox spec: %w", err)
	}
	if dec.More() {
		return s, fmt.Errorf("decode sandbox spec: trailing data")
	}
	return s, s.validate()
}

// apply restricts the calling process to the spec, for good.
func (s CommandSpec) apply() error {
	k := Support()
	if err := k.Usable(); err != nil {
		return err
	}
	cfg, err := landlockConfig(k.LandlockABI)
	if err != nil {
		return err
	}
	if s.Network {
		cfg.HandledAccessNet = 0 // network effects were analysed and allowed
	}
	rules, err := s.rules(cfg)
	if err != nil {
		return err
	}
	if err := restrictLandlock(cfg, rules); err != nil {
		return err
	}
	return installSeccomp(filterKind{network: s.Network})
}

// rules lists the Landlock rules: full access to the writable trees and
// the character devices a shell needs; read and execute everywhere else
// except the denied directories.
func (s CommandSpec) rules(cfg landlock.Config) ([]grant, error) {
	deny, err := resolveAll(s.ReadDeny, "read_deny")
	if err != nil {
		return nil, err
	}
	var w ruleSet
	w.cfg, w.deny = cfg, deny
	if s.Isolate {
		if err := s.isolatedWrites(&w); err != nil {
			return nil, err
		}
		return w.finish()
	}
	required := append([]string{s.Workspace, s.TempDir}, s.Write...)
	for _, p := range required {
		if err := w.grantWrite(p, true); err != nil {
			return nil, err
		}
	}
	for _, p := range s.Caches {
		if err := w.grantWrite(p, false); err != nil {
			return nil, err
		}
	}
	return w.finish()
}

// finish adds the shell's devices and read access everywhere but the
// denied directories, and bounds the rule count.
func (w *ruleSet) finish() ([]grant, error) {
	for _, dev := range shellDevices {
		w.add(grant{path: dev, rights: fileRights, optional: true})
	}
	if err := w.grantExcept("/", readRights, 0); err != nil {
		return nil, err
	}
	if len(w.rules) > maxRules {
		return nil, fmt.Errorf("sandbox spec needs %d landlock rules, limit %d", len(w.rules), maxRules)
	}
	return w.rules, nil
}

// shellDevices are the character devices a shell and its tools open by
// name; they get read, write and ioctl.
var shellDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}
