//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// filesOp is one thing a files child tries once confined.
type filesOp struct {
	Op   string `json:"op"` // read, create, rename, exec, socket
	Path string `json:"path,omitempty"`
	To   string `json:"to,omitempty"`
}

type filesChildInput struct {
	Spec FilesSpec `json:"spec"`
	Ops  []filesOp `json:"ops"`
}

// filesChild confines itself with the spec and reports, per op, "ok" or
// the errno.
func filesChild() int {
	var in filesChildInput
	if err := json.Unmarshal([]byte(os.Getenv("PARALLAX_SANDBOX_TEST_INPUT")), &in); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		return 2
	}
	if err := ConfineFiles(in.Spec); err != nil {
		fmt.Fprintln(os.Stderr, "confine:", err)
		return 3
	}
	var out []string
	for _, op := range in.Ops {
		var err error
		switch op.Op {
		case "read":
			_, err = os.ReadFile(op.Path)
		case "create":
			err = os.WriteFile(op.Path, []byte("x"), 0o600)
		case "rename":
			err = os.Rename(op.Path, op.To)
		case "exec":
			err = exec.Command("/bin/true").Run()
		case "socket":
			var fd int
			if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err == nil {
				_ = unix.Close(fd)
			}
		}
		out = append(out, opResult(err))
	}
	fmt.Print(strings.Join(out, " "))
	return 0
}

// opResult is "ok" or the errno of err.
func opResult(err error) string {
	var errno unix.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	default:
		return "error"
	}
}

// A file operation's helper reaches exactly the paths of its plan: a
// read granted on one file reads nothing else (not the file beside it,
// not a key in the home, not through a symlink planted in the granted
// directory), a directory granted for changes takes files only below it
// (a rename out of it, or a file created beside it, is refused), and it
// can neither run a program nor open a socket.
func TestFilesHelperCannotReachBeyondItsPlan(t *testing.T) {
	if err := Support().Usable(); err != nil {
		t.Skip(err)
	}
	ws, home := t.TempDir(), t.TempDir()
	write := func(p, s string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	granted := write(filepath.Join(ws, "a.txt"), "a")
	beside := write(filepath.Join(ws, "b.txt"), "b")
	key := write(filepath.Join(home, ".ssh", "id_ed25519"), "KEY")
	dir := filepath.Join(ws, "src")
	inDir := write(filepath.Join(dir, "main.go"), "package main")
	link := filepath.Join(dir, "key")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		spec FilesSpec
		ops  []filesOp
		want string
	}{
		{"read one file", FilesSpec{Read: []string{granted}},
			[]filesOp{{Op: "read", Path: granted}, {Op: "read", Path: beside}, {Op: "read", Path: key}, {Op: "create", Path: granted}},
			"ok EACCES EACCES EACCES"},
		{"change one directory", FilesSpec{Modify: []string{dir}},
			[]filesOp{{Op: "create", Path: filepath.Join(dir, "new.go")}, {Op: "read", Path: inDir}, {Op: "read", Path: link},
				{Op: "create", Path: filepath.Join(ws, "beside.go")}, {Op: "rename", Path: inDir, To: filepath.Join(home, "moved.go")},
				{Op: "create", Path: filepath.Join(home, ".bashrc")}},
			"ok ok EACCES EACCES EACCES EACCES"},
		{"no program, no socket", FilesSpec{Read: []string{granted}},
			[]filesOp{{Op: "exec"}, {Op: "socket"}},
			"EACCES EPERM"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := json.Marshal(filesChildInput{Spec: c.spec, Ops: c.ops})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), roleEnv+"=files", "PARALLAX_SANDBOX_TEST_INPUT="+string(in))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v (%s)", err, out)
			}
			if string(out) != c.want {
				t.Errorf("got %q, want %q", out, c.want)
			}
		})
	}
	if b, _ := os.ReadFile(inDir); string(b) != "package main" {
		t.Errorf("main.go after the run: %q", b)
	}
	for _, p := range []string{filepath.Join(home, "moved.go"), filepath.Join(home, ".bashrc"), filepath.Join(ws, "beside.go")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists: a confined helper wrote outside its plan", p)
		}
	}
}

// A spec path that is not clean and absolute is refused, not granted.
func TestConfineFilesRefusesABadPath(t *testing.T) {
	if err := Support().Usable(); err != nil {
		t.Skip(err)
	}
	in, _ := json.Marshal(filesChildInput{Spec: FilesSpec{Read: []string{"rel/a"}}})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=files", "PARALLAX_SANDBOX_TEST_INPUT="+string(in))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(out), "not clean and absolute") {
		t.Fatalf("got %v: %s, want the confinement refused", err, out)
	}
}
