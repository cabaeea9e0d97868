//go:build linux

package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// testEnv is a small base environment: no test depends on the runner's.
func testEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/tester", "LANG=C"}
}

func newRunner(t *testing.T) *Runner {
	return &Runner{Workspace: t.TempDir(), Env: testEnv(), KillGrace: 200 * time.Millisecond}
}

func command(t testing.TB, cmd string, timeout int) *action.Action {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"command": cmd, "timeout_seconds": timeout})
	a, err := action.Decode("execute_command", raw)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// alive reports whether pid is a process that is neither dead (zombie)
// nor dying: exiting, or with SIGKILL pending. A process killed a moment
// ago may still be tearing down; what matters is that it cannot run on.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// f[0] state, f[6] flags (PF_EXITING is 0x4)
	if len(f) < 7 || f[0] == "Z" || f[0] == "X" {
		return false
	}
	if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&0x4 != 0 {
		return false
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&(1<<(9-1)) != 0 {
			return false // SIGKILL pending
		}
	}
	return true
}

// groupMembers lists the live processes of process group pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// f[0] state, f[1] ppid, f[2] pgrp
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// pids reads "pid pid …" the command printed on its first line.
func pids(t *testing.T, out string) []int {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	var ps []int
	for _, f := range strings.Fields(line) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("first line %q: %v", line, err)
		}
		ps = append(ps, n)
	}
	return ps
}

func TestRun(t *testing.T) {
	cases := []struct {
		name    string
		command string
		exit    int
		want    string
	}{
		{"stdout", "echo hello", 0, "hello\n"},
		{"exit code", "exit 3", 3, ""},
		{"interleaved", "echo a; echo b >&2; echo c", 0, "a\nb\nc\n"},
		{"stdin is /dev/null", "cat; readlink /proc/self/fd/0", 0, "/dev/null\n"},
		{"bash syntax", "x=(a b c); echo ${#x[@]} $((2+3))", 0, "3 5\n"},
		{"env kept", "echo $HOME $LANG", 0, "/home/tester C\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRunner(t)
			res, err := r.Execute(context.Background(), tools.Call{Action: command(t, c.command, 0)})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != c.exit || res.Output != c.want || res.TimedOut || res.Truncated {
				t.Fatalf("got %+v, want exit %d output %q", res, c.exit, c.want)
			}
		})
	}
}

func TestRunsInWorkspace(t *testing.T) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), "pwd -P; touch made-here", 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(r.Workspace)
	if strings.TrimSpace(res.Output) != want {
		t.Fatalf("pwd %q, want %q", res.Output, want)
	}
	if _, err := os.Stat(filepath.Join(r.Workspace, "made-here")); err != nil {
		t.Fatal(err)
	}
}

// TestTimeoutKillsGroup: a command that backgrounds a grandchild and
// waits is ended by the timeout, grandchild included.
func TestTimeoutKillsGroup(t *testing.T) {
	cases := []struct{ name, command string }{
		{"background grandchild", "sleep 100 & echo $$ $!; wait"},
		{"ignores SIGTERM", "trap '' TERM; sleep 100 & echo $$ $!; wait; wait"},
		{"nested shell", "bash -c 'sleep 100 & echo $PPID $!; wait'; true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRunner(t)
			r.DefaultTimeout = 300 * time.Millisecond
			res, err := r.Run(context.Background(), c.command, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || res.ExitCode != -1 {
				t.Fatalf("got %+v, want timed out and killed", res)
			}
			if !strings.Contains(res.Output, "timed out after 300ms (the default limit; a longer command can set timeout_seconds, up to 600)") {
				t.Errorf("output does not say which limit ended it and how to ask for more: %q", res.Output)
			}
			ps := pids(t, res.Output)
			if m := groupMembers(ps[0]); len(m) != 0 {
				t.Fatalf("process group %d still has %v", ps[0], m)
			}
			for _, p := range ps {
				if alive(p) {
					t.Fatalf("process %d survived", p)
				}
			}
		})
	}
}

func TestLeftoversKilledOnExit(t *testing.T) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), "sleep 100 & echo $$ $!", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("got %+v", res)
	}
	ps := pids(t, res.Output)
	if alive(ps[1]) {
		t.Fatalf("background job %d outlived its command", ps[1])
	}
}

func TestCancelKillsGroup(t *testing.T) {
	r := newRunner(t)
	marker := filepath.Join(r.Workspace, "started")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	res, err := r.Run(ctx, "echo $$; sleep 100 & touch started; wait", 0)
	if tools.CodeOf(err) != tools.CodeCanceled || res.Code != tools.CodeCanceled {
		t.Fatalf("got %+v, %v; want canceled", res, err)
	}
	if m := groupMembers(pids(t, res.Output)[0]); len(m) != 0 {
		t.Fatalf("process group still has %v", m)
	}
}

func TestOutputCapKeepsHeadAndTail(t *testing.T) {
	r := newRunner(t)
	r.OutputCap = 1024
	res, err := r.Run(context.Background(), "printf HEAD; head -c 100000 /dev/zero | tr '\\0' x; printf TAIL", 0)
	if err != nil {
		t.Fatal(err)
	}
	total := 4 + 100000 + 4
	want := fmt.Sprintf("\n[… %d bytes omitted …]\n", total-1024)
	if !res.Truncated || !strings.HasPrefix(res.Output, "HEAD") || !strings.HasSuffix(res.Output, "TAIL") ||
		!strings.Contains(res.Output, want) {
		t.Fatalf("got truncated=%v, %d bytes: %.40q … %.40q", res.Truncated, len(res.Output), res.Output, res.Output[max(0, len(res.Output)-40):])
	}
	if got := len(res.Output) - len(want); got != 1024 {
		t.Fatalf("kept %d bytes, want 1024", got)
	}
}

func TestEnvScrubbedInCommand(t *testing.T) {
	r := newRunner(t)
	r.Env = append(testEnv(), "GITHUB_TOKEN=ghp_secret", "PARALLAX_VAULT=v", "BASH_ENV=/nonexistent/evil",
		"BASH_FUNC_echo%%=() { builtin echo pwned; }", "DB_PASSWORD=hunter2", "EDITOR=vi")
	res, err := r.Run(context.Background(), "env | cut -d= -f1 | sort | tr '\\n' ' '; echo; echo ok", 0)
	if err != nil {
		t.Fatal(err)
	}
	names, rest, _ := strings.Cut(res.Output, "\n")
	if rest != "ok\n" {
		t.Fatalf("echo redefined or BASH_ENV ran: %q", res.Output)
	}
	for _, want := range []string{"PATH", "HOME", "EDITOR"} {
		if !strings.Contains(" "+names, " "+want+" ") {
			t.Errorf("%s missing from %q", want, names)
		}
	}
	for _, bad := range []string{"GITHUB_TOKEN", "PARALLAX_VAULT", "BASH_ENV", "BASH_FUNC", "DB_PASSWORD"} {
		if strings.Contains(names, bad) {
			t.Errorf("%s passed to the command: %q", bad, names)
		}
	}
}

func TestWrap(t *testing.T) {
	t.Run("applied", func(t *testing.T) {
		r := newRunner(t)
		r.Wrap = func(c *exec.Cmd) error {
			c.Env = append(c.Env, "SANDBOXED=landlock")
			c.SysProcAttr = nil // a wrapper cannot drop the process group
			return nil
		}
		res, err := r.Run(context.Background(), `echo $SANDBOXED; [ "$(cut -d' ' -f5 /proc/$$/stat)" = $$ ] && echo own-group`, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != "landlock\nown-group\n" {
			t.Fatalf("got %q", res.Output)
		}
	})
	t.Run("error refuses", func(t *testing.T) {
		r := newRunner(t)
		boom := errors.New("landlock: ABI too old")
		r.Wrap = func(*exec.Cmd) error { return boom }
		res, err := r.Run(context.Background(), "touch ran", 0)
		if tools.CodeOf(err) != tools.CodeSandbox || res.Code != tools.CodeSandbox || !errors.Is(err, boom) {
			t.Fatalf("got %+v, %v; want sandbox_refused", res, err)
		}
		if !strings.Contains(err.Error(), "touch") {
			t.Fatalf("error %q does not name the program", err)
		}
		if _, err := os.Stat(filepath.Join(r.Workspace, "ran")); err == nil {
			t.Fatal("the command ran although Wrap failed")
		}
	})
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name string
		r    *Runner
		call tools.Call
		code string
	}{
		{"timeout over max", &Runner{Workspace: "/", MaxTimeout: time.Minute}, tools.Call{Action: command(t, "true", 61)}, tools.CodeBadInput},
		{"relative workspace", &Runner{Workspace: "w"}, tools.Call{Action: command(t, "true", 0)}, tools.CodeBadInput},
		{"missing workspace", &Runner{Workspace: "/nonexistent/ws"}, tools.Call{Action: command(t, "true", 0)}, tools.CodeNotFound},
		{"not a command", &Runner{Workspace: "/"}, tools.Call{Action: &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: "/x"}}}, tools.CodeUnsupported},
		{"no action", &Runner{Workspace: "/"}, tools.Call{}, tools.CodeBadInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := c.r.Execute(context.Background(), c.call)
			if tools.CodeOf(err) != c.code || res.Code != c.code {
				t.Fatalf("got %+v, %v; want %s", res, err, c.code)
			}
		})
	}
}

func TestProgramNamedNotCommand(t *testing.T) {
	cases := []struct{ command, want string }{
		{"curl -H 'Authorization: Bearer abc' x", "curl"},
		{"TOKEN=abc make", "(command)"},
		{"$(printf secret)", "(command)"},
		{"", "(command)"},
	}
	for _, c := range cases {
		if got := program(c.command); got != c.want {
			t.Errorf("program(%q) = %q, want %q", c.command, got, c.want)
		}
	}
}

func BenchmarkSpawnTrue(b *testing.B) {
	r := &Runner{Workspace: b.TempDir(), Env: testEnv()}
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.Run(ctx, "true", 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTimeoutNoteNamesTheLimit(t *testing.T) {
	got := timeoutNote(120*time.Second, true, 10*time.Minute)
	if want := "timed out after 120 s (the timeout_seconds it asked for; at most 600); the command's process group was killed"; got != want {
		t.Errorf("timeoutNote = %q, want %q", got, want)
	}
}
