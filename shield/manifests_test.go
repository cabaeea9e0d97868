package shield

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// TestManifestPointedAtAnotherSourceNeedsReview: a write or an edit that
// points a manifest at a source other than the default registry needs
// review; the reason names the file and the source.
func TestManifestPointedAtAnotherSourceNeedsReview(t *testing.T) {
	cases := []struct{ name, file, old, content, source string }{
		{"npm git url", "package.json", `{"name":"web","dependencies":{"react":"^18.2.0"}}`,
			`{"name":"web","dependencies":{"react":"^18.2.0","left-pad":"git+https://git.example/lp.git"}}`, "git.example"},
		{"npm tarball", "package.json", "", `{"devDependencies":{"jest":"https://cdn.example/jest-29.tgz"}}`, "cdn.example"},
		{"npm github shorthand", "package.json", "", `{"dependencies":{"utils":"someone/utils#main"}}`, "someone/utils"},
		{"npm file outside", "package.json", "", `{"dependencies":{"x":"file:/tmp/x"}}`, "file:/tmp/x"},
		{"pip extra index", "requirements.txt", "requests==2.31.0\n", "--extra-index-url https://pypi.example/simple\nrequests==2.31.0\n", "pypi.example"},
		{"pip index -i", "requirements-dev.txt", "", "-i https://mirror.example/simple\npytest\n", "mirror.example"},
		{"pip find-links", "constraints.txt", "", "--find-links=https://wheels.example/\n", "wheels.example"},
		{"pip direct url", "requirements.txt", "", "requests==2.31.0\nutil @ https://files.example/util-1.0.whl\n", "files.example"},
		{"pip vcs", "requirements.txt", "", "git+https://git.example/u/tool.git@main#egg=tool\n", "git.example"},
		{"pyproject uv source", "pyproject.toml", "", "[project]\nname = \"x\"\ndependencies = [\"tool\"]\n\n[tool.uv.sources]\ntool = { git = \"https://git.example/tool\" }\n", "git.example"},
		{"pyproject poetry source", "pyproject.toml", "", "[[tool.poetry.source]]\nname = \"corp\"\nurl = \"https://pkgs.example/simple\"\n", "pkgs.example"},
		{"pyproject direct ref", "pyproject.toml", "", "[project]\ndependencies = [\"tool @ https://files.example/tool.tar.gz\"]\n", "files.example"},
		{"pipfile source", "Pipfile", "", "[[source]]\nurl = \"https://idx.example/simple\"\nverify_ssl = true\nname = \"corp\"\n", "idx.example"},
		{"cargo git", "Cargo.toml", "[dependencies]\nserde = \"1\"\n", "[dependencies]\nserde = \"1\"\nhelper = { git = \"https://git.example/helper\" }\n", "git.example"},
		{"cargo registry", "Cargo.toml", "", "[dependencies]\nhelper = { version = \"1\", registry = \"corp\" }\n", "corp"},
		{"go.mod remote replace", "go.mod", "module example.com/app\n\ngo 1.22\n", "module example.com/app\n\ngo 1.22\n\nreplace golang.org/x/crypto => github.com/someone/crypto v0.0.1\n", "github.com/someone/crypto"},
		{"go.mod replace outside", "go.mod", "", "module m\nreplace (\n\texample.com/x => /tmp/x\n)\n", "/tmp/x"},
		{".npmrc registry", ".npmrc", "", "registry=https://npm.example/\n", "npm.example"},
		{"pip.conf index", "pip.conf", "", "[global]\nindex-url = https://pypi.example/simple\n", "pypi.example"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunWS(t)
			if tt.old != "" {
				r.put(t, tt.file, tt.old)
			}
			v := evalIn(r.gate(t), "s", "write_file", map[string]string{"path": filepath.Join(r.ws, tt.file), "content": tt.content})
			if v.Decision != verdict.Escalate || v.Rule != RuleManifestSource || !strings.Contains(v.Reason, tt.file) ||
				!strings.Contains(v.Reason, tt.source) {
				t.Fatalf("got %v %s (%s), want ESCALATE %s naming %s and %s", v.Decision, v.Rule, v.Reason, RuleManifestSource, tt.file, tt.source)
			}
		})
	}
}

func TestEditOfManifestAddingASourceNeedsReview(t *testing.T) {
	r := newRunWS(t)
	r.put(t, "go.mod", "module example.com/app\n\ngo 1.22\n\nrequire golang.org/x/crypto v0.21.0\n")
	v := evalIn(r.gate(t), "s", "edit_file", map[string]string{"path": filepath.Join(r.ws, "go.mod"),
		"old": "require golang.org/x/crypto v0.21.0", "new": "require golang.org/x/crypto v0.21.0\n\nreplace golang.org/x/crypto => evil.example/crypto v0.21.0"})
	if v.Decision != verdict.Escalate || v.Rule != RuleManifestSource {
		t.Fatalf("got %v %s (%s), want ESCALATE %s", v.Decision, v.Rule, v.Reason, RuleManifestSource)
	}
}

// TestManifestChangesFromTheDefaultRegistryStayAllowed: version bumps,
// new registry dependencies, sources the file already had, a replace to
// a directory in the workspace.
func TestManifestChangesFromTheDefaultRegistryStayAllowed(t *testing.T) {
	cases := []struct{ name, file, old, content string }{
		{"npm version bump", "package.json", `{"name":"web","dependencies":{"react":"^18.2.0"},"repository":"github:me/web"}`,
			`{"name":"web","dependencies":{"react":"^18.3.1","zod":"~3.22.0","types":"npm:@types/node@20"},"repository":"github:me/web","homepage":"https://web.example"}`},
		{"npm workspace file", "package.json", "", `{"dependencies":{"shared":"file:./packages/shared","ui":"workspace:*"}}`},
		{"npm existing git dep kept", "package.json", `{"dependencies":{"x":"git+https://git.example/x.git"}}`, `{"dependencies":{"x":"git+https://git.example/x.git","y":"1.0.0"}}`},
		{"pip pins", "requirements.txt", "requests==2.31.0\n", "requests==2.32.3\nflask>=3.0  # web\n-r requirements-base.txt\n-e .\n"},
		{"pip default index", "requirements.txt", "", "--index-url https://pypi.org/simple\nnumpy\n"},
		{"pyproject deps", "pyproject.toml", "", "[project]\nname = \"app\"\ndependencies = [\"requests>=2\", \"pydantic~=2.5\"]\n\n[project.urls]\nHomepage = \"https://app.example\"\n\n[tool.uv.sources]\nlib = { path = \"libs/lib\" }\n"},
		{"cargo version", "Cargo.toml", "", "[package]\nname = \"app\"\nrepository = \"https://github.com/me/app\"\n\n[dependencies]\nserde = { version = \"1.0\", features = [\"derive\"] }\nlocal = { path = \"crates/local\" }\n"},
		{"go.mod local replace", "go.mod", "", "module example.com/app\n\ngo 1.22\n\nreplace example.com/x => ./x\n\nrequire example.com/x v0.0.0\n"},
		{"go.mod bump", "go.mod", "module m\n\nrequire golang.org/x/text v0.13.0\n", "module m\n\nrequire golang.org/x/text v0.14.0\n"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunWS(t)
			if tt.old != "" {
				r.put(t, tt.file, tt.old)
			}
			if v := evalIn(r.gate(t), "s", "write_file", map[string]string{"path": filepath.Join(r.ws, tt.file), "content": tt.content}); v.Decision != verdict.Allow {
				t.Fatalf("got %v %s (%s), want ALLOW", v.Decision, v.Rule, v.Reason)
			}
		})
	}
}

// TestCommandPointingDependenciesElsewhereNeedsReview: the package
// managers' own commands that write a source into a manifest.
func TestCommandPointingDependenciesElsewhereNeedsReview(t *testing.T) {
	r := newRunWS(t)
	g := r.gate(t)
	for _, cmd := range []string{
		"go mod edit -replace golang.org/x/crypto=github.com/someone/crypto@v0.1.0",
		"go mod edit -replace=example.com/x=/tmp/x",
		"npm pkg set dependencies.left-pad=git+https://git.example/lp.git",
		"npm pkg set 'devDependencies.jest=https://cdn.example/jest.tgz'",
	} {
		if v := run(g, "s", cmd); v.Decision != verdict.Escalate || v.Rule != RuleManifestSource {
			t.Errorf("%s: got %v %s (%s), want ESCALATE %s", cmd, v.Decision, v.Rule, v.Reason, RuleManifestSource)
		}
	}
	for _, cmd := range []string{
		"go mod edit -replace example.com/x=./x",
		"go mod edit -require example.com/y@v1.2.0",
		"npm pkg set dependencies.react=^18.3.1",
		"npm pkg set scripts.test=jest",
		"cargo add serde --features derive",
		"go mod tidy",
	} {
		if v := run(g, "s", cmd); v.Rule == RuleManifestSource || v.Decision == verdict.Block {
			t.Errorf("%s: got %v %s (%s), want no %s", cmd, v.Decision, v.Rule, v.Reason, RuleManifestSource)
		}
	}
}

// TestTextWrittenIntoAManifestNeedsReview: a redirect that adds another
// package source to a manifest is judged as the write of it.
func TestTextWrittenIntoAManifestNeedsReview(t *testing.T) {
	r := newRunWS(t)
	r.put(t, "requirements.txt", "requests==2.31.0\n")
	g := r.gate(t)
	for _, cmd := range []string{
		`printf -- '--extra-index-url https://pypi-mirror.example/simple\nacme-internal-auth==2.3.0\n' >> requirements.txt`,
		"cat > .npmrc <<'EOF'\nregistry=https://npm.mirror.example/\nEOF",
	} {
		if v := run(g, "s", cmd); v.Decision != verdict.Escalate || v.Rule != RuleManifestSource {
			t.Errorf("%s: got %v %s (%s), want ESCALATE %s", cmd, v.Decision, v.Rule, v.Reason, RuleManifestSource)
		}
	}
	if v := run(g, "s", `echo 'urllib3==2.2.1' >> requirements.txt`); v.Decision != verdict.Allow {
		t.Errorf("a pinned dependency appended: got %v %s (%s), want ALLOW", v.Decision, v.Rule, v.Reason)
	}
}
