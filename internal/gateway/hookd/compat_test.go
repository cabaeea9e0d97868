package hookd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// TestOldDaemonIsRetired: a daemon of protocol 1 (before the key) on the
// socket refuses the hello and would stay, holding the lock; the client
// decides in process, sends it what makes a protocol-1 daemon exit (a
// call of another binary, with no input), and asks for a new daemon.
func TestOldDaemonIsRetired(t *testing.T) {
	root, home := newWorkspace(t)
	retired := make(chan string, 4)
	stop := fakeDaemon(t, root, func(c *net.UnixConn, r *bufio.Reader) { // protocol 1's server
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var h struct {
			V          int      `json:"v"`
			Exe        Identity `json:"exe"`
			Home       string   `json:"home"`
			ProjectDir string   `json:"project_dir"`
			N          int      `json:"n"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil || h.V != 1 {
			_, _ = c.Write([]byte(`{"v":1,"refused":"bad request","n":0}` + "\n"))
			return
		}
		if h.Exe != testID && h.N == 0 {
			retired <- string(line)
			_, _ = c.Write([]byte(`{"v":1,"refused":"this daemon runs another parallax binary; it exits","n":0}` + "\n"))
		}
	})
	defer stop()
	in := hookInput(t, claudecode.EventPreToolUse, "o1", root, "Read", map[string]any{"file_path": "~/.ssh/id_rsa"}, nil)
	started := 0
	opts := clientOpts(home)
	opts.Start = func(string, string) { started++ }
	if r := run(context.Background(), opts, in); !strings.Contains(r.stdout, `"deny"`) || started != 1 {
		t.Errorf("got %+v, %d daemons started; want the in-process deny and one", r, started)
	}
	select {
	case line := <-retired:
		if strings.Contains(line, "ssh") {
			t.Errorf("the old daemon was sent %q, want nothing of the call", line)
		}
	case <-time.After(time.Minute):
		t.Fatal("the old daemon was not told to exit")
	}
}
