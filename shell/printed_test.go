package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestPrinted checks which variables and environment dumps reach a
// command's standard output.
func TestPrinted(t *testing.T) {
	cases := []struct {
		name, cmd string
		printed   []string
		dump      bool
		names     bool
	}{
		{"echo", `echo $OPENAI_API_KEY`, []string{"OPENAI_API_KEY"}, false, false},
		{"printf quoted", `printf '%s' "$GITHUB_TOKEN"`, []string{"GITHUB_TOKEN"}, false, false},
		{"printenv name", `printenv AWS_SECRET_ACCESS_KEY`, []string{"AWS_SECRET_ACCESS_KEY"}, false, false},
		{"through base64", `echo "$TOKEN" | base64`, []string{"TOKEN"}, false, false},
		{"after cd", `cd src && echo "$TOKEN"`, []string{"TOKEN"}, false, false},
		{"redirected", `echo "$TOKEN" > t.txt`, nil, false, false},
		{"consumed", `echo "$TOKEN" | docker login -u me --password-stdin`, nil, false, false},
		{"counted", `printf '%s' "$TOKEN" | wc -c`, nil, false, false},
		{"argument", `psql "$DATABASE_URL" -c 'select 1'`, nil, false, false},
		{"env", `env`, nil, true, false},
		{"env -i", `env -i`, nil, false, false},
		{"env runs", `env FOO=bar make`, nil, false, false},
		{"env assigns only", `env FOO=bar`, nil, true, false},
		{"env to a file", `env > env.txt`, nil, true, false},
		{"env -u", `env -u HOME`, nil, true, false},
		{"env discarded", `env > /dev/null`, nil, false, false},
		{"printenv", `printenv | grep -i key`, nil, true, false},
		{"set", `set`, nil, true, false},
		{"set options", `set -euo pipefail`, nil, false, false},
		{"export -p", `export -p`, nil, true, false},
		{"export name", `export FOO=1`, nil, false, false},
		{"declare -x", `declare -x`, nil, true, false},
		{"grep literal", `env | grep ^PATH`, nil, false, false},
		{"grep alternation", `env | grep '^\(GOBIN\|PATH=\)'`, nil, false, false},
		{"grep secret word", `env | grep AWS`, nil, true, false},
		{"grep inverted", `env | grep -v PATH`, nil, true, false},
		{"grep regex", `env | grep ".*X.*"`, nil, true, false},
		{"names cut", `env | cut -d= -f1`, nil, false, true},
		{"names awk", `set | awk -F= '{print $1}'`, nil, false, true},
		{"substituted", `x=$(env | grep FOO)`, nil, false, false},
		{"captured, not printed", `x=$(env)`, nil, false, false},
		{"captured and echoed", `x=$(env); echo "$x"`, nil, true, false},
		{"backquotes and printf", "x=`printenv`; printf '%s\\n' \"$x\"", nil, true, false},
		{"set captured", `s=$(set); echo "$s"`, nil, true, false},
		{"export -p captured", `x=$(export -p); echo "$x" | base64`, nil, true, false},
		{"loop over env", `for k in $(env); do echo $k; done`, nil, true, false},
		{"loop over a captured env", `e=$(env); for l in $e; do echo "$l"; done`, nil, true, false},
		{"indirection over compgen -e", `for n in $(compgen -e); do echo "$n=${!n}"; done`, nil, true, true},
		{"indirection over compgen -v", `for v in $(compgen -v); do echo ${!v}; done`, nil, true, true},
		{"names captured", `x=$(env | cut -d= -f1); echo "$x"`, nil, false, true},
		{"compgen names looped", `for n in $(compgen -e); do echo "$n"; done`, nil, false, true},
		{"captured count", `x=$(env | wc -l); echo "$x"`, nil, false, false},
		{"captured literal grep", `x=$(env | grep ^PATH=); echo "$x"`, nil, false, false},
		{"captured pwd", `x=$(pwd); echo "$x"`, nil, false, false},
		{"loop over files", `for f in $(ls); do echo $f; done`, nil, false, false},
		{"indirection over a list", `for n in HOME PATH; do echo ${!n}; done`, nil, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := Analyze(c.cmd, tOpt)
			if !slices.Equal(e.Printed, c.printed) {
				t.Errorf("Printed: got %v, want %v", e.Printed, c.printed)
			}
			if e.EnvDump != c.dump {
				t.Errorf("EnvDump: got %v, want %v", e.EnvDump, c.dump)
			}
			if e.EnvNames != c.names {
				t.Errorf("EnvNames: got %v, want %v", e.EnvNames, c.names)
			}
		})
	}
}

// TestReadOnlySQL checks which SQL a client may run without the code
// being opaque.
func TestReadOnlySQL(t *testing.T) {
	cases := []struct {
		code string
		want bool
	}{
		{"select 1", true},
		{"SELECT count(*) FROM users;", true},
		{"show tables", true},
		{`\dt`, true},
		{"explain select 1", true},
		{"explain analyze delete from users", false},
		{"select 1; drop table users", false},
		{"COPY (select 1) TO PROGRAM 'sh -c id'", false},
		{`\! id`, false},
		{"select pg_read_file('/etc/passwd')", false},
		{"select * into outfile '/tmp/x' from users", false},
		{"delete from users", false},
		{"", false},
	}
	for _, c := range cases {
		if got := readOnlySQL(c.code); got != c.want {
			t.Errorf("readOnlySQL(%q): got %v, want %v", c.code, got, c.want)
		}
	}
}

// TestKeyNameOperand checks that a bare private-key file name under an
// undescribed subcommand is read as that file, and other bare names not.
func TestKeyNameOperand(t *testing.T) {
	cases := []struct {
		cmd  string
		want string // the path read, "" for none
	}{
		{`git frobnicate id_rsa`, tCwd + "/id_rsa"},
		{`git frobnicate id_ed25519_sk`, tCwd + "/id_ed25519_sk"},
		{`git frobnicate id_rsa.pub`, ""},
		{`git frobnicate README`, ""},
		{`grep -rn id_rsa docs/`, ""},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			got := ""
			for _, u := range Analyze(c.cmd, tOpt).Paths {
				if strings.Contains(u.Path, "/id_") {
					got = u.Path
				}
			}
			if got != c.want {
				t.Errorf("got read %q, want %q", got, c.want)
			}
		})
	}
}
