package action

import (
	"bufio"
	"os"
	"testing"
)

// slowHash is Hash of a plain command through encoding/json only.
func slowHash(t testing.TB, cmd string) string {
	t.Helper()
	h, err := hashSlow(&Action{Type: ExecuteCommand, Payload: &ExecuteCommandPayload{Command: cmd}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func checkHashAgrees(t testing.TB, cmd string) {
	t.Helper()
	fast, ok := hashCommand(ExecuteCommand, cmd)
	if !ok {
		return
	}
	if slow := slowHash(t, cmd); fast != slow {
		t.Fatalf("%q: fast hash %s, encoding/json %s", cmd, fast, slow)
	}
}

func TestHashCommandAgrees(t *testing.T) {
	cmds := []string{"ls", "cd /w && a <b >c", "echo \"x\\y\"\n\tz\r", "caf\u00e9", "a\x01b", "\x7f", "</script>&"}
	if f, err := os.Open("../../shared/corpora/nl2bash/all.cm"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			cmds = append(cmds, "cd /home/dev/project && "+sc.Text())
		}
		f.Close()
	}
	fast := 0
	for _, c := range cmds {
		if _, ok := hashCommand(ExecuteCommand, c); ok {
			fast++
		}
		checkHashAgrees(t, c)
		// Through Hash itself: the same answer either way.
		h, err := Hash(&Action{Type: ExecuteCommand, Payload: &ExecuteCommandPayload{Command: c}})
		if err != nil || h != slowHash(t, c) {
			t.Fatalf("%q: Hash %s %v, want %s", c, h, err, slowHash(t, c))
		}
	}
	t.Logf("%d of %d commands hashed without encoding/json", fast, len(cmds))
	if len(cmds) > 1000 && fast*10 < len(cmds)*9 {
		t.Errorf("only %d of %d commands took the fast path", fast, len(cmds))
	}
}

func FuzzHashCommand(f *testing.F) {
	for _, s := range []string{"ls", "a && b", "<>&\"\\", "\t\n\r", "\u2028", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkHashAgrees(t, s) })
}
