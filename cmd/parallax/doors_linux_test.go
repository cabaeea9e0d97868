package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Issue 19, item 1: the files executor acts on what the gate decided. A
// background flipper turns notes.txt between a harmless file and a link
// to ~/.aws/credentials (then to ~/.bashrc) as fast as it can while the
// model reads and writes notes.txt hundreds of times: every call either
// ran on the harmless file or was refused; the secret never reaches the
// model and the dotfiles keep their bytes.
func TestFileCallsCannotFollowARacingLink(t *testing.T) {
	h := newHands(t, handsSetup{})
	secret := "leak-" + h.token
	creds, bashrc := h.homePath(".aws/credentials"), h.homePath(".bashrc")
	h.write(map[string]string{
		creds:       "[default]\nnote = " + secret + "\n",
		bashrc:      "# the user's own bashrc\nexport EDITOR=vi\n",
		"notes.txt": "harmless\n",
	})
	snap := snapshot(t, creds, bashrc)
	var ran, refused, failed int
	for _, target := range []string{creds, bashrc} {
		t.Run(filepath.Base(target), func(t *testing.T) {
			stop := flipLink(t, h.abs("notes.txt"), target)
			direct := sseToolCalls(toolCall{"direct", "read_file", map[string]any{"path": target}})
			tr := h.runScripted("tidy my notes", append([]func(http.ResponseWriter){direct}, raceAnswers(h.abs("notes.txt"), 4, 50)...)...)
			flips := stop()
			// A read that lands on the link's target is what was decided
			// only when the gate lets the model read that file directly.
			var readable string
			if strings.HasPrefix(tr.decision("direct"), "ALLOW:") {
				readable = string(*snap[target])
			}
			r, x, f := classifyRace(t, tr, secret, readable, 4*50)
			ran, refused, failed = ran+r, refused+x, failed+f
			t.Logf("%s: %d flips; %d calls ran on the harmless file, %d refused by the gate or engine, %d failed in the executor",
				filepath.Base(target), flips, r, x, f)
			if !tr.ended("Done.") {
				t.Errorf("the turn did not end in its reply")
			}
		})
	}
	if got := h.leaked(secret); len(got) > 0 {
		t.Errorf("the credentials' secret reached the model")
	}
	unchangedSince(t, snap)
	t.Logf("in all: %d ran, %d refused, %d failed in the executor", ran, refused, failed)
	if ran == 0 || refused+failed == 0 {
		t.Errorf("the race was not exercised: %d ran, %d refused, %d failed", ran, refused, failed)
	}
}

// flipLink flips name between a regular file holding "harmless\n" and a
// symbolic link to target, each by an atomic rename, until the returned
// stop is called; stop returns how many flips were made.
func flipLink(t *testing.T, name, target string) (stop func() int) {
	t.Helper()
	var done atomic.Bool
	var wg sync.WaitGroup
	var flips int
	reg, lnk := name+".reg", name+".lnk"
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			_ = os.Remove(reg)
			_ = os.WriteFile(reg, []byte("harmless\n"), 0o644)
			_ = os.Rename(reg, name)
			_ = os.Remove(lnk)
			_ = os.Symlink(target, lnk)
			_ = os.Rename(lnk, name)
			flips++
		}
	}()
	return func() int {
		done.Store(true)
		wg.Wait()
		_ = os.Remove(reg)
		_ = os.Remove(lnk)
		_ = os.Remove(name)
		_ = os.WriteFile(name, []byte("harmless\n"), 0o644)
		return flips
	}
}

// raceAnswers is rounds model answers of perRound calls each,
// alternating read_file and write_file on path.
func raceAnswers(path string, rounds, perRound int) []func(http.ResponseWriter) {
	var answers []func(http.ResponseWriter)
	for r := range rounds {
		var calls []toolCall
		for i := range perRound {
			id := fmt.Sprintf("call_%d_%d", r, i)
			if i%2 == 0 {
				calls = append(calls, toolCall{id, "read_file", map[string]any{"path": path}})
			} else {
				calls = append(calls, toolCall{id, "write_file", map[string]any{"path": path, "content": "harmless from the model\n"}})
			}
		}
		answers = append(answers, sseToolCalls(calls...))
	}
	return answers
}

// classifyRace checks every call of a race turn: ALLOWed and ran on the
// harmless file, refused (a BLOCK), or ALLOWed but failed in the
// executor, which saw the name change under it. Anything else fails the
// test.
func classifyRace(t *testing.T, tr turn, secret, readable string, n int) (ran, refused, failed int) {
	rules := map[string]int{}
	t.Helper()
	for r := range n / 50 {
		for i := range 50 {
			id := fmt.Sprintf("call_%d_%d", r, i)
			v := tr.decision(id)
			out, ok, found := tr.result(id)
			switch {
			case !found:
				t.Errorf("%s: no result (verdict %s)", id, v)
			case strings.Contains(out, secret):
				t.Errorf("%s: the result holds the secret (verdict %s): %q", id, v, out)
			case !strings.HasPrefix(v, "ALLOW:"):
				refused++
				rules[v]++
			case !ok:
				failed++
				rules["failed: "+firstLine(out)]++
			case i%2 == 0 && readable != "" && strings.Contains(out, readable):
				ran++
				rules["read the target, readable directly"]++
			case i%2 == 0 && !strings.Contains(out, "harmless"):
				t.Errorf("%s: read returned %q, want the harmless file", id, out)
			default:
				ran++
			}
		}
	}
	t.Logf("outcomes: %v", rules)
	return ran, refused, failed
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
