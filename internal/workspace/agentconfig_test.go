package workspace

import (
	"os"
	"strings"
	"testing"
)

func TestAgentConfig(t *testing.T) {
	cases := []struct {
		name, yaml     string
		daily, session float64
		scan           bool
		wantErr        string
	}{
		{"absent", "version: 1\npolicy: default\n", DefaultDailyBudgetUSD, 0, true, ""},
		{"set", "version: 1\npolicy: default\nagent: {daily_budget_usd: 2.5, session_budget_usd: 0.5, outbound_dlp: false}\n", 2.5, 0.5, false, ""},
		{"zero budget", "version: 1\npolicy: default\nagent: {daily_budget_usd: 0}\n", 0, 0, false, "agent.daily_budget_usd"},
		{"negative session", "version: 1\npolicy: default\nagent: {session_budget_usd: -1}\n", 0, 0, false, "agent.session_budget_usd"},
		{"negative price", "version: 1\npolicy: default\nagent: {prices: {m1: {input_per_mtok: -3}}}\n", 0, 0, false, "agent.prices.m1"},
		{"unknown key", "version: 1\npolicy: default\nagent: {daily_budget: 3}\n", 0, 0, false, "daily_budget"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(StateDir(root), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ConfigPath(root), []byte(c.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadConfig(root)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "config.yaml") {
					t.Fatalf("got %v, want an error naming config.yaml and %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, s := cfg.Agent.Budgets()
			if d != c.daily || s != c.session || cfg.Agent.ScanOutbound() != c.scan {
				t.Errorf("got daily %v session %v scan %v, want %v %v %v", d, s, cfg.Agent.ScanOutbound(), c.daily, c.session, c.scan)
			}
		})
	}
}
