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
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

// goProxy is a loopback Go module proxy (the GOPROXY protocol: list,
// info, mod, zip) serving one version of one module with files (its
// go.mod among them), configured as a registry; env is what points go
// at it.
func goProxy(t *testing.T, mod, ver string, files map[string]string) (agent string, env []string) {
	t.Helper()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range files {
		w, err := zw.Create(mod + "@" + ver + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	served := map[string]string{
		"/" + mod + "/@v/list":             ver + "\n",
		"/" + mod + "/@v/" + ver + ".info": `{"Version":"` + ver + `","Time":"2024-01-01T00:00:00Z"}`,
		"/" + mod + "/@v/" + ver + ".mod":  files["go.mod"],
		"/" + mod + "/@v/" + ver + ".zip":  zb.String(),
	}
	srv, agent := registry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := served[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	return agent, []string{"GOPROXY=" + srv.URL, "GOSUMDB=off"}
}

// depModule is the module goProxy serves in the go get tests.
const depModule, depVersion = "example.com/dep", "v1.0.0"

// depFiles are depModule's files.
var depFiles = map[string]string{
	"go.mod": "module " + depModule + "\n\ngo 1.22\n",
	"dep.go": "package dep\n\n// V is the version.\nconst V = 1\n",
}

// `go get` from a loopback Go module proxy.
func TestRealWorkGoGet(t *testing.T) {
	agent, env := goProxy(t, depModule, depVersion, depFiles)
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
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/package.json": `{"name": "tinypkg", "version": "1.0.0", "main": "index.js"}`,
		"package/index.js":     "module.exports = () => 'tiny';\n",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
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
	var srvURL string
	srv, agent := registry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tinypkg":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"name":"tinypkg","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"tinypkg","version":"1.0.0","main":"index.js","dist":{"tarball":"%s/tinypkg/-/tinypkg-1.0.0.tgz","shasum":"%s","integrity":"sha512-%s"}}}}`,
				srvURL, hex.EncodeToString(sha1sum[:]), base64.StdEncoding.EncodeToString(sha512sum[:]))
		case "/tinypkg/-/tinypkg-1.0.0.tgz":
			_, _ = w.Write(tarball)
		default:
			http.NotFound(w, r)
		}
	}))
	srvURL = srv.URL
	h := newHands(t, handsSetup{agent: agent, env: []string{"npm_config_registry=" + srv.URL + "/", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}})
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
	const whl = "tinypkg-1.0.0-py3-none-any.whl"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	entries := []struct{ name, body string }{
		{"tinypkg/__init__.py", "V = 1\n"},
		{"tinypkg-1.0.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0.0\n"},
		{"tinypkg-1.0.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{"tinypkg-1.0.0.dist-info/RECORD", ""},
	}
	for _, e := range entries {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	wheel := zb.Bytes()
	sum := sha256.Sum256(wheel)
	srv, agent := registry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/simple/tinypkg/":
			fmt.Fprintf(w, `<!DOCTYPE html><html><body><a href="/files/%s#sha256=%s">%s</a></body></html>`, whl, hex.EncodeToString(sum[:]), whl)
		case "/files/" + whl:
			_, _ = w.Write(wheel)
		default:
			http.NotFound(w, r)
		}
	}))
	h := newHands(t, handsSetup{agent: agent, env: []string{"PIP_INDEX_URL=" + srv.URL + "/simple", "PIP_DISABLE_PIP_VERSION_CHECK=1"}})
	tr := h.run(slow("python3 -m pip download --no-deps -d dl tinypkg"))
	h.mustAllow(tr, 0)
	if _, err := os.Stat(h.abs("dl/" + whl)); err != nil || !tr.succeeded(0) {
		out, _ := tr.output(0)
		t.Errorf("pip download through the proxy: %v\n%s", err, out)
	}
}

// `git clone` over a loopback smart-HTTP server (git http-backend).
func TestRealWorkGitClone(t *testing.T) {
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git: %v", err)
	}
	repos := t.TempDir()
	src := t.TempDir()
	gitEnv := []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	for _, args := range [][]string{
		{"init", "-q", "--bare", filepath.Join(repos, "repo.git")},
		{"-C", src, "init", "-q"},
		{"-C", src, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", src, "push", "-q", filepath.Join(repos, "repo.git"), "HEAD:refs/heads/main"},
		{"-C", filepath.Join(repos, "repo.git"), "symbolic-ref", "HEAD", "refs/heads/main"},
	} {
		c := exec.Command("git", args...)
		c.Env = gitEnv
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	srv, agent := registry(t, &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + repos, "GIT_HTTP_EXPORT_ALL=1"},
	})
	h := newHands(t, handsSetup{agent: agent})
	tr := h.run(propose("git clone -q " + srv.URL + "/repo.git cloned && git -C cloned log --oneline"))
	h.mustAllow(tr, 0)
	if out, _ := tr.output(0); !tr.succeeded(0) || !strings.Contains(out, "first") {
		t.Errorf("git clone through the proxy: %q", out)
	}
}
