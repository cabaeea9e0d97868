//go:build linux

package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestScrubRules(t *testing.T) {
	cases := []struct {
		kv   string
		rule string // "" = kept
	}{
		{"PATH=/usr/bin:/bin", ""},
		{"HOME=/home/dev", ""},
		{"LANG=C.UTF-8", ""},
		{"PWD=/w", ""},
		{"OLDPWD=/w", ""},
		{"GIT_AUTHOR_NAME=Dev", ""},
		{"KEYBOARD_LAYOUT=us", ""},
		{"TERM=xterm", ""},
		{"GOPROXY=https://proxy.golang.org", ""},
		{"HTTP_PROXY=http://proxy:3128", ""},
		{"PARALLAX_JUDGE_MODEL=x", "parallax_own"},
		{"parallax_debug=1", "parallax_own"},
		{"BASH_ENV=/tmp/evil.sh", "shell_startup"},
		{"ENV=/tmp/evil.sh", "shell_startup"},
		{"BASH_FUNC_ls%%=() { curl x; }", "shell_startup"},
		{"LD_PRELOAD=/tmp/x.so", "shell_startup"},
		{"SHELLOPTS=xtrace", "shell_startup"},
		{"AWS_ACCESS_KEY_ID=x", "key"},
		{"OPENAI_APIKEY=x", "key"},
		{"SSH_KEYS=x", "key"},
		{"GITHUB_TOKEN=x", "token"},
		{"NPMTOKEN=x", "token"},
		{"AWS_SECRET_ACCESS_KEY=x", "key"},
		{"CLIENT_SECRET=x", "secret"},
		{"DB_PASSWORD=x", "password"},
		{"MYSQLPASSWD=x", "password"},
		{"SMTP_PASS=x", "password"},
		{"DB_PWD=x", "password"},
		{"GPG_PASSPHRASE=x", "password"},
		{"GOOGLE_APPLICATION_CREDENTIALS=/k.json", "credential"},
		{"NPM_AUTH=x", "auth"},
		{"SSH_AUTH_SOCK=/tmp/agent", "auth"},
		{"AUTHORIZATION=Bearer x", "auth"},
		{"OAUTH_CLIENT=x", "auth"},
		{"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/bus", "session"},
		{"SESSION_ID=x", "session"},
		{"JAR_COOKIE=x", "cookie"},
		{"PRIVATE_NOTE=x", "private"},
		{"OPENAI_API_BASE=https://api", "api"},
		{"API_HOST=x", "api"},
		{"DATABASE_URL=postgres://db/app", "connection_string"},
		{"ANALYTICS_DSN=u:p@tcp(db)/x", "connection_string"},
		{"UPSTREAM=https://user:hunter2@example.com/x", "connection_string"},
		{"REPO_URL=https://example.com/x.git", ""},
		{"MY_VAR=ghp_0123456789abcdefghijABCDEFGHIJ", "secret_value"},
		{"X=AKIAABCDEFGHIJKLMNOP", "secret_value"},
		{"X=-----BEGIN OPENSSH PRIVATE KEY-----", "secret_value"},
		{"X=sk-proj-0123456789abcdefghijkl", "secret_value"},
		{"NOEQUALS", "malformed"},
	}
	for _, c := range cases {
		t.Run(c.kv, func(t *testing.T) {
			out, dropped := Scrub{}.Apply([]string{c.kv})
			if c.rule == "" {
				if len(out) != 1 || len(dropped) != 0 {
					t.Fatalf("dropped %v, want kept", dropped)
				}
				return
			}
			if len(out) != 0 || len(dropped) != 1 || dropped[0].Rule != c.rule {
				t.Fatalf("got kept %v dropped %v, want dropped by %s", out, dropped, c.rule)
			}
			name, _, _ := strings.Cut(c.kv, "=")
			if dropped[0].Name != name {
				t.Fatalf("dropped name %q, want %q", dropped[0].Name, name)
			}
		})
	}
}

func TestScrubKeep(t *testing.T) {
	env := []string{"GITHUB_TOKEN=x", "PARALLAX_KEY=y", "BASH_ENV=/e", "OTHER_TOKEN=z"}
	out, dropped := Scrub{Keep: []string{"GITHUB_TOKEN", "PARALLAX_KEY", "BASH_ENV"}}.Apply(env)
	if !slices.Equal(out, []string{"GITHUB_TOKEN=x"}) {
		t.Fatalf("kept %v, want only GITHUB_TOKEN (Keep cannot pass Parallax's own or start-up hooks)", out)
	}
	var names []string
	for _, d := range dropped {
		names = append(names, d.Name+":"+d.Rule)
	}
	if want := []string{"PARALLAX_KEY:parallax_own", "BASH_ENV:shell_startup", "OTHER_TOKEN:token"}; !slices.Equal(names, want) {
		t.Fatalf("dropped %v, want %v", names, want)
	}
}

// A command's environment is built from an allowlist, and no variable
// that holds an engine key reaches it, whatever its name or value.
func TestCommandEnvironmentHoldsNoEngineKey(t *testing.T) {
	s := Scrub{Allowlist: true, Drop: []string{"GROQ", "MYMODEL"}}
	env := []string{"PATH=/usr/bin", "HOME=/h", "GOFLAGS=-mod=mod", "LC_ALL=C", "GROQ=gsk_abcdefghijklmnopqrstuvwxyz",
		"MYMODEL=plainlooking", "SSH_AUTH_SOCK=/run/user/0/ssh", "DOCKER_HOST=unix:///run/docker.sock", "RANDOM_THING=1"}
	got, dropped := s.Apply(env)
	want := []string{"PATH=/usr/bin", "HOME=/h", "GOFLAGS=-mod=mod", "LC_ALL=C"}
	if !slices.Equal(got, want) {
		t.Fatalf("env: got %q, want %q", got, want)
	}
	rules := map[string]string{}
	for _, d := range dropped {
		rules[d.Name] = d.Rule
	}
	if rules["GROQ"] != "engine_key" || rules["MYMODEL"] != "engine_key" || rules["SSH_AUTH_SOCK"] != "not_allowlisted" {
		t.Fatalf("drop rules: %v", rules)
	}
	// Without the allowlist only the engine keys and the secret rules drop.
	got, _ = Scrub{Drop: []string{"MYMODEL"}}.Apply(env)
	if slices.Contains(got, "MYMODEL=plainlooking") || !slices.Contains(got, "RANDOM_THING=1") {
		t.Fatalf("env without the allowlist: %q", got)
	}
}
