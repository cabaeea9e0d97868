package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/agent/proc"
	"github.com/parallax/parallax/internal/egress"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shield"
)

// probeListener is a loopback port the engine holds while it runs: the
// agent's connect probe must fail to reach it (without the sandbox it
// would connect).
type probeListener struct{ ln net.Listener }

func openProbeListener() (*probeListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("engine: probe port: %w", err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return &probeListener{ln: ln}, nil
}

func (p *probeListener) addr() string { return p.ln.Addr().String() }

func (p *probeListener) close() {
	if p != nil {
		_ = p.ln.Close()
	}
}

// probeEnv is the agent's EnvProbes variable: a workspace file (the
// canary token), a home file (~/.parallax/agent-probe, created when
// missing) and the probe port, each of which the agent must fail to
// reach once it is sandboxed.
func probeEnv(root, home, addr string) (string, error) {
	wsFile := workspace.CanaryPath(root)
	if _, err := os.Stat(wsFile); err != nil {
		return "", fmt.Errorf("engine: the agent's workspace probe target %s: %w", wsFile, err)
	}
	dir := filepath.Join(home, ".parallax")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("engine: the agent's home probe target: %w", err)
	}
	homeFile := filepath.Join(dir, "agent-probe")
	if _, err := os.Lstat(homeFile); errors.Is(err, fs.ErrNotExist) {
		err = os.WriteFile(homeFile, []byte("the sandboxed agent must not be able to read this file\n"), 0o600)
		if err != nil {
			return "", fmt.Errorf("engine: the agent's home probe target: %w", err)
		}
	}
	b, err := json.Marshal(proc.ProbeEnv{Workspace: root, Home: home,
		Targets: sandbox.ProbeTargets{WorkspaceFile: wsFile, HomeFile: homeFile, EngineAddr: addr}})
	if err != nil {
		return "", err
	}
	return proc.EnvProbes + "=" + string(b), nil
}

// commandSandbox is the per-command sandbox of the workspace's
// commands; an error (a kernel without Landlock or seccomp) refuses to
// start the engine, as the agent's own sandbox does.
func commandSandbox(root, home string, s workspace.AgentSettings, auditTo func() shield.Appender) (SandboxHook, error) {
	self, err := sandbox.Self()
	if err != nil {
		return nil, fmt.Errorf("engine: the command sandbox's wrapper: %w", err)
	}
	// Every command hides every registered workspace's state: this one is
	// registered here too (a workspace made before the list existed).
	if err := workspace.Register(home, root); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	cfg, registries := settingsSandbox(root, home, s)
	cfg.Self, cfg.Egress = self, egressServer(registries, auditTo)
	hook, err := NewCommandSandbox(cfg)
	if err != nil {
		return nil, fmt.Errorf("engine: %w (agent.sandbox: off runs commands unconfined)", err)
	}
	return hook, nil
}

// CommandNeeds are what every command of a workspace with these
// settings relies on beyond it, as the engine derives them: the shared
// toolchain caches its sandbox overlays (absolute) and the registries
// its egress proxy allows (with the relay targets of loopback ones).
// Doctor checks them.
func CommandNeeds(root, home string, s workspace.AgentSettings) (caches, registries []string) {
	cfg, registries := settingsSandbox(root, home, s)
	return cfg.Caches, registries
}

// settingsSandbox is the command sandbox the workspace's settings ask
// for, before the engine's own parts (its executable, the proxy and the
// relay) are added: the caches under the home, what the guard keeps
// unreadable, the limits, the loopback registries to relay. It also
// returns the registries the egress proxy allows.
func settingsSandbox(root, home string, s workspace.AgentSettings) (CommandSandboxConfig, []string) {
	caches := make([]string, 0, len(s.Caches))
	for _, c := range s.Caches {
		caches = append(caches, filepath.Join(home, c))
	}
	registries := s.Registries
	if registries == nil {
		registries = egress.DefaultRegistries()
	}
	forward := loopbackRegistries(registries)
	registries = slices.Clone(registries)
	for _, f := range forward {
		// The relay's target, as the proxy's rules must name it.
		if !slices.Contains(registries, f.String()) {
			registries = append(registries, f.String())
		}
	}
	return CommandSandboxConfig{Workspace: root, Home: home, Caches: caches, CacheRoot: cacheRoot(root),
		Unreadable: guard.New(root, home).Unreadable(), Limits: commandLimits(s),
		Forward: forward, Registries: registries}, registries
}

// egressServer serves one command's way out: the egress proxy on the
// first listener (the hosts its verdict named and the workspace's
// registries) and, on each listener after it, the relay of a loopback
// registry, through the same proxy (its rules, limits and audit); every
// connection audited and handed to seen.
func egressServer(registries []string, auditTo func() shield.Appender) func([]string, []net.Listener, []netip.AddrPort, func(egress.Conn)) {
	return func(hosts []string, lns []net.Listener, forward []netip.AddrPort, seen func(egress.Conn)) {
		defer func() {
			for _, ln := range lns {
				_ = ln.Close()
			}
		}()
		p, err := egress.New(egress.Config{Hosts: hosts, Registries: registries, Audit: func(c egress.Conn) {
			if seen != nil {
				seen(c)
			}
			a := auditTo()
			if a == nil {
				return
			}
			code := string(c.Decision)
			if c.Decision != egress.Allowed {
				code = string(c.Reason)
			}
			ref := ""
			if c.Addr.IsValid() {
				ref = c.Addr.String()
			}
			_, _ = a.Append(context.Background(), audit.Event{Type: audit.EgressConnection, Detail: audit.Detail{
				Code: code, Message: fmt.Sprintf("%s %s:%d", c.Protocol, c.Host, c.Port), Ref: ref,
				BytesUp: c.Up, BytesDown: c.Down, DurationMS: c.Duration.Milliseconds()}})
		}})
		if err != nil {
			return // no proxy: the command's connections are refused
		}
		defer p.Close()
		var wg sync.WaitGroup
		for i, ln := range lns[1:] {
			wg.Go(func() { _ = p.Relay(ln, forward[i]) })
		}
		_ = p.Serve(lns[0])
		wg.Wait()
	}
}

// loopbackRegistries are the registries written as a loopback IP:port or
// as localhost:PORT (relayed as 127.0.0.1:PORT): a local mirror, relayed
// from inside each networked command's namespace, where loopback is
// reached directly (NO_PROXY).
func loopbackRegistries(registries []string) []netip.AddrPort {
	var out []netip.AddrPort
	for _, r := range registries {
		if ap, err := netip.ParseAddrPort(r); err == nil && ap.Addr().IsLoopback() {
			out = append(out, ap)
			continue
		}
		host, port, err := net.SplitHostPort(r)
		if err != nil || !strings.EqualFold(host, "localhost") {
			continue
		}
		if n, err := strconv.ParseUint(port, 10, 16); err == nil && n > 0 {
			out = append(out, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(n)))
		}
	}
	return out
}
