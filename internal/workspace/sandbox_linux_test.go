//go:build linux

package workspace

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeKernel builds a probe from canned answers; /proc/sys files not in
// files do not exist.
func fakeKernel(abi int, abiErr error, mode int, modeErr, filterErr error, files map[string]string) KernelProbe {
	return KernelProbe{
		LandlockABI:   func() (int, error) { return abi, abiErr },
		SeccompMode:   func() (int, error) { return mode, modeErr },
		SeccompFilter: func() error { return filterErr },
		ReadFile: func(name string) ([]byte, error) {
			if s, found := files[name]; found {
				return []byte(s), nil
			}
			return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
		},
	}
}

var usernsOK = map[string]string{maxUserNS: "63419\n"}

func TestProbeChecks(t *testing.T) {
	tests := []struct {
		name   string
		probe  KernelProbe
		check  string
		status Status
		detail string
	}{
		{"landlock recent", fakeKernel(6, nil, 0, nil, nil, usernsOK), "landlock", StatusOK, "ABI v6: file and TCP rules"},
		{"landlock first net ABI", fakeKernel(4, nil, 0, nil, nil, usernsOK), "landlock", StatusOK, "ABI v4"},
		{"landlock files only", fakeKernel(3, nil, 0, nil, nil, usernsOK), "landlock", StatusWarn, "ABI v3: file rules only"},
		{"landlock not built", fakeKernel(0, unix.ENOSYS, 0, nil, nil, usernsOK), "landlock", StatusWarn, "has no Landlock"},
		{"landlock not enabled", fakeKernel(0, unix.EOPNOTSUPP, 0, nil, nil, usernsOK), "landlock", StatusWarn, "not enabled at boot"},
		{"landlock refused", fakeKernel(0, unix.EPERM, 0, nil, nil, usernsOK), "landlock", StatusWarn, "operation not permitted"},
		{"landlock odd answer", fakeKernel(0, nil, 0, nil, nil, usernsOK), "landlock", StatusWarn, "unexpected ABI version 0"},
		{"seccomp available", fakeKernel(6, nil, 0, nil, nil, usernsOK), "seccomp", StatusOK, "filters available"},
		{"seccomp under a filter", fakeKernel(6, nil, 2, nil, nil, usernsOK), "seccomp", StatusOK, "already runs under one"},
		{"seccomp not built", fakeKernel(6, nil, 0, unix.EINVAL, nil, usernsOK), "seccomp", StatusWarn, "has no seccomp"},
		{"seccomp filter refused", fakeKernel(6, nil, 2, nil, unix.EPERM, usernsOK), "seccomp", StatusWarn, "filter mode not usable"},
		{"seccomp old kernel", fakeKernel(6, nil, 0, nil, unix.EOPNOTSUPP, usernsOK), "seccomp", StatusWarn, "SECCOMP_GET_ACTION_AVAIL"},
		{"userns allowed", fakeKernel(6, nil, 0, nil, nil, usernsOK), "userns", StatusOK, "at most 63419"},
		{"userns no kernel support", fakeKernel(6, nil, 0, nil, nil, nil), "userns", StatusWarn, "no user namespaces"},
		{"userns max zero", fakeKernel(6, nil, 0, nil, nil, map[string]string{maxUserNS: "0"}), "userns", StatusWarn, "max_user_namespaces is 0"},
		{"userns debian switch off", fakeKernel(6, nil, 0, nil, nil, map[string]string{maxUserNS: "100", usernsClone: "0\n"}),
			"userns", StatusWarn, "unprivileged_userns_clone is 0"},
		{"userns debian switch on", fakeKernel(6, nil, 0, nil, nil, map[string]string{maxUserNS: "100", usernsClone: "1\n"}),
			"userns", StatusOK, "allowed"},
		{"userns apparmor", fakeKernel(6, nil, 0, nil, nil, map[string]string{maxUserNS: "100", apparmorUserNS: "1"}),
			"userns", StatusWarn, "restricted by AppArmor"},
		{"userns garbage", fakeKernel(6, nil, 0, nil, nil, map[string]string{maxUserNS: "lots"}), "userns", StatusWarn, "want an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checks := ProbeChecks(tc.probe)
			if len(checks) != 3 {
				t.Fatalf("got %d checks, want landlock, seccomp, userns", len(checks))
			}
			var got Check
			for _, c := range checks {
				if c.Status == StatusFail {
					t.Errorf("%s: a missing sandbox feature must WARN, not FAIL", c.Name)
				}
				if c.Status == StatusWarn && c.Fix == "" {
					t.Errorf("%s: a WARN without a fix", c.Name)
				}
				if c.Name == tc.check {
					got = c
				}
			}
			if got.Status != tc.status || !strings.Contains(got.Detail, tc.detail) {
				t.Errorf("%s: got %s %q, want %s with %q", tc.check, got.Status, got.Detail, tc.status, tc.detail)
			}
		})
	}
}

// TestHostProbe asks this kernel: whatever it supports, the checks run,
// never FAIL, and say something.
func TestHostProbe(t *testing.T) {
	for _, c := range SandboxChecks() {
		if c.Status != StatusOK && c.Status != StatusWarn {
			t.Errorf("%s: got %s, want OK or WARN", c.Name, c.Status)
		}
		if c.Detail == "" {
			t.Errorf("%s: empty detail", c.Name)
		}
		t.Logf("%-8s %-4s %s", c.Name, c.Status, c.Detail)
	}
}
