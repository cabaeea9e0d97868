//go:build linux

package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/tools"
)

// Secret values planted in the walk workspace. None may ever appear in
// what a walk returns.
const (
	walkAPIToken = "5f3c1a9e7b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e"
	walkCanary   = "c4a1e0b7d2f9a6c3e8b5d0f7a4c1e6b3d8f5a2c9e4b1d6f3a0c7e2b9d4f1a8c5"
	walkEnvValue = "envvalue-ocelot-marmalade"
	walkSubEnv   = "subenvvalue-heron-lantern"
	walkKeyBody  = "keybody-walrus-quartz"
	walkAuditRec = "auditrecord-falcon-pebble"
	walkHomeKey  = "homekey-badger-cinnamon"
)

// walkSecrets are what the workspace of walkWorkspace seals or restricts:
// their values and their names.
var walkSecrets = []string{walkAPIToken, walkCanary, walkEnvValue, walkSubEnv, walkKeyBody, walkAuditRec, walkHomeKey,
	".parallax", "api.token", "canary.token", "audit.jsonl", ".env", "id_rsa", "linked.txt", "sshdir"}

// walkWorkspace builds a workspace holding the engine's sealed files, a
// .env at the top and below, a key file, links into ~/.ssh, and ordinary
// files. It returns the workspace and the executor configuration the
// engine gives it (the guard of this workspace and home).
func walkWorkspace(t *testing.T) (string, Config) {
	t.Helper()
	ws, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".parallax/api.token"), walkAPIToken+"\n", 0o600)
	writeFile(t, filepath.Join(ws, ".parallax/canary.token"), walkCanary+"\n", 0o600)
	writeFile(t, filepath.Join(ws, ".parallax/audit.jsonl"), `{"seq":1,"note":"`+walkAuditRec+`"}`+"\n", 0o600)
	writeFile(t, filepath.Join(ws, ".env"), "API_KEY="+walkEnvValue+"\n", 0o600)
	writeFile(t, filepath.Join(ws, "sub/.env"), "DB_PASSWORD="+walkSubEnv+"\n", 0o600)
	writeFile(t, filepath.Join(ws, "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+walkKeyBody+"\n", 0o600)
	writeFile(t, filepath.Join(home, ".ssh/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+walkHomeKey+"\n", 0o600)
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n// TODO: key=value\n", 0o644)
	writeFile(t, filepath.Join(ws, "README.md"), "readme = yes\n", 0o644)
	writeFile(t, filepath.Join(ws, "sub/util.go"), "package sub\n// TODO later\n", 0o644)
	for link, target := range map[string]string{"linked.txt": ".ssh/id_rsa", "sshdir": ".ssh"} {
		if err := os.Symlink(filepath.Join(home, target), filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, Config{Judge: GuardJudge(guard.New(ws, home))}
}

// noSecrets fails if out holds a planted secret value or name.
func noSecrets(t *testing.T, out string) {
	t.Helper()
	for _, s := range walkSecrets {
		if strings.Contains(out, s) {
			t.Fatalf("output holds %q:\n%s", s, out)
		}
	}
}

func TestSearchCannotReadSealedOrRestrictedEntries(t *testing.T) {
	ws, cfg := walkWorkspace(t)
	const withheld6 = "[6 entries withheld (restricted or sealed)]\n"
	cases := []struct {
		name, root, pattern string
		want                string // the whole output
	}{
		{"the api token's value", "", walkAPIToken, "no matches\n" + withheld6},
		{"the canary's value", "", walkCanary, "no matches\n" + withheld6},
		{"the audit chain's contents", "", walkAuditRec, "no matches\n" + withheld6},
		{"a .env value", "", walkEnvValue, "no matches\n" + withheld6},
		{"a nested .env value", "", walkSubEnv, "no matches\n" + withheld6},
		{"a key file's body", "", walkKeyBody, "no matches\n" + withheld6},
		{"a key behind a link", "", walkHomeKey, "no matches\n" + withheld6},
		{"any line with =", "", "=", `lines matching regex "=":` + "\nREADME.md:1: readme = yes\nmain.go:2: // TODO: key=value\n" + withheld6},
		{"every name", "", "**", `names matching glob "**":` + "\nREADME.md\nmain.go\nsub\nsub/util.go\n" + withheld6},
		{"secret names", "", "**/{.env,id_rsa,*.token,audit.jsonl}", "no matches\n" + withheld6},
		{"inside .parallax", ".parallax", ".", "no matches\n[3 entries withheld (sealed)]\n"},
		{"below the top", "sub", "=", "no matches\n[1 entry withheld (restricted)]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := do(t, New(cfg), "search_files", map[string]any{"path": filepath.Join(ws, c.root), "pattern": c.pattern})
			wantCode(t, res, err, "")
			noSecrets(t, res.Output)
			if res.Output != c.want {
				t.Fatalf("got\n%s\nwant\n%s", res.Output, c.want)
			}
		})
	}
}

func TestListingCannotShowSealedOrRestrictedEntries(t *testing.T) {
	ws, cfg := walkWorkspace(t)
	cases := []struct {
		name, root string
		recursive  bool
		want       []string
	}{
		{"recursive", "", true, []string{"file\t13\tREADME.md", "file\t32\tmain.go", "dir\t-\tsub/",
			"file\t26\tsub/util.go", "[6 entries withheld (restricted or sealed)]"}},
		{"flat", "", false, []string{"file\t13\tREADME.md", "file\t32\tmain.go", "dir\t-\tsub/",
			"[5 entries withheld (restricted or sealed)]"}},
		{"a directory of secrets only", ".parallax", true, []string{"[3 entries withheld (sealed)]"}},
		{"a nested .env", "sub", false, []string{"file\t26\tutil.go", "[1 entry withheld (restricted)]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := do(t, New(cfg), "list_directory", map[string]any{"path": filepath.Join(ws, c.root), "recursive": c.recursive})
			wantCode(t, res, err, "")
			noSecrets(t, res.Output)
			if got, want := res.Output, strings.Join(c.want, "\n")+"\n"; got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// A copy of a directory reads every entry: what the guard restricts
// where it lies (~/.aws, ~/.ssh) or by name (.env) is not carried to a
// place where it would be an ordinary file.
func TestCopyCannotCarrySecretsOutOfTheirPlace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	cfg := Config{Judge: GuardJudge(guard.New(ws, home))}
	writeFile(t, filepath.Join(home, ".aws/config"), "[default]\nsecret="+walkEnvValue+"\n", 0o600)
	writeFile(t, filepath.Join(home, ".ssh/id_rsa"), walkHomeKey+"\n", 0o600)
	writeFile(t, filepath.Join(home, "notes.txt"), "notes\n", 0o644)
	writeFile(t, filepath.Join(ws, "sub/.env"), "DB_PASSWORD="+walkSubEnv+"\n", 0o600)
	writeFile(t, filepath.Join(ws, "sub/util.go"), "package sub\n", 0o644)
	cases := []struct {
		name, src, dst string
		want           []string // the entries of the copy
		note           string
	}{
		{"the home", home, filepath.Join(ws, "homecopy"), []string{"notes.txt"}, "[2 entries withheld (restricted)]\n"},
		{"a .env below", filepath.Join(ws, "sub"), filepath.Join(ws, "sub2"), []string{"util.go"}, "[1 entry withheld (restricted)]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := do(t, New(cfg), "copy_file", map[string]any{"source": c.src, "destination": c.dst})
			wantCode(t, res, err, "")
			if !strings.HasSuffix(res.Output, ")\n"+c.note) {
				t.Fatalf("answer %q does not end with %q", res.Output, c.note)
			}
			var got []string
			err = filepath.WalkDir(c.dst, func(p string, _ os.DirEntry, err error) error {
				if p != c.dst {
					got = append(got, strings.TrimPrefix(p, c.dst+"/"))
				}
				return err
			})
			if err != nil || strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Fatalf("the copy holds %q (%v), want %q", got, err, c.want)
			}
		})
	}
}

// A walk with nothing to judge its entries is refused, never run
// unguarded; a search of one file is not a walk.
func TestWalkCannotRunWithoutAJudge(t *testing.T) {
	ws, _ := walkWorkspace(t)
	cases := []struct {
		name, typ string
		payload   map[string]any
		code      string
	}{
		{"recursive listing", "list_directory", map[string]any{"path": ws, "recursive": true}, tools.CodeNoGuard},
		{"flat listing", "list_directory", map[string]any{"path": ws}, tools.CodeNoGuard},
		{"search of a directory", "search_files", map[string]any{"path": ws, "pattern": "."}, tools.CodeNoGuard},
		{"copy of a directory", "copy_file", map[string]any{"source": filepath.Join(ws, "sub"), "destination": filepath.Join(ws, "sub2")}, tools.CodeNoGuard},
		{"search of a file", "search_files", map[string]any{"path": filepath.Join(ws, "main.go"), "pattern": "TODO"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := do(t, New(Config{}), c.typ, c.payload)
			wantCode(t, res, err, c.code)
			noSecrets(t, res.Output)
		})
	}
}
