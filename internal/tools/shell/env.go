//go:build linux

package shell

import (
	"regexp"
	"slices"
	"strings"
)

// Scrub says which variables of the engine's environment a command gets.
// Every variable whose name or value looks secret is dropped, and so are
// Parallax's own and those that change what a shell runs; Keep passes
// named variables through the secret rules anyway (not the other two).
type Scrub struct {
	Keep []string // exact names kept even if they look secret
	// Drop are exact names always dropped, whatever they look like: the
	// variables that hold the engine's own keys (every api_key_env).
	Drop []string
	// Allowlist builds the environment from the names a command's tools
	// need (allowedVars, allowedPrefixes) instead of passing everything
	// the engine inherited; the other rules still apply to what remains.
	Allowlist bool
}

// allowedVars are the variables an allowlisted environment keeps: where
// programs are, who and where the user is, the locale and terminal, and
// how the toolchains are set up.
var allowedVars = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "PWD",
	"COLORTERM", "NO_COLOR", "EDITOR", "VISUAL", "PAGER", "CI",
	"CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "JAVA_HOME", "MAVEN_OPTS",
	"VIRTUAL_ENV", "CONDA_PREFIX", "RUSTUP_HOME", "CARGO_HOME", "NVM_DIR", "PNPM_HOME", "DENO_DIR", "BUN_INSTALL",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}

// allowedPrefixes are families of toolchain settings an allowlisted
// environment keeps (the secret rules still drop GOPRIVATE tokens,
// npm_config__auth and the like by name or value).
var allowedPrefixes = []string{"LC_", "GO", "CGO_", "NODE_", "NPM_CONFIG_", "PYTHON", "PIP_", "UV_", "RUST", "CARGO_",
	"XDG_"}

// allowed reports whether an allowlisted environment keeps name.
func allowed(name string) bool {
	if slices.Contains(allowedVars, name) {
		return true
	}
	upper := strings.ToUpper(name)
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

// scrubRule is one reason to drop a variable.
type scrubRule struct {
	name     string
	keepable bool // Scrub.Keep can override it
	drop     func(name, upper, value string) bool
}

// scrubRules is the static, ordered table of reasons to drop a variable.
var scrubRules = []scrubRule{
	{"parallax_own", false, func(_, u, _ string) bool { return strings.HasPrefix(u, "PARALLAX_") || u == "PARALLAX" }},
	{"shell_startup", false, func(_, u, _ string) bool {
		// What bash or the loader would run or change before the command
		// the gate analysed: BASH_ENV is sourced by every bash -c,
		// BASH_FUNC_* redefine commands, LD_PRELOAD injects code.
		return strings.HasPrefix(u, "BASH_FUNC_") || slices.Contains(startupVars, u)
	}},
	{"key", true, func(_, u, _ string) bool {
		return anyToken(u, func(t string) bool { return t == "KEYS" || strings.HasSuffix(t, "KEY") })
	}},
	{"token", true, contains("TOKEN")},
	{"secret", true, contains("SECRET")},
	{"password", true, func(_, u, _ string) bool {
		if strings.Contains(u, "PASSWORD") || strings.Contains(u, "PASSWD") || strings.Contains(u, "PASSPHRASE") {
			return true
		}
		return u != "PWD" && u != "OLDPWD" && anyToken(u, func(t string) bool { return t == "PASS" || t == "PWD" || t == "PW" })
	}},
	{"credential", true, contains("CREDENTIAL")},
	{"auth", true, func(_, u, _ string) bool {
		return anyToken(u, func(t string) bool {
			return strings.HasSuffix(t, "AUTH") || strings.HasPrefix(t, "AUTH") && !strings.HasPrefix(t, "AUTHOR") ||
				t == "AUTHORIZATION" || t == "BEARER"
		})
	}},
	{"session", true, contains("SESSION")},
	{"cookie", true, contains("COOKIE")},
	{"private", true, contains("PRIVATE")},
	{"api", true, func(_, u, _ string) bool { return anyToken(u, func(t string) bool { return t == "API" }) }},
	{"connection_string", true, func(_, u, v string) bool {
		return u == "DATABASE_URL" || strings.HasSuffix(u, "_DSN") || u == "DSN" || strings.HasSuffix(u, "DATABASE_URL") ||
			urlWithPassword.MatchString(v)
	}},
	{"secret_value", true, func(_, _, v string) bool { return secretValue.MatchString(v) }},
}

// startupVars change what a shell or the dynamic loader runs.
var startupVars = []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS4",
	"LD_PRELOAD", "LD_AUDIT"}

// urlWithPassword is a URL with a password in its user info.
var urlWithPassword = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)

// secretValue is a value in a well-known secret format, whatever its name.
var secretValue = regexp.MustCompile(`^(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}|` +
	`xox[abprs]-[\w-]{10,}|sk-[\w-]{20,}|sk_live_\w{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}|AIza[\w-]{30,}|` +
	`-----BEGIN [A-Z ]*PRIVATE KEY-----)`)

func contains(word string) func(_, u, _ string) bool {
	return func(_, u, _ string) bool { return strings.Contains(u, word) }
}

// anyToken splits an upper-case name at _ (and -, .) and tests each part.
func anyToken(u string, f func(string) bool) bool {
	for _, t := range strings.FieldsFunc(u, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if f(t) {
			return true
		}
	}
	return false
}

// Dropped is one variable left out, and the rule that left it out.
type Dropped struct {
	Name string
	Rule string
}

// Apply returns env (KEY=VALUE entries) without the scrubbed variables,
// and what it dropped (names only, never values). Malformed entries
// (no "=") are dropped too.
func (s Scrub) Apply(env []string) ([]string, []Dropped) {
	out := make([]string, 0, len(env))
	var dropped []Dropped
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			dropped = append(dropped, Dropped{Name: name, Rule: "malformed"})
			continue
		}
		if rule := s.rule(name, value); rule != "" {
			dropped = append(dropped, Dropped{Name: name, Rule: rule})
			continue
		}
		out = append(out, kv)
	}
	return out, dropped
}

// rule names the first rule that drops the variable, "" if none.
func (s Scrub) rule(name, value string) string {
	if slices.Contains(s.Drop, name) {
		return "engine_key"
	}
	if s.Allowlist && !allowed(name) && !slices.Contains(s.Keep, name) {
		return "not_allowlisted"
	}
	upper := strings.ToUpper(name)
	kept := slices.Contains(s.Keep, name)
	for _, r := range scrubRules {
		if kept && r.keepable {
			continue
		}
		if r.drop(name, upper, value) {
			return r.name
		}
	}
	return ""
}
