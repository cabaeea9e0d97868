package approval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
)

func TestFirstAnswerWins(t *testing.T) {
	slow := NewScript("slow", Step{Wait: true})
	fast := NewScript("fast", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{slow, fast}})
	res := start(r.b, context.Background(), cmdAsk("s1", "write_outside", "a", "cp", "/home/dev/other/a"))
	ask := waitAsk(t, slow)
	waitAsk(t, fast)
	if err := fast.Answer(ask.ID, Response{Decision: Deny, User: "ops"}); err != nil {
		t.Fatalf("first answer: %v", err)
	}
	got := waitResult(t, res)
	if got.err != nil || got.ans.Decision != Deny || got.ans.Code != CodeDenied || got.ans.By != "fast" {
		t.Fatalf("got %+v, %v; want deny by fast", got.ans, got.err)
	}
	if err := slow.Answer(ask.ID, Response{Decision: Allow}); !errors.Is(err, ErrResolved) {
		t.Fatalf("late answer: got %v, want ErrResolved", err)
	}
	_ = r.b.Close() // waits for the notifications
	for _, s := range []*Script{slow, fast} {
		rs := s.Resolutions()
		if len(rs) != 1 || rs[0].ID != ask.ID || rs[0].Decision != Deny || rs[0].By != "fast" {
			t.Errorf("%s told %+v, want one deny by fast", s.Name(), rs)
		}
	}
	want := []string{"ApprovalRequested/write_outside", "ActionBlocked/approval_denied", "ApprovalRequested/approval_late_answer"}
	es := entries(t, r.log)
	if got := types(es); !slices.Equal(got, want) {
		t.Fatalf("audit: got %v, want %v", got, want)
	}
	if es[1].Reason != "denied on fast by ops" || es[1].Detail.Ref != ask.ID {
		t.Errorf("blocked entry: got reason %q ref %q", es[1].Reason, es[1].Detail.Ref)
	}
	if es[2].Decision != "" || !strings.Contains(es[2].Detail.Message, "late allow from slow") {
		t.Errorf("late entry: got decision %q message %q", es[2].Decision, es[2].Detail.Message)
	}
}

func TestTimeoutDenies(t *testing.T) {
	s := NewScript("tty", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{s}})
	res := start(r.b, context.Background(), cmdAsk("s1", "sudo", "b", "sudo"))
	ask := waitAsk(t, s)
	if want := t0.Add(DefaultTimeout); !ask.Expires.Equal(want) {
		t.Errorf("expires: got %v, want %v", ask.Expires, want)
	}
	r.clock.Advance(DefaultTimeout - time.Second)
	select {
	case got := <-res:
		t.Fatalf("returned before the timeout: %+v", got)
	case <-time.After(50 * time.Millisecond):
	}
	r.clock.Advance(time.Second)
	got := waitResult(t, res)
	if got.err != nil || got.ans.Decision != Deny || got.ans.Code != CodeTimeout {
		t.Fatalf("got %+v, %v; want deny approval_timeout", got.ans, got.err)
	}
	if got.ans.Reason != "approval timed out: no answer within 5m0s; denied" {
		t.Errorf("reason: got %q", got.ans.Reason)
	}
	if err := s.Answer(ask.ID, Response{Decision: Allow}); !errors.Is(err, ErrResolved) {
		t.Fatalf("answer after timeout: got %v, want ErrResolved", err)
	}
	es := entries(t, r.log)
	want := []string{"ApprovalRequested/sudo", "ApprovalTimeout/approval_timeout", "ApprovalRequested/approval_late_answer"}
	if got := types(es); !slices.Equal(got, want) {
		t.Fatalf("audit: got %v, want %v", got, want)
	}
	if es[1].Decision != "BLOCK" || es[1].Detail.DurationMS != 300000 {
		t.Errorf("timeout entry: got %+v", es[1])
	}
}

func TestHourlyCap(t *testing.T) {
	s := NewScript("tty")
	for range 12 {
		s.steps = append(s.steps, Step{Response: Response{Decision: Allow}})
	}
	r := newRig(t, Config{Channels: []Channel{s}})
	ask := func(i int) Answer {
		t.Helper()
		ans, err := r.b.Request(context.Background(), cmdAsk("s1", "sudo", string(rune('a'+i)), "sudo"))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		return ans
	}
	for i := range DefaultHourlyLimit {
		if got := ask(i); got.Decision != Allow {
			t.Fatalf("request %d: got %+v, want allow", i, got)
		}
		r.clock.Advance(time.Minute)
	}
	got := ask(10)
	if got.Decision != Deny || got.Code != CodeRateLimited || got.AskID == "" {
		t.Fatalf("11th request: got %+v, want deny approval_rate_limited", got)
	}
	if n := len(s.Asks()); n != DefaultHourlyLimit {
		t.Fatalf("channel shown %d requests, want %d (the 11th must not prompt)", n, DefaultHourlyLimit)
	}
	// The first request leaves the rolling window an hour after it was made.
	r.clock.Advance(time.Hour - 10*time.Minute)
	if got := ask(11); got.Decision != Allow {
		t.Fatalf("request after the window moved: got %+v, want allow", got)
	}
	es := entries(t, r.log)
	var hit audit.Entry
	for _, e := range es {
		if e.Type == audit.RateLimitHit {
			hit = e
		}
	}
	if hit.Rule != CodeRateLimited || hit.Detail.Count != 10 || hit.Decision != "BLOCK" {
		t.Errorf("rate limit entry: got %+v", hit)
	}
}

func TestHourlyCapConfigured(t *testing.T) {
	s := NewScript("tty", Step{Response: Response{Decision: Deny}}, Step{Response: Response{Decision: Deny}})
	r := newRig(t, Config{Channels: []Channel{s}, HourlyLimit: 1})
	for i, want := range []string{CodeDenied, CodeRateLimited} {
		ans, _ := r.b.Request(context.Background(), cmdAsk("s"+string(rune('0'+i)), "sudo", string(rune('x'+i)), "sudo"))
		if ans.Code != want {
			t.Fatalf("request %d: got %s, want %s", i, ans.Code, want)
		}
	}
}

func TestGrantScope(t *testing.T) {
	const dir = "/home/dev/other"
	base := cmdAsk("s1", "write_outside", "cp-1", "cp", dir+"/a.txt")
	tests := []struct {
		name  string
		grant GrantKind
		later func(a Ask) Ask
		wait  time.Duration
		end   bool // end the session before asking again
		want  string
	}{
		{"exact covers the same action", GrantExact, func(a Ask) Ask { return a }, 0, false, CodeGranted},
		{"exact: other action asks", GrantExact, func(a Ask) Ask { a.ActionHash = hashOf("cp-2"); return a }, 0, false, CodeDenied},
		{"exact: other session asks", GrantExact, func(a Ask) Ask { a.Session = "s2"; return a }, 0, false, CodeDenied},
		{"exact: other rule asks", GrantExact, func(a Ask) Ask { a.Rule = "ifc_tainted"; return a }, 0, false, CodeDenied},
		{"exact: expired asks", GrantExact, func(a Ask) Ask { return a }, DefaultGrantTTL, false, CodeDenied},
		{"exact: just before expiry", GrantExact, func(a Ask) Ask { return a }, DefaultGrantTTL - time.Second, false, CodeGranted},
		{"exact: session ended asks", GrantExact, func(a Ask) Ask { return a }, 0, true, CodeDenied},
		{"none remembers nothing", GrantNone, func(a Ask) Ask { return a }, 0, false, CodeDenied},
		{"pattern covers a sibling", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "write_outside", "cp-3", "cp", dir+"/b.txt") }, 0, false, CodeGranted},
		{"pattern covers below", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "write_outside", "cp-4", "cp", dir+"/x/y/c.txt") }, 0, false, CodeGranted},
		{"pattern: other program asks", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "write_outside", "mv-1", "mv", dir+"/b.txt") }, 0, false, CodeDenied},
		{"pattern: path outside asks", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "write_outside", "cp-5", "cp", "/home/dev/othermore/b") }, 0, false, CodeDenied},
		{"pattern: one path outside asks", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "write_outside", "cp-6", "cp", dir+"/b", "/etc/passwd") }, 0, false, CodeDenied},
		{"pattern: two programs ask", GrantPattern, func(Ask) Ask {
			a := cmdAsk("s1", "write_outside", "cp-7", "cp", dir+"/b")
			a.Scope.Programs = []string{"cp", "sh"}
			return a
		}, 0, false, CodeDenied},
		{"pattern: opaque asks", GrantPattern, func(Ask) Ask {
			a := cmdAsk("s1", "write_outside", "cp-8", "cp", dir+"/b")
			a.Scope.Opaque = true
			return a
		}, 0, false, CodeDenied},
		{"pattern: a host added asks", GrantPattern, func(Ask) Ask {
			a := cmdAsk("s1", "write_outside", "cp-9", "cp", dir+"/b")
			a.Scope.Hosts = []string{"evil.example"}
			return a
		}, 0, false, CodeDenied},
		{"pattern: other session asks", GrantPattern, func(Ask) Ask { return cmdAsk("s2", "write_outside", "cp-3", "cp", dir+"/b.txt") }, 0, false, CodeDenied},
		{"pattern: other rule asks", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "sensitive_read", "cp-3", "cp", dir+"/b.txt") }, 0, false, CodeDenied},
		{"pattern: expired asks", GrantPattern, func(Ask) Ask { return cmdAsk("s1", "write_outside", "cp-3", "cp", dir+"/b.txt") }, DefaultGrantTTL, false, CodeDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScript("tty", Step{Response: Response{Decision: Allow, Grant: tc.grant}}, Step{Response: Response{Decision: Deny}})
			r := newRig(t, Config{Channels: []Channel{s}})
			first, err := r.b.Request(context.Background(), base)
			if err != nil || first.Decision != Allow || first.Grant != tc.grant {
				t.Fatalf("first: got %+v, %v; want allow with %v grant", first, err, tc.grant)
			}
			r.clock.Advance(tc.wait)
			if tc.end {
				if n, err := r.b.EndSession(context.Background(), "s1"); err != nil || n != 1 {
					t.Fatalf("end session: got %d, %v; want 1 grant dropped", n, err)
				}
			}
			got, err := r.b.Request(context.Background(), tc.later(base))
			if err != nil || got.Code != tc.want {
				t.Fatalf("second: got %+v, %v; want %s", got, err, tc.want)
			}
			if prompted := len(s.Asks()) == 2; prompted != (tc.want != CodeGranted) {
				t.Errorf("second request prompted: got %v, want %v", prompted, tc.want != CodeGranted)
			}
			if tc.want == CodeGranted && (got.GrantID != first.GrantID || got.AskID != "") {
				t.Errorf("granted answer: got grant %q ask %q, want grant %q and no ask", got.GrantID, got.AskID, first.GrantID)
			}
		})
	}
}

func TestGrantAudited(t *testing.T) {
	s := NewScript("tty", Step{Response: Response{Decision: Allow, Grant: GrantPattern}})
	r := newRig(t, Config{Channels: []Channel{s}})
	a := cmdAsk("s1", "write_outside", "cp-1", "cp", "/home/dev/other/a")
	if _, err := r.b.Request(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	b := cmdAsk("s1", "write_outside", "cp-2", "cp", "/home/dev/other/b")
	if ans, err := r.b.Request(context.Background(), b); err != nil || ans.Code != CodeGranted {
		t.Fatalf("got %+v, %v", ans, err)
	}
	es := entries(t, r.log)
	want := []string{"ApprovalRequested/write_outside", "ActionApproved/approval_allowed", "ActionApproved/approval_grant"}
	if got := types(es); !slices.Equal(got, want) {
		t.Fatalf("audit: got %v, want %v", got, want)
	}
	if es[1].Detail.Code != "pattern" || !strings.Contains(es[1].Detail.Message, "cp under /home/dev/other") {
		t.Errorf("approval entry detail: got %+v", es[1].Detail)
	}
	if es[2].Detail.Ref != "grant-id-2" || es[2].Detail.Code != "pattern" || es[2].ActionHash != b.ActionHash {
		t.Errorf("grant use entry: got %+v", es[2])
	}
}

func TestPatternOffer(t *testing.T) {
	tests := []struct {
		name string
		ask  Ask
		want *Pattern
	}{
		{"one program, one dir", cmdAsk("s", "r", "1", "cp", "/home/dev/o/a", "/home/dev/o/b"),
			&Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev/o"}},
		{"common ancestor", cmdAsk("s", "r", "1", "cp", "/home/dev/o/a", "/home/dev/p/q/b"),
			&Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev"}},
		{"too broad a prefix", cmdAsk("s", "r", "1", "rm", "/home/a", "/etc/b"), nil},
		{"path at the top", cmdAsk("s", "r", "1", "rm", "/tmp/x"), nil},
		{"program only", cmdAsk("s", "r", "1", "make"), &Pattern{ActionType: "execute_command", Program: "make"}},
		{"opaque", func() Ask { a := cmdAsk("s", "r", "1", "cp", "/home/dev/a"); a.Scope.Opaque = true; return a }(), nil},
		{"two programs", func() Ask {
			a := cmdAsk("s", "r", "1", "cp", "/home/dev/a")
			a.Scope.Programs = []string{"a", "b"}
			return a
		}(), nil},
		{"no session", cmdAsk("", "r", "1", "cp", "/home/dev/o/a"), nil},
		{"mail has none", Ask{Session: "s", ActionType: "send_email", ActionHash: hashOf("m"), Rule: "r",
			Scope: Scope{Hosts: []string{"mail.example"}}}, nil},
		{"http host", Ask{Session: "s", ActionType: "http_request", ActionHash: hashOf("h"), Rule: "r",
			Scope: Scope{Hosts: []string{"api.example.com"}}}, &Pattern{ActionType: "http_request", Host: "api.example.com"}},
		{"http two hosts", Ask{Session: "s", ActionType: "http_request", ActionHash: hashOf("h"), Rule: "r",
			Scope: Scope{Hosts: []string{"a.example", "b.example"}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScript("tty", Step{Response: Response{Decision: Deny}})
			r := newRig(t, Config{Channels: []Channel{s}})
			if _, err := r.b.Request(context.Background(), tc.ask); err != nil {
				t.Fatal(err)
			}
			shown := s.Asks()[0]
			if (shown.Pattern == nil) != (tc.want == nil) || tc.want != nil && *shown.Pattern != *tc.want {
				t.Fatalf("offered: got %+v, want %+v", shown.Pattern, tc.want)
			}
			if got := shown.Offers(GrantPattern); got != (tc.want != nil) {
				t.Errorf("offers pattern: got %v, want %v", got, tc.want != nil)
			}
			if got := shown.Offers(GrantExact); got != (tc.ask.Session != "") {
				t.Errorf("offers exact: got %v, want %v", got, tc.ask.Session != "")
			}
		})
	}
}

func TestResponseChecked(t *testing.T) {
	offered := cmdAsk("s1", "write_outside", "cp-1", "cp", "/home/dev/other/sub/a")
	opaque := offered
	opaque.Scope.Opaque = true
	tests := []struct {
		name string
		ask  Ask
		resp Response
		want error // nil: accepted
	}{
		{"offered pattern", offered, Response{Decision: Allow, Grant: GrantPattern}, nil},
		{"wider prefix", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev"}}, nil},
		{"narrower prefix", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev/other/sub/a"}}, nil},
		{"prefix too broad", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home"}}, ErrBadResponse},
		{"prefix not covering", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev/elsewhere"}}, ErrBadResponse},
		{"other program", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", Program: "rm", PathPrefix: "/home/dev/other/sub"}}, ErrBadResponse},
		{"program dropped", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", PathPrefix: "/home/dev/other/sub"}}, ErrBadResponse},
		{"unclean prefix", offered, Response{Decision: Allow, Grant: GrantPattern,
			Pattern: &Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev/other/../other"}}, ErrBadResponse},
		{"pattern not offered", opaque, Response{Decision: Allow, Grant: GrantPattern}, ErrBadResponse},
		{"exact without session", cmdAsk("", "r", "x", "cp"), Response{Decision: Allow, Grant: GrantExact}, ErrBadResponse},
		{"unknown decision", offered, Response{Decision: 7}, ErrBadResponse},
		{"unknown grant", offered, Response{Decision: Allow, Grant: 9}, ErrBadResponse},
		{"user with escape", offered, Response{Decision: Allow, User: "ops\x1b[2J"}, ErrBadResponse},
		{"grant on deny ignored", opaque, Response{Decision: Deny, Grant: GrantPattern}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScript("tty", Step{Wait: true})
			r := newRig(t, Config{Channels: []Channel{s}})
			res := start(r.b, context.Background(), tc.ask)
			ask := waitAsk(t, s)
			err := s.Answer(ask.ID, tc.resp)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("answer: got %v, want %v", err, tc.want)
			}
			if err != nil { // still pending: a valid answer decides it
				if err := s.Answer(ask.ID, Response{Decision: Deny}); err != nil {
					t.Fatalf("answer after a refused one: %v", err)
				}
			}
			got := waitResult(t, res)
			if tc.want == nil && got.ans.Decision != tc.resp.Decision {
				t.Errorf("decision: got %v, want %v", got.ans.Decision, tc.resp.Decision)
			}
		})
	}
}

func TestCancelDenies(t *testing.T) {
	s := NewScript("tty", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{s}})
	ctx, cancel := context.WithCancel(context.Background())
	res := start(r.b, ctx, cmdAsk("s1", "sudo", "c", "sudo"))
	ask := waitAsk(t, s)
	cancel()
	got := waitResult(t, res)
	if got.ans.Decision != Deny || got.ans.Code != CodeCancelled || !errors.Is(got.err, context.Canceled) {
		t.Fatalf("got %+v, %v; want deny approval_cancelled with context.Canceled", got.ans, got.err)
	}
	if err := s.Answer(ask.ID, Response{Decision: Allow}); !errors.Is(err, ErrResolved) {
		t.Fatalf("answer after cancel: got %v, want ErrResolved", err)
	}
	_ = r.b.Close()
	if rs := s.Resolutions(); len(rs) != 1 || rs[0].Code != CodeCancelled {
		t.Errorf("resolutions: got %+v, want one approval_cancelled", rs)
	}
}

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name     string
		channels []Channel
		want     string
		failed   []string
	}{
		{"no channel", nil, CodeUnavailable, nil},
		{"every send fails", []Channel{NewScript("a", Step{Fail: ErrScriptDown}), NewScript("b", Step{Fail: ErrScriptDown})}, CodeUnavailable, []string{"a", "b"}},
		// Whether a's failure is recorded before b's answer ends it is a race.
		{"one of two fails", []Channel{NewScript("a", Step{Fail: ErrScriptDown}), NewScript("b", Step{Response: Response{Decision: Allow}})}, CodeAllowed, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Config{Channels: tc.channels})
			got, err := r.b.Request(context.Background(), cmdAsk("s1", "sudo", "u", "sudo"))
			if got.Code != tc.want || (tc.want == CodeUnavailable) != (err != nil) {
				t.Fatalf("got %+v, %v; want %s", got, err, tc.want)
			}
			es := entries(t, r.log)
			last := es[len(es)-1]
			slices.Sort(last.Detail.Labels)
			if tc.want == CodeUnavailable && !slices.Equal(last.Detail.Labels, tc.failed) {
				t.Errorf("failed channels recorded: got %v, want %v", last.Detail.Labels, tc.failed)
			}
		})
	}
}

func TestAuditFailureDenies(t *testing.T) {
	s := NewScript("tty", Step{Response: Response{Decision: Allow}})
	b, err := New(Config{Recorder: failRecorder{}, Channels: []Channel{s}, Clock: newFakeClock(), NewID: seqIDs()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Request(context.Background(), cmdAsk("s1", "sudo", "f", "sudo"))
	if got.Decision != Deny || got.Code != CodeError || err == nil {
		t.Fatalf("got %+v, %v; want deny approval_error with an error", got, err)
	}
	if n := len(s.Asks()); n != 0 {
		t.Errorf("channel shown %d requests, want 0: nothing is asked that is not recorded", n)
	}
}

func TestAllowNotRecordedDenies(t *testing.T) {
	// The request is recorded, then the log closes before the outcome.
	clock := newFakeClock()
	l, _ := openAudit(t, clock.Now)
	s := NewScript("tty", Step{Wait: true})
	b, err := New(Config{Recorder: l, Channels: []Channel{s}, Clock: clock, NewID: seqIDs()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res := start(b, context.Background(), cmdAsk("s1", "sudo", "g", "sudo"))
	ask := waitAsk(t, s)
	_ = l.Close()
	if err := s.Answer(ask.ID, Response{Decision: Allow}); err != nil {
		t.Fatal(err)
	}
	got := waitResult(t, res)
	if got.ans.Decision != Deny || got.ans.Code != CodeError || !errors.Is(got.err, audit.ErrClosed) {
		t.Fatalf("got %+v, %v; want deny approval_error wrapping audit.ErrClosed", got.ans, got.err)
	}
}

func TestDuplicateJoins(t *testing.T) {
	s := NewScript("tty", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{s}})
	a := cmdAsk("s1", "sudo", "d", "sudo")
	first := start(r.b, context.Background(), a)
	ask := waitAsk(t, s)
	second := start(r.b, context.Background(), a)
	// The second joins the pending request; wait until it has.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		r.b.mu.Lock()
		joined := r.b.pending[ask.ID].joined
		r.b.mu.Unlock()
		if joined == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the duplicate request never joined")
		}
	}
	if err := s.Answer(ask.ID, Response{Decision: Allow}); err != nil {
		t.Fatal(err)
	}
	for i, ch := range []<-chan result{first, second} {
		if got := waitResult(t, ch); got.ans.Decision != Allow || got.ans.AskID != ask.ID {
			t.Errorf("request %d: got %+v, want allow of %s", i, got.ans, ask.ID)
		}
	}
	if n := len(s.Asks()); n != 1 {
		t.Errorf("channel shown %d requests, want 1", n)
	}
}

func TestCloseDeniesPending(t *testing.T) {
	s := NewScript("tty", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{s}})
	res := start(r.b, context.Background(), cmdAsk("s1", "sudo", "e", "sudo"))
	waitAsk(t, s)
	if err := r.b.Close(); err != nil {
		t.Fatal(err)
	}
	got := waitResult(t, res)
	if got.ans.Decision != Deny || got.ans.Code != CodeCancelled || !errors.Is(got.err, ErrClosed) {
		t.Fatalf("got %+v, %v; want deny approval_cancelled, ErrClosed", got.ans, got.err)
	}
	if got, err := r.b.Request(context.Background(), cmdAsk("s1", "sudo", "f", "sudo")); got.Decision != Deny || !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: got %+v, %v", got, err)
	}
}

func TestMalformedAsk(t *testing.T) {
	good := cmdAsk("s1", "sudo", "m", "sudo")
	tests := []struct {
		name string
		edit func(*Ask)
	}{
		{"bad hash", func(a *Ask) { a.ActionHash = "sha256:xyz" }},
		{"no hash", func(a *Ask) { a.ActionHash = "" }},
		{"no action type", func(a *Ask) { a.ActionType = "" }},
		{"action type with space", func(a *Ask) { a.ActionType = "execute command" }},
		{"rule with newline", func(a *Ask) { a.Rule = "r\n" }},
		{"session with escape", func(a *Ask) { a.Session = "s\x1b[2J" }},
		{"huge payload", func(a *Ask) { a.Payload = make([]byte, maxPayload+1) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScript("tty", Step{Response: Response{Decision: Allow}})
			r := newRig(t, Config{Channels: []Channel{s}})
			a := good
			tc.edit(&a)
			got, err := r.b.Request(context.Background(), a)
			if got.Decision != Deny || got.Code != CodeError || err == nil {
				t.Fatalf("got %+v, %v; want deny approval_error", got, err)
			}
			if len(s.Asks()) != 0 {
				t.Error("a malformed request was shown")
			}
		})
	}
}

func TestAttachShowsPending(t *testing.T) {
	first := NewScript("tty", Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{first}})
	res := start(r.b, context.Background(), cmdAsk("s1", "sudo", "h", "sudo"))
	ask := waitAsk(t, first)
	web := NewScript("web", Step{Wait: true})
	detach, err := r.b.Attach(web)
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	if got := waitAsk(t, web); got.ID != ask.ID {
		t.Fatalf("attached channel shown %s, want %s", got.ID, ask.ID)
	}
	if err := web.Answer(ask.ID, Response{Decision: Allow}); err != nil {
		t.Fatal(err)
	}
	if got := waitResult(t, res); got.ans.By != "web" || got.ans.Decision != Allow {
		t.Fatalf("got %+v, want allow on web", got.ans)
	}
	if _, err := r.b.Attach(NewScript("web")); err == nil {
		t.Error("a second channel named web was attached")
	}
}

func TestNewRefuses(t *testing.T) {
	l, _ := openAudit(t, nil)
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no recorder", Config{}},
		{"negative timeout", Config{Recorder: l, Timeout: -time.Second}},
		{"negative limit", Config{Recorder: l, HourlyLimit: -1}},
		{"bad channel name", Config{Recorder: l, Channels: []Channel{NewScript("my tty")}}},
		{"empty channel name", Config{Recorder: l, Channels: []Channel{NewScript("")}}},
		{"duplicate names", Config{Recorder: l, Channels: []Channel{NewScript("a"), NewScript("a")}}},
		{"nil channel", Config{Recorder: l, Channels: []Channel{nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := New(tc.cfg); err == nil {
				_ = b.Close()
				t.Fatal("New accepted it")
			}
		})
	}
}

func TestVerdict(t *testing.T) {
	h := hashOf("v")
	for _, tc := range []struct {
		ans  Answer
		want string
	}{
		{Answer{Decision: Allow, Code: CodeAllowed}, "ALLOW"},
		{Answer{Decision: Deny, Code: CodeTimeout}, "BLOCK"},
		{Answer{}, "BLOCK"},
	} {
		v := tc.ans.Verdict(h)
		if v.Decision.String() != tc.want || v.Stage != "human" || v.Tier != 3 || v.Hash != h || v.Rule != tc.ans.Code {
			t.Errorf("%+v: got %+v, want %s at human/3", tc.ans, v, tc.want)
		}
	}
}

func TestConcurrentRequests(t *testing.T) {
	s := NewScript("tty")
	for range 40 {
		s.steps = append(s.steps, Step{Response: Response{Decision: Allow}})
	}
	r := newRig(t, Config{Channels: []Channel{s}, HourlyLimit: 20})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for i := range 40 {
		wg.Go(func() {
			ans, _ := r.b.Request(context.Background(), cmdAsk("s1", "sudo", "k"+string(rune('A'+i)), "sudo"))
			mu.Lock()
			codes[ans.Code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[CodeAllowed] != 20 || codes[CodeRateLimited] != 20 {
		t.Fatalf("got %v, want 20 allowed and 20 rate limited", codes)
	}
	if n := len(entries(t, r.log)); n != 60 {
		t.Errorf("audit entries: got %d, want 60 (20 requested + 20 approved + 20 rate limited)", n)
	}
}
