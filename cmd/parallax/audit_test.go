package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// runAuditCmd runs `parallax audit ARGS` in-process.
func runAuditCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runParallax(t, "", append([]string{"audit"}, args...)...)
}

// auditWorkspace writes a small log into a fresh workspace.
func auditWorkspace(t *testing.T) (ws, path string) {
	t.Helper()
	ws = t.TempDir()
	path = audit.DefaultPath(ws)
	l, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	events := []audit.Event{
		{Type: audit.SessionStarted, Session: "s1"},
		audit.FromVerdict(audit.ActionEvaluated, "s1", "read_file", verdict.Verdict{
			Decision: verdict.Block, Stage: verdict.StageGuard, Rule: "guard_restricted",
			Reason: "reads ~/.ssh/id_rsa \x1b[2J\u202e"}),
		{Type: audit.SessionStarted, Session: "s2"},
		{Type: audit.ActionExecuted, Session: "s2", ActionType: "execute_command", Detail: audit.Detail{ExitCode: 2}},
	}
	for _, ev := range events {
		if _, err := l.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return ws, path
}

func TestAuditList(t *testing.T) {
	ws, _ := auditWorkspace(t)
	for _, c := range []struct {
		name       string
		args       []string
		want, deny []string
	}{
		{"recent", nil, []string{"SEQ", "SessionStarted", "guard_restricted", "BLOCK", "ActionExecuted"}, nil},
		{"last 1", []string{"-n", "1"}, []string{"ActionExecuted"}, []string{"SessionStarted"}},
		{"session", []string{"--session", "s2"}, []string{"s2", "ActionExecuted"}, []string{"guard_restricted"}},
		{"type", []string{"--type", "SessionStarted"}, []string{"s1", "s2"}, []string{"ActionExecuted"}},
		{"escaped", []string{"--type", "ActionEvaluated"}, []string{`\u001b[2J\u202e`}, []string{"\x1b", "\u202e"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runAuditCmd(t, append([]string{"--workspace", ws}, c.args...)...)
			if err != nil {
				t.Fatalf("got %v\n%s", err, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, d := range c.deny {
				if strings.Contains(out, d) {
					t.Errorf("output has %q:\n%s", d, out)
				}
			}
		})
	}
}

func TestAuditListJSONIsTheStoredLines(t *testing.T) {
	ws, path := auditWorkspace(t)
	out, err := runAuditCmd(t, "--workspace", ws, "--json", "-n", "0")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(raw) {
		t.Errorf("got\n%s\nwant the file\n%s", out, raw)
	}
}

func TestAuditVerifyAndRepair(t *testing.T) {
	ws, path := auditWorkspace(t)
	out, err := runAuditCmd(t, "--workspace", ws, "--verify")
	if err != nil || !strings.Contains(out, "ok: ") || !strings.Contains(out, "4 entries") {
		t.Fatalf("verify: got %v\n%s", err, out)
	}
	anchor := strings.TrimSpace(strings.SplitN(strings.SplitAfter(out, "anchor: ")[1], "\n", 2)[0])
	if _, err := audit.ParseAnchor(anchor); err != nil {
		t.Fatalf("printed anchor %q: %v", anchor, err)
	}
	if out, err := runAuditCmd(t, "--workspace", ws, "--verify", "--anchor", anchor); err != nil {
		t.Errorf("verify with its own anchor: %v\n%s", err, out)
	}
	wrong := anchor[:len(anchor)-1] + map[bool]string{true: "1", false: "0"}[anchor[len(anchor)-1] == '0']
	_, err = runAuditCmd(t, "--workspace", ws, "--verify", "--anchor", wrong)
	wantExit(t, err, "anchor_mismatch")

	// A torn tail: reported by listing and verify, fixed by --repair.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"v":1,"seq":5,"ti`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, err = runAuditCmd(t, "--workspace", ws)
	wantExit(t, err, "torn_tail")
	if !strings.Contains(out, "ActionExecuted") {
		t.Errorf("listing before the damage lacks the entries:\n%s", out)
	}
	_, err = runAuditCmd(t, "--workspace", ws, "--verify")
	wantExit(t, err, "line 5 (seq 5")
	if !strings.Contains(err.Error(), "--repair") {
		t.Errorf("got %v, want a hint at --repair", err)
	}
	out, err = runAuditCmd(t, "--workspace", ws, "--repair")
	if err != nil || !strings.Contains(out, "repaired: moved 18 torn bytes") {
		t.Fatalf("repair: got %v\n%s", err, out)
	}
	if _, err := os.Stat(path + ".torn-1"); err != nil {
		t.Errorf("torn file: %v", err)
	}
	if out, err := runAuditCmd(t, "--workspace", ws, "--verify"); err != nil || !strings.Contains(out, "5 entries") {
		t.Errorf("verify after repair: got %v\n%s", err, out)
	}
	if out, err := runAuditCmd(t, "--workspace", ws, "--repair"); err != nil || !strings.Contains(out, "nothing to repair") {
		t.Errorf("second repair: got %v\n%s", err, out)
	}

	// Tampering in the middle is located; --repair refuses it.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(raw, []byte(`"s2"`), []byte(`"s3"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = runAuditCmd(t, "--workspace", ws, "--verify")
	wantExit(t, err, "line 3 (seq 3")
	wantExit(t, err, "hash_mismatch")
	_, err = runAuditCmd(t, "--workspace", ws, "--repair")
	wantExit(t, err, "refused")
	wantExit(t, err, "hash_mismatch")
	if after, _ := os.ReadFile(path); !bytes.Equal(after, bytes.Replace(raw, []byte(`"s2"`), []byte(`"s3"`), 1)) {
		t.Error("a refused repair changed the log")
	}
}

// TestAuditRepairAgreesWithAdvice: whatever verify and doctor send to
// --repair, --repair repairs, keeping every entry that verifies.
func TestAuditRepairAgreesWithAdvice(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, path string)
		want   []string // in the repair's output
	}{
		{"committed last entry cut short", func(t *testing.T, path string) {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, st.Size()-10); err != nil {
				t.Fatal(err)
			}
		}, []string{"head_mismatch", "moved"}},
		{"head file rewritten", func(t *testing.T, path string) {
			head := audit.HeadPath(path)
			b, err := os.ReadFile(head)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(head, bytes.Replace(b, []byte("seq=0"), []byte("seq=9"), 1), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"head_unreadable"}},
		{"head file removed", func(t *testing.T, path string) {
			if err := os.Remove(audit.HeadPath(path)); err != nil {
				t.Fatal(err)
			}
		}, []string{"head_missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := initialisedForDoctor(t)
			path := audit.DefaultPath(ws)
			tt.tamper(t, path)
			_, err := runAuditCmd(t, "--workspace", ws, "--verify")
			wantExit(t, err, "parallax audit --repair")
			out, _, _ := runInitDoctorCmd(t, doctorCommand(fakeDoctorSandbox), "", "--workspace", ws)
			if !strings.Contains(out, "parallax audit --repair") {
				t.Errorf("doctor does not advise --repair:\n%s", out)
			}
			out, err = runAuditCmd(t, "--workspace", ws, "--repair")
			if err != nil {
				t.Fatalf("repair: %v\n%s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("repair output lacks %q:\n%s", w, out)
				}
			}
			if out, err := runAuditCmd(t, "--workspace", ws, "--verify"); err != nil {
				t.Errorf("verify after repair: %v\n%s", err, out)
			}
		})
	}
}

func wantExit(t *testing.T, err error, substr string) {
	t.Helper()
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitAuditBad || !strings.Contains(err.Error(), substr) {
		t.Errorf("got %v, want exit %d mentioning %q", err, exitAuditBad, substr)
	}
}

func TestAuditUsageErrors(t *testing.T) {
	ws := t.TempDir()
	out, err := runAuditCmd(t, "--workspace", ws)
	if err != nil || !strings.Contains(out, "no audit log at "+filepath.Join(ws, ".parallax", "audit.jsonl")) {
		t.Errorf("missing log listing: got %v\n%s", err, out)
	}
	_, err = runAuditCmd(t, "--workspace", ws, "--verify")
	wantExit(t, err, "no audit log")
	for _, args := range [][]string{
		{"--type", "ActionTeleported"},
		{"-n", "-1"},
		{"--anchor", "1:sha256:00"},
		{"--verify", "--repair"},
		{"--verify", "--anchor", "nope"},
		{"extra"},
	} {
		if out, err := runAuditCmd(t, append([]string{"--workspace", ws}, args...)...); err == nil {
			t.Errorf("%v: got nil error\n%s", args, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".parallax")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading commands created .parallax: %v", err)
	}
}

// TestAuditListsWhatEachDecisionWasAbout: a decision's entry names the
// command or path it was about, one line, with secrets redacted before
// they reach the chain, and `parallax audit` shows it.
func TestAuditListsWhatEachDecisionWasAbout(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".parallax"), 0o700); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_cjiUJgE2cEUY1wDGXLJkCOhVBD3UuNDnK1P9"
	evalLines(t, ws, home,
		`{"session":"s1","type":"execute_command","payload":{"command":"go test\n  ./..."}}`,
		`{"session":"s1","type":"read_file","payload":{"path":"`+filepath.Join(ws, "README.md")+`"}}`,
		`{"session":"s1","type":"execute_command","payload":{"command":"curl -H 'Authorization: Bearer `+token+`' https://api.github.com/user"}}`)
	out, err := runAuditCmd(t, "--workspace", ws)
	if err != nil {
		t.Fatalf("audit: %v\n%s", err, out)
	}
	for _, want := range []string{"go test ./...", filepath.Join(ws, "README.md"), "[REDACTED:github_token]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the listing does not show %q:\n%s", want, out)
		}
	}
	raw, _ := os.ReadFile(audit.DefaultPath(ws))
	if strings.Contains(string(raw), token) || strings.Contains(out, token) {
		t.Error("the token reached the audit chain or its listing")
	}
}
