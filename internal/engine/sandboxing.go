package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

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
	caches := make([]string, 0, len(s.Caches))
	for _, c := range s.Caches {
		caches = append(caches, filepath.Join(home, c))
	}
	// Every command hides every registered workspace's state: this one is
	// registered here too (a workspace made before the list existed).
	if err := workspace.Register(home, root); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	registries := s.Registries
	if registries == nil {
		registries = egress.DefaultRegistries()
	}
	mb := func(v int) uint64 { return uint64(v) << 20 }
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: root, Home: home, Self: self, Caches: caches,
		Unreadable: guard.New(root, home).Unreadable(),
		Limits: sandbox.Limits{MemoryBytes: mb(s.Limits.MemoryMB), Processes: uint64(s.Limits.Processes),
			FileSizeBytes: mb(s.Limits.FileSizeMB), OpenFiles: uint64(s.Limits.OpenFiles)},
		Egress: egressServer(registries, auditTo)})
	if err != nil {
		return nil, fmt.Errorf("engine: %w (agent.sandbox: off runs commands unconfined)", err)
	}
	return hook, nil
}

// egressServer serves one command's egress proxy: the hosts its verdict
// named and the workspace's registries, every connection audited.
func egressServer(registries []string, auditTo func() shield.Appender) func([]string, net.Listener) {
	return func(hosts []string, ln net.Listener) {
		defer ln.Close()
		p, err := egress.New(egress.Config{Hosts: hosts, Registries: registries, Audit: func(c egress.Conn) {
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
		_ = p.Serve(ln)
	}
}
