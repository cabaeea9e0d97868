//go:build linux

package guard

import (
	"strings"
	"testing"

	"github.com/parallax/parallax/action"

	"github.com/parallax/parallax/verdict"
)

// Cases that depend on the Linux tables (lists_linux.go) and /proc.

func TestCheckLinux(t *testing.T) {
	f := newFixture(t)
	B := verdict.Block
	cases := []checkCase{
		{"shadow", "/etc/shadow", rd, RuleRestricted, B, 0},
		{"sudoers.d", "/etc/sudoers.d/x", wr, RuleRestricted, B, 0},
		{"root home", "/root/notes.txt", rd, RuleRestricted, B, 0},
		{"proc self root", "/proc/self/root/etc/shadow", rd, RuleRestricted, B, 0},
		{"proc pid root", "/proc/1/root/etc/shadow", rd, RuleRestricted, B, 0},
		{"proc thread-self root", "/proc/thread-self/root/etc/sudoers", rd, RuleRestricted, B, 0},
		{"proc task root", "/proc/self/task/1/root/etc/shadow", rd, RuleRestricted, B, 0},
		{"proc root many", "/proc/self/root" + strings.Repeat("/proc/1/root", 20) + "/etc/shadow", rd, RuleRestricted, B, 0},
		{"proc root nested", "/proc/self/root/proc/1/root/etc/shadow", rd, RuleRestricted, B, 0},
		{"proc root harmless", "/proc/self/root/usr/share/doc", rd, "", 0, 0},
		{"proc cwd", "/proc/1/cwd/x", rd, RuleRestricted, B, 0},
		{"proc environ", "/proc/self/environ", rd, RuleRestricted, B, 0},
		{"proc mem", "/proc/123/mem", rd, RuleRestricted, B, 0},
		{"proc fd", "/proc/self/fd/7", rd, RuleRestricted, B, 0},
		{"proc stdout", "/proc/self/fd/1", wr, "", 0, 0},
		{"proc status", "/proc/self/status", rd, "", 0, 0},
		{"proc sys write", "/proc/sys/kernel/core_pattern", wr, RuleProtected, B, 0},
		{"kcore", "/proc/kcore", rd, RuleRestricted, B, 0},
		{"dev mem", "/dev/mem", rd, RuleRestricted, B, 0},
		{"dev null write", "/dev/null", wr, "", 0, 0},
		{"dev stdout write", "/dev/stdout", wr, "", 0, 0},
		{"dev disk write", "/dev/sda", wr, RuleProtected, B, 0},
		{"dev tcp", "/dev/tcp/1.2.3.4/80", rd, RuleRestricted, B, 0},
		{"cron", "/etc/cron.d/job", wr, RuleProtected, B, 0},
		{"hosts read", "/etc/hosts", rd, "", 0, 0},
		{"hosts write", "/etc/hosts", wr, RuleProtected, B, 0},
		{"passwd delete", "/etc/passwd", del, RuleProtected, B, 0},
		{"soul lower case is another file", "$W/soul.md", wr, "", 0, 0},
		{"delete etc", "/etc", del, RuleRestricted, B, 0},
		{"link to etc", "$W/etc/shadow", rd, RuleRestricted, B, 0},
		{"link to dev null", "$W/pubfake", wr, "", 0, 0},
	}
	runCases(t, f, cases, f.g.Check)
}

func TestCheckGlobLinux(t *testing.T) {
	f := newFixture(t)
	B := verdict.Block
	cases := []checkCase{
		{"shadow prefix", "/etc/sha*", rd, RuleRestricted, B, 0},
		{"shadow question", "/etc/shado?", rd, RuleRestricted, B, 0},
		{"etc star read", "/etc/*", rd, RuleRestricted, B, 0},
		{"proc any root", "/proc/*/root/etc/shadow", rd, RuleRestricted, B, 0},
		{"proc any environ", "/proc/[0-9]*/environ", rd, RuleRestricted, B, 0},
		{"proc self cwd", "/proc/sel?/cwd/x", rd, RuleRestricted, B, 0},
	}
	runCases(t, f, cases, f.g.CheckGlob)
}

func TestRootHome(t *testing.T) {
	// Running as root: /root is the user's home, listed part by part.
	g := New("/root/app", "/root", WithFS(emptyFS{}))
	cases := []struct {
		path string
		acc  action.Access
		want string
	}{
		{"/root/app/main.go", wr, ""},
		{"/root/.ssh/id_rsa", rd, RuleRestricted},
		{"/root/.bashrc", wr, RuleProtected},
		{"/root/app/.parallax/x", rd, RuleSealed},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			got, _ := g.Check(c.path, c.acc)
			if got.Rule != c.want {
				t.Fatalf("got %v, want %v", got.Rule, c.want)
			}
		})
	}
}
