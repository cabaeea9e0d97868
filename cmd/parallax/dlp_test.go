package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runDLP runs `parallax dlp ARGS` in-process with stdin.
func runDLP(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	return runParallax(t, stdin, append([]string{"dlp"}, args...)...)
}

// A fake .env file: random values in the vendors' formats.
const dlpEnv = "# app\nDATABASE_URL=postgres://app:Wq7vR2pL9xM4@db.internal:5432/app\n" +
	"GITHUB_TOKEN=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH\nADMIN=maria.garcia@acme-corp.com\n"

func TestDLPScanFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(file, []byte(dlpEnv), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runDLP(t, "", "scan", file)
	if err != nil {
		t.Fatalf("scan: %v\n%s", err, out)
	}
	for _, want := range []string{"class SECRET, 3 finding(s)", "2:29\tconnection_string_password", "3:14\tgithub_token", "ghp_…[40]", "4:7\temail"} {
		if !strings.Contains(out, want) {
			t.Errorf("got %q, want it to contain %q", out, want)
		}
	}
	for _, secret := range []string{"Wq7vR2pL9xM4", "MxEhh2FDEEtf", "maria.garcia"} {
		if strings.Contains(out, secret) {
			t.Errorf("report %q echoes the value %q", out, secret)
		}
	}
}

func TestDLPScanStdinRedact(t *testing.T) {
	out, err := runDLP(t, dlpEnv, "scan", "--redact", "-")
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	want := "# app\nDATABASE_URL=postgres://app:[REDACTED:connection_string_password]@db.internal:5432/app\n" +
		"GITHUB_TOKEN=[REDACTED:github_token]\nADMIN=maria.garcia@acme-corp.com\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out, err = runDLP(t, dlpEnv, "scan", "--redact", "--action", "email=redact")
	if err != nil || !strings.Contains(out, "ADMIN=[REDACTED:email]") {
		t.Errorf("got %q, %v, want the email redacted", out, err)
	}
}

func TestDLPScanJSONAndBlock(t *testing.T) {
	out, err := runDLP(t, dlpEnv, "scan", "--json", "--action", "github_token=block")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitDLPBlock || !strings.Contains(err.Error(), "blocked by github_token") {
		t.Fatalf("got %v, want exit %d naming github_token", err, exitDLPBlock)
	}
	var rep struct {
		Class    string `json:"class"`
		Block    bool   `json:"block"`
		Findings []struct {
			Scanner string `json:"scanner"`
			Action  string `json:"action"`
			Line    int    `json:"line"`
			Preview string `json:"preview"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	if rep.Class != "SECRET" || !rep.Block || len(rep.Findings) != 3 || rep.Findings[1].Action != "block" || rep.Findings[1].Line != 3 {
		t.Errorf("got %+v, want SECRET, blocked, the token finding on line 3 blocking", rep)
	}
}

func TestDLPScanErrors(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("a"), maxDLPInput+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown scanner", []string{"scan", "--action", "aws=block"}, `"aws": unknown scanner`},
		{"bad action", []string{"scan", "--action", "email=allow"}, `email: parse action "allow"`},
		{"bad flag", []string{"scan", "--action", "email"}, "want ID=ACTION"},
		{"missing file", []string{"scan", filepath.Join(t.TempDir(), "nope")}, "no such file"},
		{"too large", []string{"scan", big}, "larger than 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runDLP(t, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestDLPScanners(t *testing.T) {
	out, err := runDLP(t, "", "scanners")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n < 22 || !strings.Contains(out, "private_key") {
		t.Errorf("got %d lines, want the scanner table:\n%s", n, out)
	}
}
