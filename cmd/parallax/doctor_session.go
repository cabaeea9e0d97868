package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/parallax/parallax/internal/engine"
	"github.com/parallax/parallax/internal/tools/shell"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/sandbox"
)

// dialTimeout bounds each model endpoint probe.
const dialTimeout = 3 * time.Second

// sessionChecks are what a session of the own agent will need beyond the
// workspace: each model's endpoint reachable and its key variable set,
// the shared toolchain caches usable and safe, each registry reachable
// through an egress proxy with the workspace's rules, and one command
// run end to end in the per-command kernel sandbox (a write to its
// private TMPDIR and to the workspace, read back). The dry run is
// audited like any sandbox run.
func sessionChecks(ctx context.Context, root, home string) []pxworkspace.Check {
	cfg, err := pxworkspace.LoadConfig(root)
	if err != nil {
		return []pxworkspace.Check{{Name: "session", Status: pxworkspace.StatusSkip, Detail: "the configuration does not load: " + err.Error()}}
	}
	var out []pxworkspace.Check
	if cfg.LLM != nil {
		for _, m := range cfg.LLM.Models {
			out = append(out, modelCheck(ctx, m))
		}
	}
	s := cfg.AgentSettings()
	caches, registries := engine.CommandNeeds(root, home, s)
	out = append(out, cacheChecks(caches)...)
	if s.SandboxOff {
		out = append(out, pxworkspace.Check{Name: "registries", Status: pxworkspace.StatusSkip,
			Detail: "agent.sandbox is off: commands reach the network directly, without the egress proxy"})
	} else {
		out = append(out, registryChecks(ctx, registries)...)
	}
	return append(out, dryRunCheck(ctx, root, home, cfg))
}

// modelCheck dials a model's endpoint (TCP, bounded) and looks for its
// key variable in this environment (never reading its value out).
func modelCheck(ctx context.Context, m llm.ModelConfig) pxworkspace.Check {
	c := pxworkspace.Check{Name: "model " + m.Name}
	if m.Provider == llm.ProviderScripted {
		c.Status, c.Detail = pxworkspace.StatusOK, "scripted (a file of turns; no endpoint)"
		return c
	}
	if m.APIKeyEnv != "" && os.Getenv(m.APIKeyEnv) == "" {
		c.Status, c.Detail = pxworkspace.StatusWarn, m.APIKeyEnv+" is not set in this environment"
		c.Fix = "export " + m.APIKeyEnv + " before parallax start (the engine reads it; the agent never sees it)"
		return c
	}
	base := m.Endpoint()
	u, err := url.Parse(base)
	if base == "" || err != nil || u.Hostname() == "" {
		c.Status, c.Detail = pxworkspace.StatusWarn, "no endpoint to check for provider "+string(m.Provider)
		return c
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(dctx, "tcp", addr)
	if err != nil {
		c.Status, c.Detail = pxworkspace.StatusWarn, m.Model+" at "+addr+" cannot be reached: "+err.Error()
		c.Fix = "start the model server, or check the network and base_url in config.yaml"
		return c
	}
	conn.Close()
	c.Status, c.Detail = pxworkspace.StatusOK, m.Model+" at "+addr+" reachable"
	return c
}

// dryRunCheck runs one command in the per-command sandbox, as a turn's
// command would run: it writes its private TMPDIR and the workspace and
// reads both back.
func dryRunCheck(ctx context.Context, root, home string, cfg pxworkspace.Config) pxworkspace.Check {
	c := pxworkspace.Check{Name: "sandboxed run"}
	s := cfg.AgentSettings()
	if s.SandboxOff {
		c.Status, c.Detail = pxworkspace.StatusSkip, "agent.sandbox is off: commands run unconfined"
		return c
	}
	if err := sandbox.Available(); err != nil {
		c.Status, c.Detail = pxworkspace.StatusSkip, "this kernel cannot sandbox commands: "+err.Error()
		return c
	}
	probe := ".parallax-doctor-probe"
	script := `set -e; echo tmp > "$TMPDIR/doctor"; echo ws > ` + probe + `; cat "$TMPDIR/doctor" ` + probe + `; rm -f ` + probe
	var stdout, stderr bytes.Buffer
	env, _ := shell.Scrub{Allowlist: true}.Apply(os.Environ())
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	code, _, err := engine.RunSandboxed(rctx, engine.SandboxRun{Root: root, Home: home, Settings: s,
		Argv: []string{"/bin/sh", "-c", script}, Env: env, Stdout: &stdout, Stderr: &stderr})
	_ = os.Remove(root + "/" + probe) // a run that failed half-way
	if err != nil || code != 0 || stdout.String() != "tmp\nws\n" {
		c.Status = pxworkspace.StatusFail
		c.Detail = fmt.Sprintf("a command in the sandbox did not run as a turn's would (exit %d, %v): %s",
			code, err, strings.TrimSpace(stderr.String()+" "+stdout.String()))
		c.Fix = "parallax sandbox explain 'echo hi' shows the sandbox a command gets; parallax doctor's landlock/seccomp/userns lines say what the kernel lacks"
		return c
	}
	c.Status, c.Detail = pxworkspace.StatusOK, "a command wrote its private TMPDIR and the workspace in its own sandbox, and read both back"
	return c
}
