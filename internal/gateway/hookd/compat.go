package hookd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"time"
)

// A daemon of protocol 1 (parallax before the install's key) answers a
// hello with a refusal and stays: it exits only once a client of another
// binary calls it, and every call resets its idle time. Left alone, it
// would hold the workspace's lock while every hook decides in process.
// retireOld makes that call, so that the daemon Start starts next takes
// the lock. Nothing it sends is the call's, and nothing it reads is
// believed.

// errOldDaemon is a daemon of protocol 1 on the socket.
var errOldDaemon = errors.New("a hook daemon of an older parallax (protocol 1) is on the socket")

// retireTimeout bounds retireOld.
const retireTimeout = 500 * time.Millisecond

// oldProtocol reports whether line is a header of protocol 1.
func oldProtocol(line []byte) bool {
	var h struct {
		V int `json:"v"`
	}
	return json.Unmarshal(line, &h) == nil && h.V == 1
}

// retireRequest is a protocol-1 request with no input from no binary: a
// daemon of protocol 1 refuses it and exits.
const retireRequest = `{"v":1,"exe":{"path":"","dev":0,"ino":0,"size":0,"mtime_ns":0},"home":"","project_dir":"","n":0}` + "\n"

// retireOld asks the protocol-1 daemon at sock to exit.
func retireOld(ctx context.Context, sock string) {
	ctx, cancel := context.WithTimeout(ctx, retireTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return
	}
	defer nc.Close()
	c, ok := nc.(*net.UnixConn)
	if !ok {
		return
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if err := samePeer(c); err != nil {
		return
	}
	if _, err := io.WriteString(c, retireRequest); err != nil {
		return
	}
	_ = c.CloseWrite()
	_, _ = io.Copy(io.Discard, io.LimitReader(c, maxHeaderBytes)) // the refusal, until the daemon closes
}
