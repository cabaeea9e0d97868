package engine

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/parallax/parallax/internal/tools"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shield"
)

// This file names the environment a command will run with, so that the
// gate judges it with that environment (shield.Request.Env), and holds
// the command to it.

// CommandTempDir is the TMPDIR a command gets inside the per-command
// sandbox of the workspace ws with home home: /tmp, or its writable
// part when /tmp holds the workspace or the home again.
func CommandTempDir(ws, home string) string {
	return resolved(sandbox.CommandSpec{Workspace: ws, Home: home, Isolate: true}).TempDirInside()
}

// CommandEnv names the values of shield.EnvNames() the command will get:
// from the runner's scrubbed environment, the workspace as PWD, and,
// with the sandbox, its private temp directory as TMPDIR. Never a value
// the scrub drops.
func (s *shellExecutor) CommandEnv() map[string]string {
	base := s.runner.Env
	if base == nil {
		base = os.Environ()
	}
	scrubbed, _ := s.runner.Scrub.Apply(base)
	env := make(map[string]string, len(shield.EnvNames()))
	for _, kv := range scrubbed {
		name, value, _ := strings.Cut(kv, "=")
		if slices.Contains(shield.EnvNames(), name) && name != "PWD" {
			env[name] = value
		}
	}
	delete(env, "TMPDIR")
	if s.sandbox != nil && s.tempDir != "" {
		env["TMPDIR"] = s.tempDir
	}
	env["PWD"] = s.runner.Workspace
	return env
}

// envChecked wraps wrap (nil: no sandbox) so that the command is refused
// when the environment it would start with differs from the one the
// gate judged it with: each judged name with the same value (PWD: the
// directory it starts in).
func envChecked(wrap func(*exec.Cmd) error, judged map[string]string) func(*exec.Cmd) error {
	if len(judged) == 0 {
		return wrap
	}
	return func(c *exec.Cmd) error {
		if wrap != nil {
			if err := wrap(c); err != nil {
				return err
			}
		}
		for name, want := range judged {
			got, ok := c.Dir, true
			if name != "PWD" {
				got, ok = lastValue(c.Env, name)
			}
			if !ok || got != want {
				return fmt.Errorf("%s: the command's %s is not the one the gate judged it with", tools.CodeSandbox, name)
			}
		}
		return nil
	}
}

// lastValue is the value of name in env (the last entry wins, as in
// exec.Cmd).
func lastValue(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}
