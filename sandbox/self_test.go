//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// selfChild takes Self, says so, waits for the parent to replace the
// file it was started from, then runs Self and prints what ran.
func selfChild() int {
	p, err := Self()
	if err != nil {
		fmt.Println("self:", err)
		return 1
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 1
	}
	cmd := exec.Command(p, "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=hello")
	out, err := cmd.CombinedOutput()
	fmt.Printf("ran: %s (%v)\n", strings.TrimSpace(string(out)), err)
	return 0
}

// The engine starts the command wrapper and the agent from the file it
// was started from, whatever has been written at that path since: a
// process that replaced the binary (a command's `make` swapping the
// parallax in ~/.local/bin) replaced nothing the engine runs.
func TestSelfCannotBeReplacedByPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "parallax")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	dst.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), roleEnv+"=self")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	if line, err := r.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	marker := filepath.Join(dir, "replaced-ran")
	planted := filepath.Join(dir, "planted")
	if err := os.WriteFile(planted, []byte("#!/bin/sh\ntouch "+marker+"\necho the replacement\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(planted, bin); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, "go")
	rest, _ := io.ReadAll(r)
	_ = cmd.Wait()
	if !strings.Contains(string(rest), "ran: the original binary") {
		t.Errorf("Self ran something else: %s", rest)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the binary planted at the engine's path ran")
	}
}
