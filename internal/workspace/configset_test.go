package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
)

func initWS(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	return root
}

func configChanges(t *testing.T, root string) []audit.Entry {
	t.Helper()
	var out []audit.Entry
	err := audit.Scan(audit.DefaultPath(root), audit.Filter{Type: audit.ConfigChanged}, func(e audit.Entry) error {
		if e.Rule == "config_set" {
			out = append(out, e)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

func clock() func() time.Time {
	t := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func TestSetConfigRoundTrip(t *testing.T) {
	root := initWS(t)
	path := ConfigPath(root)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	withComment := append([]byte("# my settings\n"), orig...)
	if err := os.WriteFile(path, withComment, 0o600); err != nil {
		t.Fatal(err)
	}
	ch, err := SetConfig(context.Background(), root, []Setting{{"agent.max_tool_rounds", "40"}, {"agent.command.timeout", "45s"}},
		SetOptions{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.AgentSettings()
	if s.MaxToolRounds != 40 || s.CommandTimeout != 45*time.Second || s.ContextTokens != DefaultContextTokens {
		t.Fatalf("settings %+v", s)
	}
	now, _ := os.ReadFile(path)
	if !strings.Contains(string(now), "# my settings") {
		t.Fatalf("comment lost:\n%s", now)
	}
	if b, err := os.ReadFile(ch.Backup); err != nil || string(b) != string(withComment) {
		t.Fatalf("backup %s: %q, %v", ch.Backup, b, err)
	}
	entries := configChanges(t, root)
	if len(entries) != 1 {
		t.Fatalf("%d ConfigChanged entries, want 1", len(entries))
	}
	d := entries[0].Detail
	if d.Code != "config_set" || d.Ref != ch.After || !strings.Contains(d.Message, "agent.command.timeout, agent.max_tool_rounds") ||
		!strings.Contains(d.Message, ch.Before) || strings.Contains(d.Message, "45s") {
		t.Fatalf("audit detail %+v", d)
	}
	if _, err := VerifyChain(root); err != nil {
		t.Fatal(err)
	}
	// The same values again: nothing written, nothing recorded.
	ch, err = SetConfig(context.Background(), root, []Setting{{"agent.max_tool_rounds", "40"}}, SetOptions{Now: clock()})
	if err != nil || !ch.Unchanged || len(configChanges(t, root)) != 1 {
		t.Fatalf("unchanged set: %+v %v", ch, err)
	}
}

func TestSetConfigRefusals(t *testing.T) {
	root := initWS(t)
	path := ConfigPath(root)
	before, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name    string
		sets    []Setting
		session string
		want    string
	}{
		{"sandbox from a session", []Setting{{"agent.sandbox", "off"}}, "s1", "security setting"},
		{"policy from a session", []Setting{{"policy", "permissive"}}, "s1", "security setting"},
		{"budget from a session", []Setting{{"agent.daily_budget_usd", "1000"}}, "s1", "security setting"},
		{"model endpoint from a session", []Setting{{"llm.models", "[]"}}, "s1", "security setting"},
		{"one bad key spoils all", []Setting{{"agent.max_tool_rounds", "30"}, {"judge.daily_budget", "9"}}, "s1", "security setting"},
		{"not a number", []Setting{{"agent.max_tool_rounds", "many"}}, "", "would not load"},
		{"out of range", []Setting{{"agent.max_tool_rounds", "100000"}}, "", "out of range"},
		{"unknown key", []Setting{{"agent.turbo", "true"}}, "", "would not load"},
		{"bad sandbox word", []Setting{{"agent.sandbox", "maybe"}}, "", "want on or off"},
		{"cache outside home", []Setting{{"agent.command.caches", "[/etc]"}}, "", "under $HOME"},
		{"bad key syntax", []Setting{{"Agent..x", "1"}}, "", "not a key"},
		{"two values", []Setting{{"agent.max_tool_rounds", "1\n---\n2"}}, "", "not one YAML value"},
		{"into a scalar", []Setting{{"policy.x", "1"}}, "", "holds a value"},
		{"model not configured", []Setting{{"llm.roles.chat", "nope"}}, "s1", "would not load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SetConfig(context.Background(), root, tc.sets, SetOptions{Session: tc.session, Now: clock()})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if tc.want == "security setting" && !errors.Is(err, ErrSecurityKey) {
				t.Fatalf("err %v is not ErrSecurityKey", err)
			}
			if now, _ := os.ReadFile(path); string(now) != string(before) {
				t.Fatalf("file changed:\n%s", now)
			}
		})
	}
	if n := len(configChanges(t, root)); n != 0 {
		t.Fatalf("%d ConfigChanged entries for refused changes", n)
	}
	if ents, _ := os.ReadDir(filepath.Join(StateDir(root), backupsDir, "config")); len(ents) != 0 {
		t.Fatalf("backups for refused changes: %d", len(ents))
	}
}

func TestSetConfigFromSessionAllowedKeys(t *testing.T) {
	root := initWS(t)
	_, err := SetConfig(context.Background(), root, []Setting{{"agent.compact_at", "0.5"}}, SetOptions{Session: "s9", Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	e := configChanges(t, root)
	if len(e) != 1 || e[0].Detail.Code != "config_set_session" || e[0].Session != "s9" {
		t.Fatalf("entries %+v", e)
	}
}

func TestSetConfigChainUnavailableChangesNothing(t *testing.T) {
	root := initWS(t)
	path := ConfigPath(root)
	before, _ := os.ReadFile(path)
	logPath := audit.DefaultPath(root)
	if err := os.Remove(logPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(logPath, "blocker"), 0o700); err != nil { // the log path is a directory
		t.Fatal(err)
	}
	_, err := SetConfig(context.Background(), root, []Setting{{"agent.max_tool_rounds", "40"}}, SetOptions{Now: clock()})
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err %v", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(before) {
		t.Fatal("file changed although the chain could not record it")
	}
}

func TestSetConfigKeepsHundredBackups(t *testing.T) {
	root := initWS(t)
	now := clock()
	for i := range 103 {
		if _, err := SetConfig(context.Background(), root, []Setting{{"agent.max_tool_rounds", string(rune('0' + i%9 + 1))}},
			SetOptions{Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(filepath.Join(StateDir(root), backupsDir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != keepBackups {
		t.Fatalf("%d backups, want %d", len(ents), keepBackups)
	}
}

func TestDoctorSaysSandboxOffLoudly(t *testing.T) {
	root := initWS(t)
	if _, err := SetConfig(context.Background(), root, []Setting{{"agent.sandbox", "off"}}, SetOptions{Now: clock()}); err != nil {
		t.Fatal(err)
	}
	rep := Doctor(context.Background(), root, DoctorOptions{Sandbox: func() []Check { return nil }})
	c := find(rep, "agent")
	if c.Status != StatusWarn || !strings.Contains(c.Detail, "OFF") || !strings.Contains(c.Fix, "agent.sandbox on") {
		t.Fatalf("agent check %+v", c)
	}
}
