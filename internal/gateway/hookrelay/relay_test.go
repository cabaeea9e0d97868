package hookrelay

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A relay in the caller's own PID namespace (a process the caller can
// see: outside a sandbox, every process; inside, one the program
// planted) is never believed, whatever it answers; the call fails and
// the hook denies. The positive case needs a PID namespace: it is the
// end-to-end TestSandboxedHookCannotBeAnsweredFromInside.
func TestRelayInTheCallersNamespaceIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	asked := make(chan struct{}, 1)
	go func() {
		_ = Serve(ln, time.Second, func(context.Context, []byte) Answer {
			asked <- struct{}{}
			return Answer{Code: 0}
		})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, err := Call(ctx, path, []byte(`{"hook_event_name":"PreToolUse"}`))
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("got %+v, %v; want the relay refused", a, err)
	}
	select {
	case <-asked:
		t.Error("the call was sent to a relay that was refused")
	default:
	}
}

// Frames are bounded: a length over the limit is refused before
// anything is read or allocated.
func TestFrameBounded(t *testing.T) {
	r := strings.NewReader("\xff\xff\xff\xff")
	if _, err := readFrame(r, 1024); err == nil {
		t.Fatal("a 4 GiB frame was accepted")
	}
}
