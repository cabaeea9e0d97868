package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/parallax/parallax/internal/flock"
)

const (
	envChildLog = "PARALLAX_AUDIT_TEST_CHILD_LOG"
	envChildID  = "PARALLAX_AUDIT_TEST_CHILD_ID"
	envChildN   = "PARALLAX_AUDIT_TEST_CHILD_N"
)

// TestChildAppender is not a test on its own: TestMultiProcessAppends runs
// the test binary again with it selected, as many short-lived hook
// processes would. Each entry is one Open, Append, Close.
func TestChildAppender(t *testing.T) {
	path := os.Getenv(envChildLog)
	if path == "" {
		t.Skip("run by TestMultiProcessAppends")
	}
	n, err := strconv.Atoi(os.Getenv(envChildN))
	if err != nil {
		t.Fatal(err)
	}
	session := "proc-" + os.Getenv(envChildID)
	for i := range n {
		l, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if _, err := l.Append(context.Background(), Event{Type: ActionProposed, Session: session}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMultiProcessAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := tempLog(t)
	const procs, perProc, inProc = 4, 25, 40
	parent := openT(t, path)

	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildAppender$", "-test.count=1")
			cmd.Env = append(os.Environ(), envChildLog+"="+path, envChildID+"="+strconv.Itoa(p),
				envChildN+"="+strconv.Itoa(perProc))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %d: %v\n%s", p, err, out)
			}
		})
	}
	for g := range 4 {
		wg.Go(func() {
			for i := range inProc / 4 {
				if _, err := parent.Append(context.Background(), Event{Type: ActionEvaluated, Session: "parent"}); err != nil {
					t.Errorf("parent %d/%d: %v", g, i, err)
				}
			}
		})
	}
	wg.Wait()
	if err := parent.Close(); err != nil {
		t.Fatal(err)
	}

	rep, err := Verify(path, VerifyOptions{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if want := procs*perProc + inProc; rep.Entries != want || rep.HeadLag != 0 {
		t.Errorf("got %d entries, head lag %d; want %d, 0", rep.Entries, rep.HeadLag, want)
	}
	count := map[string]int{}
	if err := Scan(path, Filter{}, func(e Entry) error { count[e.Session]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for p := range procs {
		if got := count[fmt.Sprintf("proc-%d", p)]; got != perProc {
			t.Errorf("process %d: got %d entries, want %d", p, got, perProc)
		}
	}
	if count["parent"] != inProc {
		t.Errorf("parent: got %d entries, want %d", count["parent"], inProc)
	}
}

// TestChildCrasher dies in the middle of a write while holding the lock,
// for TestCrashedWriter.
func TestChildCrasher(t *testing.T) {
	path := os.Getenv(envChildLog)
	if path == "" || os.Getenv(envChildID) != "crash" {
		t.Skip("run by TestCrashedWriter")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := flock.Lock(f, true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(`{"v":1,"seq":4,"time":"2026-03-01T12:0`)); err != nil {
		t.Fatal(err)
	}
	os.Exit(3) // no unlock, no close: the kernel releases the lock
}

func TestCrashedWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	path := writeLog(t, 3)
	l := openT(t, path)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildCrasher$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChildLog+"="+path, envChildID+"=crash")
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("child: got %v, want exit status 3", err)
	}
	_, err = l.Append(context.Background(), sampleEvent(4))
	if ce, ok := AsChainError(err); !ok || ce.Code != CodeTornTail || ce.Line != 4 {
		t.Fatalf("append after the crash: got %v, want torn_tail at line 4", err)
	}
	rec, err := Recover(path, Options{})
	if err != nil || rec.Entry.Seq != 4 {
		t.Fatalf("recover: got %+v, %v", rec, err)
	}
	if e, err := l.Append(context.Background(), sampleEvent(5)); err != nil || e.Seq != 5 {
		t.Errorf("append after recover: got seq %d, %v; want 5", e.Seq, err)
	}
	if rep, err := Verify(path, VerifyOptions{}); err != nil || rep.Entries != 5 {
		t.Errorf("verify: got %d entries, %v; want 5, nil", rep.Entries, err)
	}
}
