package runfile

import (
	"strings"
	"testing"
)

func TestSourcesOfManifests(t *testing.T) {
	tests := []struct {
		file, content string
		want          []string // substrings of the sources, in order
	}{
		{"package.json", `{"dependencies":{"a":"^1.0.0","b":"git+ssh://git@git.example/b.git","c":"file:../../elsewhere","d":"file:./libs/d","e":"user/repo"},"overrides":{"f":{"g":"https://x.example/g.tgz"}}}`,
			[]string{"dependencies b from git+ssh", "dependencies c from file:../../elsewhere", "dependencies e from user/repo", "overrides g from https://x.example/g.tgz"}},
		{"package.json", `"left-pad": "https://x.example/lp.tgz",`, []string{"left-pad from https://x.example/lp.tgz"}},
		{"package.json", `{"dependencies":{"a":"https://registry.npmjs.org/a/-/a-1.0.0.tgz"},"homepage":"https://h.example"}`, nil},
		{"requirements.txt", "# pinned\n-i https://m.example/simple\n--extra-index-url=https://e.example/\n-f /opt/wheels\n--trusted-host m.example\nrequests==2.31\nx @ https://f.example/x.whl\ngit+https://g.example/y.git\n../outside/pkg\n-e git+https://g.example/z.git#egg=z\n-e .\n-r base.txt\n",
			[]string{"-i https://m.example/simple", "--extra-index-url https://e.example/", "-f /opt/wheels", "--trusted-host m.example", "requirement x @ https://f.example/x.whl", "requirement from git+https://g.example/y.git", "requirement from ../outside/pkg", "editable requirement from git+https://g.example/z.git"}},
		{"requirements/dev.txt", "--index-url https://pypi.org/simple\npytest\n", nil},
		{"pyproject.toml", "[project]\ndependencies = [\n  \"a>=1\",\n  \"b @ git+https://g.example/b\",\n]\n[[tool.uv.index]]\nname = \"corp\"\nurl = \"https://corp.example/simple\"\n[project.urls]\nSource = \"https://github.com/me/x\"\n",
			[]string{"requirement b @ git+https://g.example/b", "[tool.uv.index] url = https://corp.example/simple"}},
		{"Cargo.toml", "[dependencies]\na = \"1\"\nb = { git = \"https://g.example/b\", branch = \"main\" }\nc = { path = \"../../c\" }\nd = { path = \"crates/d\" }\n[source.crates-io]\nreplace-with = \"vendored\"\n",
			[]string{"[dependencies] git = https://g.example/b", "[dependencies] path = ../../c", "[source.crates-io] replace-with = vendored"}},
		{"go.mod", "module m\n\nreplace a.example/x => ./x // local\nreplace (\n\ta.example/y v1.0.0 => b.example/y v1.0.1\n\ta.example/z => ../z\n)\n",
			[]string{"replace a.example/y v1.0.0 => b.example/y v1.0.1", "replace a.example/z => ../z"}},
		{".npmrc", "@corp:registry=https://npm.corp.example/\nregistry=https://registry.npmjs.org/\nsave-exact=true\n", []string{"@corp:registry https://npm.corp.example/"}},
		{".yarnrc.yml", "npmRegistryServer: \"https://npm.example\"\n", []string{"npmregistryserver https://npm.example"}},
		{"pip.conf", "[global]\nextra-index-url = https://e.example/simple\ntimeout = 60\n", []string{"extra-index-url https://e.example/simple"}},
		{"README.md", "--extra-index-url https://e.example/", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range Sources(ws+"/"+tt.file, tt.content, ws) {
			got = append(got, s.What)
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %q, want %q", tt.file, got, tt.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tt.want[i]) {
				t.Errorf("%s: source %d is %q, want %q", tt.file, i, got[i], tt.want[i])
			}
		}
	}
}

func TestSourcesAreBounded(t *testing.T) {
	big := strings.Repeat("-i https://m.example/\n", MaxFileBytes/22)
	if got := Sources(ws+"/requirements.txt", big, ws); len(got) > maxSources {
		t.Errorf("%d sources, want at most %d", len(got), maxSources)
	}
	if got := Sources(ws+"/requirements.txt", big+big, ws); len(got) != 1 || !strings.Contains(got[0].What, "larger") {
		t.Errorf("an oversized manifest: got %v, want it said unread", got)
	}
}
