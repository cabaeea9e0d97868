package hookd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// protocol is the wire version; a header with another one is refused.
const protocol = 2

// Bounds of the wire.
const (
	maxHeaderBytes = 64 << 10
	maxAnswerBytes = 1 << 20
)

// Identity says which binary a process runs: the daemon serves only
// clients of the same build.
type Identity struct {
	Path    string `json:"path"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
}

// SelfIdentity is the identity of the running executable.
func SelfIdentity() (Identity, error) {
	exe, err := os.Executable()
	if err != nil {
		return Identity{}, fmt.Errorf("find this binary: %w", err)
	}
	return FileIdentity(exe)
}

// FileIdentity is the identity of the executable at path.
func FileIdentity(path string) (Identity, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Identity{}, fmt.Errorf("stat this binary: %w", err)
	}
	return infoIdentity(path, fi), nil
}

// infoIdentity is the identity of the file at path with info fi.
func infoIdentity(path string, fi os.FileInfo) Identity {
	id := idOf(fi)
	return Identity{Path: path, Dev: id.dev, Ino: id.ino, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
}

// Request is one forwarded hook call.
type Request struct {
	Identity   Identity
	Home       string
	ProjectDir string
	Stdin      []byte
}

// Response is the daemon's answer: what the hook writes to stdout, and
// its error (exit status 2 with Err on stderr) when Err is set.
type Response struct {
	Stdout []byte
	Err    string
}

// helloHeader opens a connection (client to daemon) and the daemon's
// proof (daemon to client, followed by its tag): each end's nonce.
type helloHeader struct {
	V     int    `json:"v"`
	Nonce []byte `json:"nonce"`
}

type requestHeader struct {
	V          int      `json:"v"`
	Exe        Identity `json:"exe"`
	Home       string   `json:"home"`
	ProjectDir string   `json:"project_dir"`
	N          int      `json:"n"`
}

type answerHeader struct {
	V       int    `json:"v"`
	OK      bool   `json:"ok"`
	Err     string `json:"err,omitempty"`
	Refused string `json:"refused,omitempty"`
	N       int    `json:"n"`
}

// errRefused is a daemon that answered but would not decide.
var errRefused = errors.New("the daemon refused the call")

// errUnproven is a peer that did not prove it holds the install's key,
// or whose message's tag does not check out.
var errUnproven = errors.New("the process on the hook socket did not prove it holds this install's key")

// writeHello opens a connection with the client's nonce.
func writeHello(w io.Writer, nonce [nonceSize]byte) error {
	line, err := headerLine(helloHeader{V: protocol, Nonce: nonce[:]})
	if err != nil {
		return err
	}
	return writeParts(w, line)
}

// readHello reads the client's nonce.
func readHello(r *bufio.Reader) ([nonceSize]byte, error) {
	var h helloHeader
	var n [nonceSize]byte
	if _, err := readHeader(r, &h); err != nil {
		return n, err
	}
	if h.V != protocol || len(h.Nonce) != nonceSize {
		return n, fmt.Errorf("hello of protocol %d with a %d-byte nonce, want %d and %d", h.V, len(h.Nonce), protocol, nonceSize)
	}
	copy(n[:], h.Nonce)
	return n, nil
}

// writeProof sends the daemon's nonce and its proof that it holds the
// key: the tag of the line under both nonces. s.daemon is set.
func writeProof(w io.Writer, s *session) error {
	line, err := headerLine(helloHeader{V: protocol, Nonce: s.daemon[:]})
	if err != nil {
		return err
	}
	return writeParts(w, line, s.tag(labelProof, line))
}

// readProof reads the daemon's nonce into s and checks its proof.
func readProof(r *bufio.Reader, s *session) error {
	var h helloHeader
	line, err := readHeader(r, &h)
	if err != nil {
		if line != nil && oldProtocol(line) {
			return errOldDaemon
		}
		return err
	}
	if h.V != protocol || len(h.Nonce) != nonceSize {
		return fmt.Errorf("%w: a proof of protocol %d with a %d-byte nonce", errUnproven, h.V, len(h.Nonce))
	}
	copy(s.daemon[:], h.Nonce)
	tag, err := readTag(r)
	if err != nil {
		return err
	}
	if !s.check(tag, labelProof, line) {
		return errUnproven
	}
	return nil
}

func writeRequest(w io.Writer, s *session, req *Request) error {
	line, err := headerLine(requestHeader{V: protocol, Exe: req.Identity, Home: req.Home,
		ProjectDir: req.ProjectDir, N: len(req.Stdin)})
	if err != nil {
		return err
	}
	return writeParts(w, line, req.Stdin, s.tag(labelRequest, line, req.Stdin))
}

// readRequest reads one request and checks its tag; its stdin is at most
// MaxInputBytes.
func readRequest(r *bufio.Reader, s *session) (*Request, error) {
	var h requestHeader
	line, err := readHeader(r, &h)
	if err != nil {
		return nil, err
	}
	if h.V != protocol {
		return nil, fmt.Errorf("protocol %d, want %d", h.V, protocol)
	}
	if h.N < 0 || h.N > claudecode.MaxInputBytes {
		return nil, fmt.Errorf("input of %d bytes: the limit is %d", h.N, claudecode.MaxInputBytes)
	}
	req := &Request{Identity: h.Exe, Home: h.Home, ProjectDir: h.ProjectDir, Stdin: make([]byte, h.N)}
	if _, err := io.ReadFull(r, req.Stdin); err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	tag, err := readTag(r)
	if err != nil {
		return nil, err
	}
	if !s.check(tag, labelRequest, line, req.Stdin) {
		return nil, errors.New("the request's tag does not check out")
	}
	return req, nil
}

func writeAnswer(w io.Writer, s *session, resp Response, refused string) error {
	line, err := headerLine(answerHeader{V: protocol, OK: refused == "", Err: resp.Err, Refused: refused, N: len(resp.Stdout)})
	if err != nil {
		return err
	}
	return writeParts(w, line, resp.Stdout, s.tag(labelAnswer, line, resp.Stdout))
}

// readAnswer reads one complete answer and checks its tag before it
// looks at what it says. Anything else is an error: an answer that is
// cut short, malformed, of another protocol, too large, with a tag that
// does not check out (errUnproven), followed by more bytes, or a
// refusal.
func readAnswer(r *bufio.Reader, s *session) (Response, error) {
	var h answerHeader
	line, err := readHeader(r, &h)
	if err != nil {
		return Response{}, err
	}
	if h.V != protocol {
		return Response{}, fmt.Errorf("answer of protocol %d, want %d", h.V, protocol)
	}
	if h.N < 0 || h.N > maxAnswerBytes {
		return Response{}, fmt.Errorf("answer of %d bytes", h.N)
	}
	body := make([]byte, h.N)
	if _, err := io.ReadFull(r, body); err != nil {
		return Response{}, fmt.Errorf("read answer: %w", err)
	}
	tag, err := readTag(r)
	if err != nil {
		return Response{}, err
	}
	if !s.check(tag, labelAnswer, line, body) {
		return Response{}, fmt.Errorf("%w: the answer's tag does not check out", errUnproven)
	}
	switch {
	case h.Refused != "":
		return Response{}, fmt.Errorf("%w: %s", errRefused, h.Refused)
	case !h.OK:
		return Response{}, errors.New("answer without ok")
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return Response{}, errors.New("trailing bytes after the answer")
	}
	resp := Response{Stdout: body, Err: h.Err}
	if h.N == 0 {
		resp.Stdout = nil
	}
	return resp, nil
}

// headerLine is v as one JSON line (json.Marshal escapes every newline
// inside it, so the line's end is its only one).
func headerLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode header: %w", err)
	}
	return append(b, '\n'), nil
}

// writeParts writes a message's parts in one go (writev on a socket).
func writeParts(w io.Writer, parts ...[]byte) error {
	bufs := net.Buffers(parts)
	_, err := bufs.WriteTo(w)
	return err
}

// readTag reads a message's tag.
func readTag(r *bufio.Reader) ([]byte, error) {
	tag := make([]byte, tagSize)
	if _, err := io.ReadFull(r, tag); err != nil {
		return nil, fmt.Errorf("read tag: %w", err)
	}
	return tag, nil
}

// readHeader reads one JSON line of at most maxHeaderBytes, strictly, and
// returns it as read (the bytes a tag covers; also when it does not
// decode).
func readHeader(r *bufio.Reader, v any) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderBytes {
			return nil, errors.New("header too long")
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("read header: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return line, fmt.Errorf("decode header: %w", err)
	}
	return line, nil
}
