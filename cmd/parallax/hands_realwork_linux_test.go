package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha1" //nolint:gosec // npm's dist.shasum is SHA-1 by definition
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/e2e"
)

// Real work still passes in the command sandbox, in a fresh home (no
// ~/.cache, no ~/go, no ~/.npm): the tool chains a coding agent runs.
// Issue 18, item 13 is TestRealWorkGoTestInFreshHome.
func TestRealWorkMake(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.makefile(map[string][]string{"all": {"echo built > out.txt", "cat out.txt"}}, "all")
	tr := h.run(propose("make"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, "built") {
		t.Errorf("make: %q", out)
	}
}

// goModule writes a tiny module without dependencies into the workspace.
func (h *hands) goModule() {
	h.write(map[string]string{
		"go.mod":        "module example.com/w\n\ngo 1.22\n",
		"w.go":          "package w\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"w_test.go":     "package w\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
		"cmd/w/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from w\") }\n",
	})
}

func TestRealWorkGoTestInFreshHome(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.goModule()
	tr := h.run(slow("go test ./..."))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, "ok  \texample.com/w") {
		t.Errorf("go test ./... in a fresh home: %q", out)
	}
}

func TestRealWorkGoBuild(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.goModule()
	tr := h.run(slow("go build -o bin/w ./cmd/w"), propose("./bin/w"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) {
		t.Fatalf("go build in a fresh home: %q", out)
	}
	if out, _ := tr.output(1); !strings.Contains(out, "hello from w") {
		t.Errorf("the built program: %q (verdict %s)", out, tr.verdict(1))
	}
}

func TestRealWorkGitCommit(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.write(map[string]string{"README.md": "# project\n"})
	tr := h.run(propose("git init -q && git add -A && git -c user.name=Agent -c user.email=agent@example.com commit -qm x && git log --oneline"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, " x") {
		t.Errorf("git commit: %q", out)
	}
}

func TestRealWorkPythonUnittest(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.write(map[string]string{
		"calc.py":      "def add(a, b):\n    return a + b\n",
		"test_calc.py": "import unittest\nimport calc\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n\nif __name__ == '__main__':\n    unittest.main()\n",
	})
	tr := h.run(propose("python3 -m unittest -v"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, "OK") {
		t.Errorf("python3 -m unittest: %q", out)
	}
}

func TestRealWorkNpmTest(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.write(map[string]string{
		"package.json": `{"name": "w", "version": "1.0.0", "scripts": {"test": "node test.js"}}` + "\n",
		"test.js":      "const assert = require('assert');\nassert.strictEqual(1 + 2, 3);\nconsole.log('tests passed');\n",
	})
	tr := h.run(slow("npm test"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, "tests passed") {
		t.Errorf("npm test: %q", out)
	}
}

// registry is a loopback stand-in for a package registry, configured
// as one of the workspace's registries (agent.command.registries): the
// egress proxy must let commands reach it, and only it.
func registry(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	return srv, "  command:\n    registries: [\"" + hostPort + "\"]\n"
}

// depModule is the module the go get tests fetch from goProxy.
const depModule, depVersion = "example.com/dep", "v1.0.0"

// depFiles are depModule's files besides its go.mod.
var depFiles = map[string]string{"dep.go": "package dep\n\n// V is the version.\nconst V = 1\n"}

// goRegistry serves goProxy on loopback as the workspace's registry:
// agent is the config.yaml lines, env points go at it.
func goRegistry(t *testing.T, mod, ver string, files map[string]string) (agent string, env []string) {
	t.Helper()
	srv, agent := registry(t, goProxy(t, mod, ver, files))
	return agent, []string{"GOPROXY=" + srv.URL, "GOSUMDB=off"}
}

// `go get` from a loopback Go module proxy (the GOPROXY protocol: list,
// info, mod, zip).
func TestRealWorkGoGet(t *testing.T) {
	agent, env := goRegistry(t, depModule, depVersion, depFiles)
	h := newHands(t, handsSetup{agent: agent, env: env})
	h.goModule()
	tr := h.run(slow("go get " + depModule + "@" + depVersion))
	h.mustAllow(tr, 0)
	b, _ := os.ReadFile(h.abs("go.mod"))
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(string(b), depModule+" "+depVersion) {
		t.Errorf("go get through the proxy: %q\ngo.mod:\n%s", out, b)
	}
}

// `npm install` from a loopback npm registry: a packument and its
// tarball.
func TestRealWorkNpmInstall(t *testing.T) {
	srv, agent := registry(t, npmRegistry(t, "", "tinypkg", "1.0.0", map[string]string{"index.js": "module.exports = () => 'tiny';\n"}))
	h := newHands(t, handsSetup{agent: agent, env: npmEnv(srv.URL + "/")})
	h.write(map[string]string{"package.json": `{"name": "w", "version": "1.0.0"}` + "\n"})
	tr := h.run(slow("npm install tinypkg"))
	h.mustAllow(tr, 0)
	if _, err := os.Stat(h.abs("node_modules/tinypkg/index.js")); err != nil || !tr.succeeded(0) {
		out, _ := tr.output(0)
		t.Errorf("npm install through the proxy: %v\n%s", err, out)
	}
}

// `pip download` from a loopback simple index (PEP 503) serving a wheel.
func TestRealWorkPipDownload(t *testing.T) {
	srv, agent := registry(t, pipIndex(t, "tinypkg", "1.0.0", map[string]string{"tinypkg/__init__.py": "V = 1\n"}))
	h := newHands(t, handsSetup{agent: agent, env: []string{"PIP_INDEX_URL=" + srv.URL + "/simple", "PIP_DISABLE_PIP_VERSION_CHECK=1"}})
	tr := h.run(slow("python3 -m pip download --no-deps -d dl tinypkg"))
	h.mustAllow(tr, 0)
	if _, err := os.Stat(h.abs("dl/tinypkg-1.0.0-py3-none-any.whl")); err != nil || !tr.succeeded(0) {
		out, _ := tr.output(0)
		t.Errorf("pip download through the proxy: %v\n%s", err, out)
	}
}

// `git clone` over a loopback smart-HTTP server (git http-backend).
func TestRealWorkGitClone(t *testing.T) {
	repos := t.TempDir()
	src := t.TempDir()
	hostGit(t, "init", "-q", "--bare", filepath.Join(repos, "repo.git"))
	hostGit(t, "-C", src, "init", "-q")
	hostGit(t, "-C", src, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first")
	hostGit(t, "-C", src, "push", "-q", filepath.Join(repos, "repo.git"), "HEAD:refs/heads/main")
	hostGit(t, "-C", filepath.Join(repos, "repo.git"), "symbolic-ref", "HEAD", "refs/heads/main")
	srv, agent := registry(t, gitHTTP(t, repos))
	h := newHands(t, handsSetup{agent: agent})
	tr := h.run(propose("git clone -q " + srv.URL + "/repo.git cloned && git -C cloned log --oneline"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, "first") {
		t.Errorf("git clone through the proxy: %q", out)
	}
}

// goProxy is a Go module proxy (the GOPROXY protocol: list, info, mod,
// zip) serving mod@ver: its files, and a go.mod.
func goProxy(t *testing.T, mod, ver string, files map[string]string) http.Handler {
	t.Helper()
	gomod := "module " + mod + "\n\ngo 1.22\n"
	files = maps.Clone(files)
	files["go.mod"] = gomod
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(mod + "@" + ver + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	served := map[string]string{
		"/" + mod + "/@v/list":             ver + "\n",
		"/" + mod + "/@v/" + ver + ".info": `{"Version":"` + ver + `","Time":"2024-01-01T00:00:00Z"}`,
		"/" + mod + "/@v/" + ver + ".mod":  gomod,
		"/" + mod + "/@v/" + ver + ".zip":  zb.String(),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := served[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	})
}

// npmRegistry is an npm registry serving name@ver: its packument at
// /NAME and its tarball (files under package/, and a package.json) at
// /NAME/-/NAME-VER.tgz. prefix is the path it is mounted at ("" at the
// root), for the tarball's URL.
func npmRegistry(t *testing.T, prefix, name, ver string, files map[string]string) http.Handler {
	t.Helper()
	files = maps.Clone(files)
	files["package.json"] = `{"name": "` + name + `", "version": "` + ver + `", "main": "index.js"}`
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		body := files[n]
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	tarball := tb.Bytes()
	sha1sum := sha1.Sum(tarball) //nolint:gosec // the registry format
	sha512sum := sha512.Sum512(tarball)
	file := "/" + name + "/-/" + name + "-" + ver + ".tgz"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + name:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"name":%q,"dist-tags":{"latest":%q},"versions":{%q:{"name":%q,"version":%q,"main":"index.js","dist":{"tarball":"http://%s%s%s","shasum":"%s","integrity":"sha512-%s"}}}}`,
				name, ver, ver, name, ver, r.Host, prefix, file, hex.EncodeToString(sha1sum[:]), base64.StdEncoding.EncodeToString(sha512sum[:]))
		case file:
			_, _ = w.Write(tarball)
		default:
			http.NotFound(w, r)
		}
	})
}

// npmEnv is the environment npm needs to use registry (its URL, ending
// in /) and nothing else.
func npmEnv(registry string) []string {
	return []string{"npm_config_registry=" + registry, "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}
}

// pipIndex is a simple package index (PEP 503) serving name==ver as a
// pure-Python wheel of files: /simple/NAME/ links to /files/WHEEL
// (relatively, so it can be mounted under a prefix).
func pipIndex(t *testing.T, name, ver string, files map[string]string) http.Handler {
	t.Helper()
	whl := name + "-" + ver + "-py3-none-any.whl"
	info := name + "-" + ver + ".dist-info/"
	files = maps.Clone(files)
	files[info+"METADATA"] = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + ver + "\n"
	files[info+"WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	files[info+"RECORD"] = ""
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	wheel := zb.Bytes()
	sum := sha256.Sum256(wheel)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/simple/" + name + "/":
			fmt.Fprintf(w, `<!DOCTYPE html><html><body><a href="../../files/%s#sha256=%s">%s</a></body></html>`, whl, hex.EncodeToString(sum[:]), whl)
		case "/files/" + whl:
			_, _ = w.Write(wheel)
		default:
			http.NotFound(w, r)
		}
	})
}

// gitHTTP is a smart-HTTP git server (git http-backend) over the bare
// repositories under repos; it accepts pushes to those whose
// http.receivepack is true.
func gitHTTP(t *testing.T, repos string) http.Handler {
	t.Helper()
	execPath := strings.TrimSpace(hostGit(t, "--exec-path"))
	return &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + repos, "GIT_HTTP_EXPORT_ALL=1"},
	}
}

// hostGit runs git on the test's side (not through Parallax), with a
// configuration of its own, and returns its output.
func hostGit(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Need(t, err, "git")
	}
	c := exec.Command("git", args...)
	c.Env = []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
