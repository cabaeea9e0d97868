package ifc

import (
	"math/rand/v2"
	"strings"
	"testing"
)

const (
	testWS   = "/home/dev/project"
	testHome = "/home/dev"
)

var testEnv = Env{Workspace: testWS, Home: testHome}

// ex expands an example path of the rule table.
func ex(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return testHome + p[1:]
	case strings.HasPrefix(p, "$WORKSPACE/"):
		return testWS + p[len("$WORKSPACE"):]
	}
	return p
}

func mustPaths(t testing.TB) *Paths {
	t.Helper()
	c, err := NewPaths(testEnv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRuleExamples holds every rule to its own examples: alone, the rule
// classifies each Match path at its level and no NoMatch path; in the
// full table each Match path is at least that level.
func TestRuleExamples(t *testing.T) {
	full := mustPaths(t)
	for _, r := range pathRules {
		t.Run(r.ID, func(t *testing.T) {
			if len(r.Match) == 0 {
				t.Fatalf("rule has no Match examples")
			}
			one, err := newPaths(testEnv, []PathRule{r})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range r.Match {
				got := one.Classify(ex(p))
				if got.Rule != r.ID || got.Level != r.Level {
					t.Errorf("%s: got %v (%s), want %v (%s)", p, got.Level, got.Rule, r.Level, r.ID)
				}
				if f := full.Classify(ex(p)); r.Level > Public && f.Level < r.Level {
					t.Errorf("%s in the full table: got %v, want at least %v", p, f.Level, r.Level)
				}
			}
			for _, p := range r.NoMatch {
				if got := one.Classify(ex(p)); got.Rule == r.ID {
					t.Errorf("%s: got rule %s, want no match", p, got.Rule)
				}
			}
		})
	}
}

// TestRuleTable checks the table's own conventions.
func TestRuleTable(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range pathRules {
		if ids[r.ID] {
			t.Errorf("rule id %s used twice", r.ID)
		}
		ids[r.ID] = true
		if !r.Level.Valid() || len(r.Patterns) == 0 {
			t.Errorf("rule %s: bad level or no patterns", r.ID)
		}
		for _, p := range r.Patterns {
			switch r.Kind {
			case KindTree, KindGlob:
				if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "$WORKSPACE/") {
					t.Errorf("rule %s: pattern %q is not rooted", r.ID, p)
				}
			case KindName, KindSuffix, KindPrefix, KindNameGlob, KindWord:
				if p != strings.ToLower(p) {
					t.Errorf("rule %s: name pattern %q must be lower case", r.ID, p)
				}
			}
		}
		for _, e := range r.Except {
			if e != strings.ToLower(e) {
				t.Errorf("rule %s: except %q must be lower case", r.ID, e)
			}
		}
	}
}

func TestClassify(t *testing.T) {
	c := mustPaths(t)
	cases := []struct {
		path string
		want Level
		rule string
	}{
		{"/home/dev/project/main.go", Internal, "default"},
		{"/home/dev/project/README.md", Public, "public_docs"},
		{"/home/dev/project/.env", Critical, "secret_files"},
		{"/home/dev/project/.env.example", Internal, "default"},
		{"/home/dev/project/config/.env.production", Critical, "dotenv_files"},
		{"/home/dev/.ssh/id_rsa", Critical, "ssh_keys"},
		{"/home/dev/.ssh/id_rsa.pub", Public, "public_keys"},
		{"/home/dev/.ssh/config", Confidential, "ssh_config"},
		{"/home/dev/.ssh", Critical, "ssh_keys"},
		{"/home/dev/.aws/credentials", Critical, "cloud_credentials"},
		{"/home/dev/.ssh/README", Critical, "ssh_keys"},
		{"/home/dev/Documents/Taxes/2023/return.pdf", Restricted, "finance_documents"},
		{"/home/dev/Documents/Legal/finance-contract.pdf", Restricted, "finance_documents"},
		{"/home/dev/Documents/Legal/lease.pdf", Confidential, "legal_documents"},
		{"/home/dev/project/src/invoice.go", Internal, "default"},
		{"/home/dev/project/docs/medical-records.md", Restricted, "health_documents"},
		{"/etc/shadow", Critical, "system_secrets"},
		{"/etc/passwd", Confidential, "account_databases"},
		{"/etc/hostname", Internal, "default"},
		{"/proc/42/environ", Critical, "process_secrets"},
		{"/usr/share/dict/words", Public, "system_files"},
		{"/home/dev/project/.parallax/canary.token", Critical, "agent_internals"},
		{"/tmp/x", Internal, "default"},
		{".env", Critical, "secret_files"},
		{"/home/dev/.bash_history", Restricted, "shell_histories"},
		{"/home/dev/Downloads/KEY.PEM", Critical, "key_material"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			got := c.Classify(tc.path)
			if got.Level != tc.want || got.Rule != tc.rule {
				t.Errorf("got %v (%s), want %v (%s)", got.Level, got.Rule, tc.want, tc.rule)
			}
		})
	}
}

func TestClassifyGlob(t *testing.T) {
	c := mustPaths(t)
	cases := []struct {
		pat       string
		recursive bool
		broad     bool
		want      Level
	}{
		{"/home/dev/.ssh/*", false, false, Critical},
		{"/home/dev/.ssh/*.pub", false, true, Internal}, // public only by name: not trusted for globs
		{"/home/dev/.ss?/id_*", false, false, Critical},
		{"/home/dev/*", false, true, Critical},          // may be /home/dev/credentials
		{"/home/dev/*", false, false, Critical},         // ~/_netrc
		{"/home/dev/project/*", false, false, Internal}, // the taint judges what was shown
		{"/home/dev/.*", false, false, Critical},        // dot names: ~/.ssh, ~/.aws
		{"/home/dev/project/*.go", false, true, Internal},
		{"/home/dev/project/.e*", false, false, Critical},
		{"/home/dev/project/*.pem", false, false, Critical},
		{"/home/dev/project/**/*.txt", true, true, Critical}, // may be .env.txt
		{"/home/dev/project/**", true, true, Critical},       // may hold .env
		{"/home/dev/**", true, false, Internal},              // what it showed is classified on its own
		{"/proc/*/environ", false, false, Critical},
		{"/var/log/*.log", false, true, Internal},
		{"/home/dev/project/**/*.txt", true, false, Internal},
		{"/home/dev/project/**/id_rsa", true, false, Critical},
		{"/home/dev/**", true, true, Critical},
		{"/home/dev/Documents/Taxes/*", false, false, Restricted},
		{"/home/dev/Documents/*/*.pdf", false, false, Internal},
		{"/usr/share/doc/*", false, false, Public},
		{"/usr/share/doc/*", false, true, Critical}, // may be a file named Cookies
		{"/etc/*", false, true, Critical},
		{"*.key", false, false, Critical},
	}
	for _, tc := range cases {
		t.Run(tc.pat, func(t *testing.T) {
			got := c.ClassifyGlob(tc.pat, tc.recursive, tc.broad)
			if got.Level != tc.want {
				t.Errorf("got %v (%s), want %v", got.Level, got.Rule, tc.want)
			}
		})
	}
	// Asked again in reverse order, the answers come from the memo: the
	// same pattern with other flags (/usr/share/doc/*) must not share one.
	for i := len(cases) - 1; i >= 0; i-- {
		tc := cases[i]
		if got := c.ClassifyGlob(tc.pat, tc.recursive, tc.broad); got.Level != tc.want || got != c.classifyGlob(tc.pat, tc.recursive, tc.broad) {
			t.Errorf("again %s (recursive %v, broad %v): got %v, want %v", tc.pat, tc.recursive, tc.broad, got.Level, tc.want)
		}
	}
}

func TestContains(t *testing.T) {
	c := mustPaths(t)
	cases := []struct {
		dir  string
		want Level
	}{
		{"/home/dev", Critical},
		{"/home", Critical},
		{"/", Critical},
		{"/etc", Critical},
		{"/home/dev/project", Public}, // its .parallax is the guard's
		{"/home/dev/project/src", Public},
		{"/home/dev/.config", Critical},
		{"/var/log", Public},
		{"/home/dev/.ssh/id_rsa", Public},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			if got := c.Contains(tc.dir); got.Level != tc.want {
				t.Errorf("got %v (%s), want %v", got.Level, got.Rule, tc.want)
			}
		})
	}
}

func TestEachWord(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"bank_statement_2024.pdf", "bank statement 2024 pdf"},
		{"BankStatement.pdf", "bank statement pdf"},
		{"acme-NDAForm.docx", "acme nda form docx"},
		{"budget2025.xlsx", "budget 2025 xlsx"},
		{"/Documents/Taxes/", "documents taxes"},
		{strings.Repeat("a", 40) + " tax", "tax"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var got []string
			eachWord(tc.in, func(w []byte) { got = append(got, string(w)) })
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

func TestNewPathsRefusesRelative(t *testing.T) {
	for _, env := range []Env{{Workspace: "project", Home: "/home/dev"}, {Workspace: "/w", Home: ""}} {
		if _, err := NewPaths(env); err == nil {
			t.Errorf("NewPaths(%+v): got nil error, want one", env)
		}
	}
}

// TestGlobSegsMatchesAsGlobMatchPath: the prefiltered matcher answers as
// globMatchPath for random globs (malformed ones included) and files.
func TestGlobSegsMatchesAsGlobMatchPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alpha = "ab.*?[]\\-!^"
	word := func(chars string, n int) string {
		b := make([]byte, rng.IntN(n))
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	}
	path := func(chars string) string {
		segs := make([]string, 1+rng.IntN(4))
		for i := range segs {
			segs[i] = word(chars, 5)
			if chars == alpha && rng.IntN(6) == 0 {
				segs[i] = "**"
			}
		}
		return "/" + strings.Join(segs, "/")
	}
	matched := 0
	for i := 0; i < 20000; i++ {
		pat, file, rec := path(alpha), path("ab.-!^*?["), rng.IntN(2) == 0
		want := globMatchPath(pat, file, rec)
		if got := newGlobSegs(pat, rec).match(file); got != want {
			t.Fatalf("glob %q on %q (recursive %v): got %v, globMatchPath says %v", pat, file, rec, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 500 {
		t.Fatalf("only %d of 20000 random pairs matched: the test does not exercise matches", matched)
	}
}
