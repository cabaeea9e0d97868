package audit

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Anchor pins the chain: the entry with this seq must have this hash.
// The head file holds one; a copy kept elsewhere (printed by Verify,
// shipped off the machine) is an external anchor.
type Anchor struct {
	Seq  uint64
	Hash string
}

// String returns "SEQ:sha256:HEX", the form ParseAnchor reads.
func (a Anchor) String() string { return strconv.FormatUint(a.Seq, 10) + ":" + a.Hash }

// ParseAnchor reads "SEQ:sha256:HEX".
func ParseAnchor(s string) (Anchor, error) {
	seq, h, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil || n == 0 || !validHash(h) {
		return Anchor{}, fmt.Errorf("parse anchor %q: want SEQ:sha256:<64 hex>, SEQ >= 1", s)
	}
	return Anchor{Seq: n, Hash: h}, nil
}

// DefaultPath is the audit log of a workspace: DIR/.parallax/audit.jsonl.
func DefaultPath(workspace string) string {
	return filepath.Join(workspace, ".parallax", "audit.jsonl")
}

// HeadPath is the head file next to a log: audit.jsonl → audit.head.
func HeadPath(logPath string) string {
	return strings.TrimSuffix(logPath, ".jsonl") + ".head"
}

// The head file is one fixed-length line, rewritten in place after every
// committed batch:
//
//	parallax-audit-head v1 seq=<20 digits> hash=sha256:<64 hex> crc=<8 hex>\n
//
// crc is the CRC-32 (IEEE) of everything before " crc=". Seq 0 with the
// genesis hash is an empty chain.
const headMagic = "parallax-audit-head v1 seq="

var headLen = len(formatHead(Anchor{Hash: Genesis}))

func formatHead(a Anchor) []byte {
	b := fmt.Appendf(nil, "%s%020d hash=%s", headMagic, a.Seq, a.Hash)
	return fmt.Appendf(b, " crc=%08x\n", crc32.ChecksumIEEE(b))
}

// parseHead reads a head record; the error says what is wrong.
func parseHead(b []byte) (Anchor, error) {
	if len(b) != headLen {
		return Anchor{}, fmt.Errorf("head is %d bytes, want %d", len(b), headLen)
	}
	body, crc, ok := strings.Cut(strings.TrimSuffix(string(b), "\n"), " crc=")
	if !ok || fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(body))) != crc {
		return Anchor{}, errors.New("head checksum does not match")
	}
	rest, ok := strings.CutPrefix(body, headMagic)
	seq, h, ok2 := strings.Cut(rest, " hash=")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || !ok2 || err != nil || len(seq) != 20 || !validHash(h) {
		return Anchor{}, errors.New("head record is malformed")
	}
	return Anchor{Seq: n, Hash: h}, nil
}

// readHead reads the head file at path. ok is false when it does not
// exist; a malformed head is a ChainError with CodeHeadUnreadable.
func readHead(path string) (a Anchor, ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Anchor{}, false, nil
	}
	if err != nil {
		return Anchor{}, false, fmt.Errorf("open audit head %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(headLen)+1))
	if err != nil {
		return Anchor{}, false, fmt.Errorf("read audit head %s: %w", path, err)
	}
	a, err = parseHead(b)
	if err != nil {
		return Anchor{}, true, &ChainError{Path: path, Code: CodeHeadUnreadable, Msg: err.Error()}
	}
	return a, true, nil
}

// ReadHead returns the anchor in the head file of the log at logPath.
func ReadHead(logPath string) (Anchor, error) {
	a, ok, err := readHead(HeadPath(logPath))
	if err != nil {
		return Anchor{}, err
	}
	if !ok {
		return Anchor{}, fmt.Errorf("read audit head %s: %w", HeadPath(logPath), fs.ErrNotExist)
	}
	return a, nil
}
