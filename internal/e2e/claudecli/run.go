package claudecli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e"
)

// DefaultTimeout bounds one CLI run; generous, since the machine may be
// shared. A run past it is killed and fails the test.
const DefaultTimeout = 3 * time.Minute

// Options configure one CLI run.
type Options struct {
	Bin     string        // the claude binary; e2e.Bin(tb, "claude") when empty
	Dir     string        // the project (cwd); required
	Home    string        // HOME; a new temporary directory when empty
	Prompt  string        // the -p prompt; "go" when empty
	Args    []string      // more CLI flags, after the defaults
	Env     []string      // more environment, after the defaults (later wins)
	Timeout time.Duration // DefaultTimeout when zero
}

// Result is a finished run.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
	Elapsed        time.Duration
}

// Args returns the flags of every run: print mode, stream-json output,
// and a permission mode that lets the scripted tools run without a prompt
// (the hooks under test still decide first). Each call builds a new
// slice: one test cannot change another's runs.
func Args() []string {
	return []string{
		"--output-format", "stream-json", "--verbose",
		"--permission-mode", "bypassPermissions",
		"--model", "claude-sonnet-4-5-20250929",
	}
}

// Env is the environment of every run besides HOME and the base URL: a
// fake key, and everything that keeps the CLI off the network and quick.
func Env(home, baseURL string) []string {
	return []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"USER=dev",
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=sk-ant-fake-e2e-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"DISABLE_COST_WARNINGS=1",
		"DISABLE_NON_ESSENTIAL_MODEL_CALLS=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"CLAUDE_CODE_DISABLE_AUTO_MEMORY=1",
		"CLAUDE_CODE_ENABLE_TELEMETRY=0",
		"CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL=1",
		"CLAUDE_CODE_DISABLE_CLAUDE_MDS=1",
		"USE_BUILTIN_RIPGREP=1",
		"IS_SANDBOX=1", // bypassPermissions is refused to root otherwise
		"NO_PROXY=127.0.0.1,localhost",
		"HTTP_PROXY=", "HTTPS_PROXY=",
	}
}

// Run runs `claude -p` in opts.Dir against f and returns when it exits.
// A run that outlives its timeout is killed with its process group and
// fails the test; a non-zero exit is returned, not failed.
func Run(tb testing.TB, f *FakeAPI, opts Options) Result {
	tb.Helper()
	if opts.Bin == "" {
		opts.Bin = e2e.Bin(tb, "claude")
	}
	if opts.Home == "" {
		opts.Home = tb.TempDir()
	}
	if err := os.MkdirAll(filepath.Join(opts.Home, "tmp"), 0o700); err != nil {
		tb.Fatal(err)
	}
	if opts.Prompt == "" {
		opts.Prompt = "go"
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	args := append([]string{"-p", opts.Prompt}, Args()...)
	args = append(args, opts.Args...)
	cmd := exec.CommandContext(ctx, opts.Bin, args...)
	cmd.Dir = opts.Dir
	cmd.Env = append(Env(opts.Home, f.URL), opts.Env...)
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Elapsed: time.Since(start)}
	// Whatever the CLI left running in its group (hooks, shells) goes too.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		tb.Fatalf("claude -p did not finish within %s; stderr:\n%s\nstdout tail:\n%s", opts.Timeout, res.Stderr, tail(res.Stdout, 4000))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("run claude: %v", err)
	}
	return res
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
