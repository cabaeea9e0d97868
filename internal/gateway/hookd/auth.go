package hookd

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"os"
	"syscall"

	"github.com/parallax/parallax/internal/workspace"
)

// A connection is authenticated by the install's key, not by who the
// peer is (the same user can run anything, the parallax binary too):
//
//	client → daemon  hello: {"v","nonce"}            a fresh client nonce
//	daemon → client  proof: {"v","nonce"} + tag      a fresh daemon nonce
//	client → daemon  request header, stdin + tag
//	daemon → client  answer header, stdout + tag
//
// Each tag is HMAC-SHA256(key, label NUL client-nonce daemon-nonce
// workspace counter message): the label names the protocol version and
// what the message is (a proof cannot pass for a request or an answer),
// both nonces make it this connection's alone (nothing recorded on
// another connection replays), the workspace is the device and inode of
// the .parallax both ends serve (every spelling of its path agrees), the
// counter orders the messages of the connection, and the message is its
// header line and body as sent. The client sends nothing of the call
// before the daemon's proof checks out, believes no answer whose tag does
// not, and the daemon decides nothing for a request whose tag does not;
// tags are compared in constant time (hmac.Equal).

// Sizes on the wire.
const (
	nonceSize = 32
	tagSize   = sha256.Size
)

// Labels of the tagged messages (the protocol version is in each).
const (
	labelProof   = "parallax hookd 2 daemon proof"
	labelRequest = "parallax hookd 2 request"
	labelAnswer  = "parallax hookd 2 answer"
)

// WorkspaceID names the workspace a connection serves: the device and
// inode of its .parallax.
type WorkspaceID struct{ Dev, Ino uint64 }

// WorkspaceOf is the identity of the workspace at root.
func WorkspaceOf(root string) (WorkspaceID, error) {
	fi, err := os.Stat(workspace.StateDir(root))
	if err != nil {
		return WorkspaceID{}, fmt.Errorf("workspace identity: %w", err)
	}
	if _, ok := fi.Sys().(*syscall.Stat_t); !ok || !fi.IsDir() {
		return WorkspaceID{}, fmt.Errorf("workspace identity: %s is not a directory", workspace.StateDir(root))
	}
	id := idOf(fi)
	return WorkspaceID{Dev: id.dev, Ino: id.ino}, nil
}

// session is one connection's authentication state, the same on both
// ends once the nonces are exchanged.
type session struct {
	key            *Key
	ws             WorkspaceID
	client, daemon [nonceSize]byte
	seq            uint64 // tags computed on this connection so far
}

// newNonce reads a nonce from rnd (nil: crypto/rand).
func newNonce(rnd io.Reader) ([nonceSize]byte, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var n [nonceSize]byte
	if _, err := io.ReadFull(rnd, n[:]); err != nil {
		return n, fmt.Errorf("nonce: %w", err)
	}
	return n, nil
}

// tag is the next message's tag; every call advances the counter, so
// both ends compute the tags of a connection in the same order.
func (s *session) tag(label string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, s.key[:])
	writeAll(m, []byte(label), []byte{0}, s.client[:], s.daemon[:])
	var fixed [24]byte
	binary.BigEndian.PutUint64(fixed[0:], s.ws.Dev)
	binary.BigEndian.PutUint64(fixed[8:], s.ws.Ino)
	binary.BigEndian.PutUint64(fixed[16:], s.seq)
	s.seq++
	writeAll(m, fixed[:])
	writeAll(m, parts...)
	return m.Sum(nil)
}

// check reports whether got is the next message's tag, in constant time.
func (s *session) check(got []byte, label string, parts ...[]byte) bool {
	return hmac.Equal(s.tag(label, parts...), got)
}

func writeAll(h hash.Hash, parts ...[]byte) {
	for _, p := range parts {
		_, _ = h.Write(p) // a hash.Hash never fails
	}
}
