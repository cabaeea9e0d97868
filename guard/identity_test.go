//go:build unix

package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// link makes newname a hard link to old.
func link(t testing.TB, old, newname string) {
	t.Helper()
	mkdir(t, filepath.Dir(newname))
	if err := os.Link(old, newname); err != nil {
		t.Skipf("hard links unsupported here: %v", err)
	}
}

// A workspace file that is a hard link to a key is the key: reading or
// writing it is judged as the key, with a reason naming both names.
func TestHardLinkCannotReadRestrictedFile(t *testing.T) {
	fx := newFixture(t)
	mkdir(t, filepath.Join(fx.home, ".aws"))
	write(t, filepath.Join(fx.home, ".aws", "credentials"))
	write(t, filepath.Join(fx.ws, ".parallax", "api.token"))
	mkdir(t, filepath.Join(fx.home, ".local", "share", "pnpm", "store"))
	write(t, filepath.Join(fx.home, ".local", "share", "pnpm", "store", "index.js"))
	link(t, filepath.Join(fx.home, ".ssh", "id_rsa"), filepath.Join(fx.ws, "notes.txt"))
	link(t, filepath.Join(fx.home, ".aws", "credentials"), filepath.Join(fx.ws, "docs", "aws.md"))
	link(t, filepath.Join(fx.ws, ".parallax", "api.token"), filepath.Join(fx.ws, "token.txt"))
	link(t, filepath.Join(fx.home, ".local", "share", "pnpm", "store", "index.js"), filepath.Join(fx.ws, "node_modules", "x", "index.js"))
	link(t, filepath.Join(fx.ws, "main.go"), filepath.Join(fx.ws, "main_copy.go"))
	cases := []checkCase{
		{name: "read of a link to an ssh key", path: "$W/notes.txt", acc: rd, rule: RuleRestricted, dec: verdict.Block},
		{name: "write of a link to an ssh key", path: "$W/notes.txt", acc: wr, rule: RuleRestricted, dec: verdict.Block},
		{name: "read of a link to aws credentials", path: "$W/docs/aws.md", acc: rd, rule: RuleRestricted, dec: verdict.Block},
		{name: "read of a link to the workspace token", path: "$W/token.txt", acc: rd, rule: RuleSealed, dec: verdict.Block},
		{name: "read of a pnpm store link", path: "$W/node_modules/x/index.js", acc: rd},
		{name: "write of a pnpm store link", path: "$W/node_modules/x/index.js", acc: wr},
		{name: "read of a link between workspace files", path: "$W/main_copy.go", acc: rd},
	}
	runCases(t, fx, cases, fx.g.Check)
	f, ok := fx.g.Check(fx.ws+"/notes.txt", rd)
	if !ok || !strings.Contains(f.Reason, "notes.txt") || !strings.Contains(f.Reason, "~/.ssh/id_rsa") {
		t.Errorf("reason %q (ok %v) should name both notes.txt and ~/.ssh/id_rsa", f.Reason, ok)
	}
}

// The executor's plan names the file by its identity (the own agent's
// Read): a restricted file's identity is judged as that file.
func TestPlannedIdentityCannotReadRestrictedFile(t *testing.T) {
	fx := newFixture(t)
	key := filepath.Join(fx.home, ".ssh", "id_rsa")
	fi, err := os.Lstat(key)
	if err != nil {
		t.Fatal(err)
	}
	id, _, ok := statID(fi)
	if !ok {
		t.Skip("no inode numbers")
	}
	if f, hit := fx.g.CheckFileID(fx.ws+"/notes.txt", id, rd); !hit || f.Decision != verdict.Block || f.Rule != RuleRestricted {
		t.Errorf("planned identity of ~/.ssh/id_rsa: got %+v (hit %v), want BLOCK %s", f, hit, RuleRestricted)
	}
	mfi, _ := os.Lstat(filepath.Join(fx.ws, "main.go"))
	mid, _, _ := statID(mfi)
	if f, hit := fx.g.CheckFileID(fx.ws+"/main.go", mid, rd); hit {
		t.Errorf("planned identity of main.go: got %+v, want nothing", f)
	}
}

// The index is rebuilt when a restricted area changes: a key created
// after the first look, and linked into the workspace, is still found.
func TestHardLinkToNewKeyIsFound(t *testing.T) {
	fx := newFixture(t)
	write(t, filepath.Join(fx.ws, "a.txt"))
	link(t, filepath.Join(fx.ws, "a.txt"), filepath.Join(fx.ws, "b.txt"))
	if f, ok := fx.g.Check(fx.ws+"/b.txt", rd); ok {
		t.Fatalf("ordinary link: got %+v", f)
	}
	mkdir(t, filepath.Join(fx.home, ".gnupg", "private-keys-v1.d"))
	write(t, filepath.Join(fx.home, ".gnupg", "private-keys-v1.d", "k.key"))
	link(t, filepath.Join(fx.home, ".gnupg", "private-keys-v1.d", "k.key"), filepath.Join(fx.ws, "k.txt"))
	if f, ok := fx.g.Check(fx.ws+"/k.txt", rd); !ok || f.Decision != verdict.Block {
		t.Errorf("link to a key made after the index: got %+v (ok %v), want BLOCK", f, ok)
	}
}

// An area too large to index leaves every multi-link file unknown: it
// escalates; a file with one name is not affected.
func TestHardLinkOverIndexBoundEscalates(t *testing.T) {
	fx := newFixture(t)
	dir := filepath.Join(fx.home, ".ssh", "many")
	mkdir(t, dir)
	for i := 0; i <= maxIDEntries; i++ {
		if err := os.WriteFile(filepath.Join(dir, "k"+strconv.Itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(fx.ws, "a.txt"))
	link(t, filepath.Join(fx.ws, "a.txt"), filepath.Join(fx.ws, "b.txt"))
	if f, ok := fx.g.Check(fx.ws+"/b.txt", rd); !ok || f.Decision != verdict.Escalate || f.Rule != RuleIdentity {
		t.Errorf("multi-link file, index over its bound: got %+v (ok %v), want ESCALATE %s", f, ok, RuleIdentity)
	}
	if f, ok := fx.g.Check(fx.ws+"/main.go", rd); ok {
		t.Errorf("single-link file: got %+v, want nothing", f)
	}
}
