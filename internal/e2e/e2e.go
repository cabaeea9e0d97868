package e2e

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv is the environment variable that turns a missing program
// from a skip into a failure.
const RequireEnv = "PARALLAX_E2E"

// Root is the repository root: the nearest directory at or above the
// working directory holding go.mod and .e2e/.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "go.mod")) && fileExists(filepath.Join(dir, ".e2e", "package.json")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no repository root (go.mod and .e2e/) above the working directory")
		}
		dir = up
	}
}

// NodeModules is .e2e/node_modules of the repository.
func NodeModules(tb testing.TB) string {
	tb.Helper()
	root, err := Root()
	if err != nil {
		missing(tb, err.Error())
	}
	return filepath.Join(root, ".e2e", "node_modules")
}

// Bin is the path of an installed npm program (node_modules/.bin/NAME),
// for instance "claude", "mcp-server-filesystem" or "mcp-server-everything".
func Bin(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(NodeModules(tb), ".bin", name)
	if !fileExists(p) {
		missing(tb, name+" is not installed at "+p)
	}
	return p
}

// Module is the directory of an installed npm package such as
// "@modelcontextprotocol/sdk".
func Module(tb testing.TB, pkg string) string {
	tb.Helper()
	p := filepath.Join(NodeModules(tb), filepath.FromSlash(pkg))
	if !fileExists(filepath.Join(p, "package.json")) {
		missing(tb, pkg+" is not installed at "+p)
	}
	return p
}

// Need skips tb when err says this machine lacks what the test needs
// (the kernel sandbox, user namespaces, a terminal), or fails it under
// PARALLAX_E2E=require, where the end-to-end checks must really run.
func Need(tb testing.TB, err error, what string) {
	tb.Helper()
	if err == nil {
		return
	}
	msg := what + ": " + err.Error()
	if os.Getenv(RequireEnv) == "require" {
		tb.Fatal(msg + " (" + RequireEnv + "=require)")
	}
	tb.Skip(msg)
}

func missing(tb testing.TB, what string) {
	tb.Helper()
	msg := what + "; run .ci/e2e-deps (npm) to install the end-to-end programs"
	if os.Getenv(RequireEnv) == "require" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// CopyFile copies the file src to dst with mode, making dst's directory
// (a binary placed where a sandboxed program can see it).
func CopyFile(tb testing.TB, src, dst string, mode fs.FileMode) {
	tb.Helper()
	b, err := os.ReadFile(src) //nolint:gosec // a test's own file
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		tb.Fatal(err)
	}
}
