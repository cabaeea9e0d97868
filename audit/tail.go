package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLine is the longest line the reader accepts, newline excluded.
// Entries are bounded far below it (see the field bounds in sanitize.go).
const MaxLine = 1 << 20

// tail is what a writer knows about the end of the log.
type tail struct {
	fileSize int64  // bytes in the file, torn bytes included
	size     int64  // bytes of complete lines
	seq      uint64 // seq of the last complete entry (0: none)
	hash     string // its hash (Genesis: none)
}

// torn is the number of bytes after the last newline.
func (t tail) torn() int64 { return t.fileSize - t.size }

// readTail reads the last complete line of the file (fileSize bytes long)
// and checks it parses and hashes right. Bytes after the last newline are
// reported through tail.torn, not as an error: the caller decides.
func readTail(f io.ReaderAt, path string, fileSize int64) (tail, error) {
	t := tail{fileSize: fileSize, hash: Genesis}
	if fileSize == 0 {
		return t, nil
	}
	const maxWindow = 2*MaxLine + 2
	for window := int64(4 << 10); ; window *= 2 {
		window = min(window, maxWindow, fileSize)
		start := fileSize - window
		buf := make([]byte, window)
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return tail{}, fmt.Errorf("read audit log tail %s: %w", path, err)
		}
		lastNL := bytes.LastIndexByte(buf, '\n')
		prevNL := -1
		if lastNL >= 0 {
			prevNL = bytes.LastIndexByte(buf[:lastNL], '\n')
		}
		if start > 0 && prevNL < 0 {
			if window == maxWindow {
				return tail{}, &ChainError{Path: path, Offset: start, Code: CodeLineTooLong,
					Msg: fmt.Sprintf("no complete line in the last %d bytes", window)}
			}
			continue
		}
		if lastNL < 0 { // no newline at all: the whole file is torn
			return t, nil
		}
		t.size = start + int64(lastNL) + 1
		lineOff := start + int64(prevNL) + 1
		e, lerr := parseLine(buf[prevNL+1 : lastNL])
		if lerr != nil {
			return tail{}, &ChainError{Path: path, Offset: lineOff, Code: lerr.code,
				Msg: "last complete entry: " + lerr.msg}
		}
		if int64(lastNL-prevNL) > MaxLine+1 {
			return tail{}, &ChainError{Path: path, Line: int(e.Seq), Seq: e.Seq, Offset: lineOff,
				Code: CodeLineTooLong, Msg: "last entry exceeds the line limit"}
		}
		t.seq, t.hash = e.Seq, e.Hash
		return t, nil
	}
}

// tornError describes bytes after the last newline.
func tornError(path string, t tail) *ChainError {
	return &ChainError{Path: path, Line: int(t.seq) + 1, Seq: t.seq + 1, Offset: t.size, Code: CodeTornTail,
		Msg: fmt.Sprintf("%d bytes after the last complete entry (an interrupted write); "+
			"appending stops until it is repaired (parallax audit --repair)", t.torn())}
}

// checkHead compares the head file with the last complete entry. The head
// may lag the log (a crash between the log's fsync and the head write),
// never lead it.
func checkHead(path string, t tail, h Anchor, exists bool) error {
	switch {
	case !exists && t.seq == 0:
		return nil
	case !exists:
		return &ChainError{Path: path, Line: int(t.seq), Seq: t.seq, Code: CodeHeadMissing,
			Msg: "the log has entries but its head file is missing"}
	case h.Seq == 0 && h.Hash != Genesis:
		return &ChainError{Path: path, Code: CodeHeadUnreadable, Msg: "head at seq 0 must carry the genesis hash"}
	case h.Seq > t.seq:
		return &ChainError{Path: path, Line: int(h.Seq), Seq: h.Seq, Offset: t.size, Code: CodeHeadMismatch,
			Msg: fmt.Sprintf("the head records seq %d but the log ends at seq %d: entries were removed", h.Seq, t.seq)}
	case h.Seq == t.seq && h.Hash != t.hash:
		return &ChainError{Path: path, Line: int(t.seq), Seq: t.seq, Code: CodeHeadMismatch,
			Msg: fmt.Sprintf("entry hashes to %s but the head records %s: it was altered", t.hash, h.Hash)}
	}
	return nil
}

// syncDir makes a directory entry change durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
