package hookd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// protocol is the wire version; a header with another one is refused.
const protocol = 1

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
	id := Identity{Path: path, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Dev, id.Ino = uint64(st.Dev), st.Ino //nolint:unconvert // Dev is not uint64 everywhere
	}
	return id, nil
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

func writeRequest(w io.Writer, req *Request) error {
	h, err := json.Marshal(requestHeader{V: protocol, Exe: req.Identity, Home: req.Home,
		ProjectDir: req.ProjectDir, N: len(req.Stdin)})
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(h)
	_ = bw.WriteByte('\n')
	_, _ = bw.Write(req.Stdin)
	return bw.Flush()
}

// readRequest reads one request; its stdin is at most MaxInputBytes.
func readRequest(r *bufio.Reader) (*Request, error) {
	var h requestHeader
	if err := readHeader(r, &h); err != nil {
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
	return req, nil
}

func writeAnswer(w io.Writer, resp Response, refused string) error {
	h := answerHeader{V: protocol, OK: refused == "", Err: resp.Err, Refused: refused, N: len(resp.Stdout)}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	b = append(b, '\n')
	b = append(b, resp.Stdout...)
	_, err = w.Write(b)
	return err
}

// readAnswer reads one complete answer. Anything else is an error: an
// answer that is cut short, malformed, of another protocol, too large,
// followed by more bytes, or a refusal.
func readAnswer(r *bufio.Reader) (Response, error) {
	var h answerHeader
	if err := readHeader(r, &h); err != nil {
		return Response{}, err
	}
	switch {
	case h.V != protocol:
		return Response{}, fmt.Errorf("answer of protocol %d, want %d", h.V, protocol)
	case h.Refused != "":
		return Response{}, fmt.Errorf("%w: %s", errRefused, h.Refused)
	case !h.OK:
		return Response{}, errors.New("answer without ok")
	case h.N < 0 || h.N > maxAnswerBytes:
		return Response{}, fmt.Errorf("answer of %d bytes", h.N)
	}
	resp := Response{Stdout: make([]byte, h.N), Err: h.Err}
	if _, err := io.ReadFull(r, resp.Stdout); err != nil {
		return Response{}, fmt.Errorf("read answer: %w", err)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return Response{}, errors.New("trailing bytes after the answer")
	}
	if h.N == 0 {
		resp.Stdout = nil
	}
	return resp, nil
}

// readHeader reads one JSON line of at most maxHeaderBytes, strictly.
func readHeader(r *bufio.Reader, v any) error {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderBytes {
			return errors.New("header too long")
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("read header: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode header: %w", err)
	}
	return nil
}
