package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// TestDoctorChecksTheRegistries: through an egress proxy with the
// workspace's rules, a loopback registry that answers is OK, one where
// nothing listens is a WARN naming it and the reason, and a name that
// resolves to loopback is a WARN saying to write the mirror as a literal
// IP:port. Nothing but loopback is dialled.
func TestDoctorChecksTheRegistries(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	upAddr := strings.TrimPrefix(up.URL, "http://")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := closed.Addr().String()
	closed.Close()
	_, port, _ := net.SplitHostPort(upAddr)
	byName := "localhost:" + port
	checks := registryChecks(context.Background(), []string{upAddr, downAddr, byName})
	want := []struct {
		status      pxworkspace.Status
		detail, fix string
	}{
		{pxworkspace.StatusOK, upAddr + " answers", ""},
		{pxworkspace.StatusWarn, downAddr + " cannot be reached through the egress proxy (dial_failed)", "nothing answers there"},
		{pxworkspace.StatusWarn, byName + " cannot be reached through the egress proxy (address_not_public)", "literal IP:port"},
	}
	if len(checks) != len(want) {
		t.Fatalf("got %d checks, want %d: %+v", len(checks), len(want), checks)
	}
	for i, w := range want {
		c := checks[i]
		if c.Status != w.status || !strings.Contains(c.Detail, w.detail) || !strings.Contains(c.Fix, w.fix) {
			t.Errorf("%s: got %s %q (fix %q), want %s with %q (fix with %q)", c.Name, c.Status, c.Detail, c.Fix, w.status, w.detail, w.fix)
		}
	}
}

// TestDoctorChecksTheCaches: a cache of the user's is OK; a
// world-writable one, a file where a cache should be, and (as root) one
// owned by another user FAIL with a fix; a missing one under a writable
// parent is OK (the first command creates it).
func TestDoctorChecksTheCaches(t *testing.T) {
	home := t.TempDir()
	mk := func(rel string, mode os.FileMode) string {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := mk(".cache/go-build", 0o755)
	open := mk(".npm", 0o777)
	file := filepath.Join(home, ".cargo-registry")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(home, "go", "pkg", "mod")
	cases := []struct {
		path        string
		status      pxworkspace.Status
		detail, fix string
	}{
		{good, pxworkspace.StatusOK, "yours, mode 0755", ""},
		{open, pxworkspace.StatusFail, "world-writable (mode 0777)", "chmod o-w " + open},
		{file, pxworkspace.StatusFail, "not a directory", "remove it"},
		{missing, pxworkspace.StatusOK, "created at the first command", ""},
	}
	if os.Getuid() == 0 {
		other := mk(".cache/pip", 0o755)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			path        string
			status      pxworkspace.Status
			detail, fix string
		}{other, pxworkspace.StatusFail, "owned by uid 65534, not by you", "chown"})
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, c.path)
	}
	for i, c := range cacheChecks(paths) {
		w := cases[i]
		if c.Name != "cache "+w.path || c.Status != w.status || !strings.Contains(c.Detail, w.detail) || !strings.Contains(c.Fix, w.fix) {
			t.Errorf("%s: got %s %q (fix %q), want %s with %q (fix with %q)", c.Name, c.Status, c.Detail, c.Fix, w.status, w.detail, w.fix)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("doctor created the missing cache: it must not change anything")
	}
}
