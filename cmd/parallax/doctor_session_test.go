package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/sandbox"
)

// TestDoctorChecksTheModelEndpoint: a model server that answers is OK, one
// that does not is a WARN naming the address, a key variable that is not
// set is a WARN naming the variable (never its value).
func TestDoctorChecksTheModelEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	t.Setenv("PARALLAX_TEST_MISSING_KEY", "")
	for _, tc := range []struct {
		m      llm.ModelConfig
		status pxworkspace.Status
		detail string
	}{
		{llm.ModelConfig{Name: "local", Provider: llm.ProviderOpenAICompatible, Model: "m", BaseURL: "http://" + ln.Addr().String() + "/v1"},
			pxworkspace.StatusOK, "reachable"},
		{llm.ModelConfig{Name: "down", Provider: llm.ProviderOpenAICompatible, Model: "m", BaseURL: "http://" + closedAddr + "/v1"},
			pxworkspace.StatusWarn, closedAddr + " cannot be reached"},
		{llm.ModelConfig{Name: "keyless", Provider: llm.ProviderAnthropic, Model: "claude-sonnet-4-5", APIKeyEnv: "PARALLAX_TEST_MISSING_KEY"},
			pxworkspace.StatusWarn, "PARALLAX_TEST_MISSING_KEY is not set"},
		{llm.ModelConfig{Name: "script", Provider: llm.ProviderScripted}, pxworkspace.StatusOK, "scripted"},
	} {
		c := modelCheck(context.Background(), tc.m)
		if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) {
			t.Errorf("%s: got %s %q, want %s with %q", tc.m.Name, c.Status, c.Detail, tc.status, tc.detail)
		}
	}
}

// TestDoctorRunsACommandInTheSandbox: the real binary's doctor runs one
// command in the per-command sandbox of a fresh workspace and reports it,
// with the caches of a fresh home (missing: created at first use) and the
// workspace's registry (a loopback one) reached through the egress
// proxy; the probe file it wrote in the workspace is gone afterwards.
func TestDoctorRunsACommandInTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if err := sandbox.Available(); err != nil {
		t.Skipf("no kernel sandbox here: %v", err)
	}
	px := buildParallax(t)
	ws, home := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home)
	if out, err := (&exec.Cmd{Path: px, Args: []string{px, "init", ws}, Env: env}).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	reg := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer reg.Close()
	regAddr := strings.TrimPrefix(reg.URL, "http://")
	f, err := os.OpenFile(pxworkspace.ConfigPath(ws), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("agent:\n  command:\n    registries: [\"" + regAddr + "\"]\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := (&exec.Cmd{Path: px, Args: []string{px, "doctor", "--workspace", ws}, Env: env}).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "failed") {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	for _, want := range []string{"OK    sandboxed run", "OK    registry " + regAddr, "OK    cache " + filepath.Join(home, ".cache", "go-build")} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor did not report %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".parallax-doctor-probe")); !os.IsNotExist(err) {
		t.Errorf("the probe file was left in the workspace (%v)", err)
	}
}
