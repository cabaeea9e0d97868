package convention

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModuleSharesNoTable runs the check over the whole module.
func TestModuleSharesNoTable(t *testing.T) {
	found, err := SharedTables(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: %s", f.Pos, f.What)
	}
}

// TestSharedTables checks the check on small packages, each a shape a
// table once had here.
func TestSharedTables(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // the findings' variable or function names
	}{
		{"exported slice", `var PatternTypes = []string{"read_file"}`, []string{"PatternTypes"}},
		{"exported map", `var Tools = map[string]bool{"Read": true}`, []string{"Tools"}},
		{"exported in a block", "var (\n\tErrX = errors.New(\"x\")\n\tNames []string\n)", []string{"Names"}},
		{"sentinels", "var ErrA = errors.New(\"a\")\nvar ErrB = fmt.Errorf(\"b %d\", 1)\nvar ErrC = other.ErrC", nil},
		{"Err but not an error", `var ErrCodes = []string{"x"}`, []string{"ErrCodes"}},
		{"unexported table", `var rules = []int{1}`, nil},
		{"returns the table", "var rules []int\nfunc Rules() []int { return rules }", []string{"Rules"}},
		{"returns a once value", "var table = sync.OnceValue(func() []int { return nil })\nfunc Rules() []int { return table() }", []string{"Rules"}},
		{"returns an entry", "var kb = sync.OnceValue(func() map[string]*P { return nil })\nfunc Lookup(n string) *P { return kb()[n] }", []string{"Lookup"}},
		{"returns the address of an element", "var rules []R\nfunc First() *R { return &rules[0] }", []string{"First"}},
		{"returns a copy", "var rules []int\nfunc Rules() []int { return slices.Clone(rules) }", nil},
		{"returns a local", "var rules []int\nfunc Rules() []int { out := rules; _ = out; return nil }", nil},
		{"returns a value", "var rules []int\nfunc Count() int { return len(rules) }", nil},
		{"unexported function", "var rules []int\nfunc all() []int { return rules }", nil},
		{"edits a set", "var tools = map[string]bool{}\nfunc allow(n string) { tools[n] = true }", []string{"tools"}},
		{"deletes from a set", "var tools = map[string]bool{}\nfunc forget(n string) { delete(tools, n) }", []string{"tools"}},
		{"appends to a list", "var names []string\nfunc add(n string) { names = append(names, n) }", []string{"names"}},
		{"edits an entry's field", "var kb = map[string]*P{}\nfunc quiet(n string) { kb[n].Network = false }", []string{"kb"}},
		{"counts", "var n int\nfunc tick() { n++ }", []string{"n"}},
		{"built once", "var once sync.Once\nvar idx map[string]int\nfunc index() map[string]int { once.Do(func() { idx = map[string]int{} }); return nil }", nil},
		{"a local shadows", "var tools = map[string]bool{}\nfunc f() { tools := map[string]bool{}; tools[\"x\"] = true }", nil},
		{"a parameter shadows", "var tools = map[string]bool{}\nfunc f(tools map[string]bool) { tools[\"x\"] = true }", nil},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "package p\n\n" + tt.src + "\n"
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			found, err := SharedTables(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				got = append(got, named(f.What, tt.want))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", found, tt.want)
			}
		})
	}
}

// named returns the name among want that what mentions, else what.
func named(what string, want []string) string {
	for _, w := range want {
		if strings.Contains(what, " "+w+":") || strings.Contains(what, "func "+w+" ") || strings.Contains(what, "variable "+w+" after") {
			return w
		}
	}
	return what
}

// TestSharedTablesBadSource names the file that does not parse.
func TestSharedTablesBadSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte("package p\nvar = ("), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := SharedTables(dir)
	if err == nil || !strings.Contains(err.Error(), "bad.go") {
		t.Errorf("got %v, want an error naming bad.go", err)
	}
}
