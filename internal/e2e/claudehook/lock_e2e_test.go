package claudehook

import (
	"encoding/json"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/flock"
	"github.com/parallax/parallax/internal/gateway/claudecode"
	"github.com/parallax/parallax/internal/gateway/hookd"
)

// TestHeldAuditLockCannotRunTheToolUnchecked: another process holds the
// audit chain's lock (as an agent's background one-liner could), so no
// decision can be recorded. Claude Code runs a tool unchecked once a hook
// outlasts the entry's timeout (60 s, which install writes in every
// entry); the hook must answer within its own deadline instead (3 s here,
// PARALLAX_HOOK_TIMEOUT), and the CLI ends its turn well before Claude
// Code's timeout (each run is bounded at 45 s). Held before the session,
// the lock ends it at its first hooks (SessionStart, UserPromptSubmit):
// the prompt never reaches the model. Taken while the model's turn is
// served, after those hooks, it has the Bash call denied at its
// PreToolUse, whether the hook forwards the call to its warm daemon or
// decides it in its own process. Either way the call never runs (no
// marker file), and once the lock is free, the chain must not record the
// call as allowed without saying that the answer never reached the hook.
func TestHeldAuditLockCannotRunTheToolUnchecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		// duringTurn takes the lock when the model's turn is served
		// instead of before the CLI starts.
		duringTurn bool
		// inProcess has the hooks decide in their own processes
		// (PARALLAX_HOOK_DAEMON=off), each waiting for the lock itself,
		// instead of forwarding to the warm daemon.
		inProcess bool
	}{
		{"before the session", false, false},
		{"during the turn", true, false},
		{"during the turn in process", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, hookParallax, nil)
			checkEntryTimeouts(t, e.read(".claude/settings.json"))
			hold, release := holdLock(t, audit.DefaultPath(e.project))
			turn := bash("toolu_marker", "touch marker.txt")
			if tc.duringTurn {
				turn.Before = hold
			} else {
				hold()
				e.noDaemon = true // it cannot open the chain
			}
			e.cliEnv = []string{"PARALLAX_HOOK_TIMEOUT=3s"}
			if tc.inProcess {
				e.cliEnv = append(e.cliEnv, "PARALLAX_HOOK_DAEMON=off")
				e.noDaemon = true
			}
			e.timeout = 45 * time.Second
			res, session := e.run(turn)
			t.Logf("claude -p with the audit chain's lock held: %v", res.Elapsed)
			if _, err := os.Lstat(e.path("marker.txt")); !os.IsNotExist(err) {
				t.Errorf("the Bash call ran with the audit chain's lock held: marker.txt: %v", err)
			}
			if !tc.duringTurn {
				for _, r := range e.api.Requests() {
					if r.Path == "/v1/messages" {
						t.Errorf("the prompt reached the model: %s", r.Body)
					}
				}
				if !deadlineRe.Match(res.Stdout) {
					t.Errorf("the CLI does not report the hook's answer at its deadline:\n%s", res.Stdout)
				}
				return
			}
			if r := e.result("toolu_marker"); !r.IsError || !deadlineRe.MatchString(r.Text) {
				t.Errorf("tool_result = %+v; want the hook's deny at its deadline", r)
			}
			release()
			e.checkNoEffectRecorded(session, !tc.inProcess)
		})
	}
}

// deadlineRe is the hook's answer at its deadline (3 s): the watchdog's,
// a lock wait's that gave up before it, or the daemon's client's, whose
// wait for the daemon ends at the deadline too.
var deadlineRe = regexp.MustCompile(`could not decide within 3s|lock not granted before the deadline|` +
	`daemon did not answer .* too little time is left`)

// checkEntryTimeouts fails the test unless every Parallax hook entry of
// the settings names claudecode.HookTimeoutSeconds, and there is one for
// every event the hook answers.
func checkEntryTimeouts(t *testing.T, settings string) {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout *int   `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(settings), &s); err != nil {
		t.Fatalf("installed settings: %v\n%s", err, settings)
	}
	for _, ev := range claudecode.Events() {
		n := 0
		for _, g := range s.Hooks[ev] {
			for _, h := range g.Hooks {
				if !claudecode.IsHookCommand(h.Command) {
					continue
				}
				n++
				if h.Timeout == nil || *h.Timeout != claudecode.HookTimeoutSeconds {
					t.Errorf("%s entry %q: timeout %v, want %d", ev, h.Command, h.Timeout, claudecode.HookTimeoutSeconds)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d Parallax entries under %s, want 1:\n%s", n, ev, settings)
		}
	}
}

// holdLock returns hold, which takes the exclusive lock the audit
// chain's writers take on path, in the test's process (every hook process
// and the daemon are others), and release, which frees it; the test's end
// frees it too. hold may run more than once (a request the CLI retries);
// it locks once.
func holdLock(t *testing.T, path string) (hold, release func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600) //nolint:gosec // the test's own workspace
	if err != nil {
		t.Fatal(err)
	}
	var locked, closed sync.Once
	hold = func() {
		locked.Do(func() {
			if err := flock.Lock(f, true); err != nil {
				t.Error(err)
			}
		})
	}
	// Closing the only descriptor unlocks. The cleanup runs before
	// stopDaemons, so a daemon still waiting for the lock can finish.
	release = func() { closed.Do(func() { _ = f.Close() }) }
	t.Cleanup(release)
	return hold, release
}

// checkNoEffectRecorded fails the test if the session's chain, once the
// lock is free, records the Bash call as allowed with nothing after it
// saying the answer never reached the hook (hookd.CodeAnswerLate). A
// daemon that was deciding the call when the hook gave up (viaDaemon)
// records its decision once the lock is free, then that entry: it is
// waited for (30 s at most). A hook deciding in its own process records
// nothing after its deadline.
func (e *env) checkNoEffectRecorded(session string, viaDaemon bool) {
	e.t.Helper()
	late := func(a auditEntry) bool { return a.Type == "ShieldError" && a.Detail.Code == hookd.CodeAnswerLate }
	entries := e.audit(session)
	for deadline := time.Now().Add(30 * time.Second); viaDaemon && !hasEntry(entries, late); entries = e.audit(session) {
		if time.Now().After(deadline) {
			e.t.Errorf("no %s entry after the daemon's decision of a call its hook had denied: %+v", hookd.CodeAnswerLate, entries)
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	allowed := false
	for _, a := range entries {
		allowed = allowed && !late(a) || a.Action == "execute_command" && a.Decision == "ALLOW"
	}
	if allowed {
		e.t.Errorf("the chain records the Bash call as allowed, with no %s entry after it: %+v", hookd.CodeAnswerLate, entries)
	}
}
