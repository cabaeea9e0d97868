package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parallax/parallax/internal/flock"
)

// VerifyOptions add external anchors to the check.
type VerifyOptions struct {
	// Anchors are (seq, hash) pairs recorded elsewhere, e.g. printed by an
	// earlier verification; each must still hold.
	Anchors []Anchor
}

// Report sums up a verified log.
type Report struct {
	Path    string
	Entries int    // complete, valid entries
	Bytes   int64  // bytes verified
	Last    Anchor // seq and hash of the last entry (seq 0: empty log)
	Head    Anchor // what the head file records
	HeadLag uint64 // entries after the head: a crash before the head moved
}

// Verify walks the whole log: every line must be canonical JSON whose
// hash is right, whose seq follows the previous one and whose prev is the
// previous hash; the head file and each anchor must match the entry at
// their seq. The first problem is returned as a *ChainError (other errors
// are I/O). Verify reads a consistent snapshot: the size and the head are
// taken under a shared lock, so concurrent appends do not disturb it.
func Verify(path string, opts VerifyOptions) (Report, error) {
	f, err := os.Open(path) //nolint:gosec // the caller names its audit file
	if err != nil {
		return Report{}, fmt.Errorf("verify audit log: %w", err)
	}
	defer f.Close()
	size, head, headOK, headErr, err := snapshot(f, path)
	if err != nil {
		return Report{}, fmt.Errorf("verify audit log: %w", err)
	}
	var hp *Anchor
	if headOK {
		hp = &head
	}
	rep, err := verifyStream(io.NewSectionReader(f, 0, size), path, hp, headErr == nil, opts.Anchors)
	rep.Head = head
	if err == nil && headErr != nil {
		err = headErr // the chain itself is sound; the head is not
	}
	return rep, err
}

// snapshot takes the file size and the head under a shared lock. A
// malformed head is returned as headErr, an I/O failure as err.
func snapshot(f *os.File, path string) (size int64, h Anchor, ok bool, headErr, err error) {
	if err := flock.Lock(f, false); err != nil {
		return 0, Anchor{}, false, nil, err
	}
	defer func() { _ = flock.Unlock(f) }() // closing the file releases it too
	st, err := f.Stat()
	if err != nil {
		return 0, Anchor{}, false, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	h, ok, err = readHead(HeadPath(path))
	if _, bad := AsChainError(err); bad {
		return st.Size(), Anchor{}, false, err, nil
	}
	return st.Size(), h, ok, nil, err
}

// chain is the walk's state.
type chain struct {
	path    string
	seq     uint64
	hash    string
	line    int
	pins    []pin
	lastOff int64
}

// pin is a hash that must hold at a seq: the head or an external anchor.
type pin struct {
	Anchor
	code Code
	what string
}

// verifyStream checks the log read from r. head nil means no head file;
// checkHeadFile false skips the head checks (an unreadable head, fuzzing).
func verifyStream(r io.Reader, path string, head *Anchor, checkHeadFile bool, anchors []Anchor) (Report, error) {
	c := &chain{path: path, hash: Genesis}
	if checkHeadFile && head != nil {
		c.pins = append(c.pins, pin{*head, CodeHeadMismatch, "the head file"})
	}
	for _, a := range anchors {
		c.pins = append(c.pins, pin{a, CodeAnchorMismatch, "anchor " + a.String()})
	}
	lr := newLineReader(r)
	for {
		line, off, torn, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		c.line++
		if errors.Is(err, errLineTooLong) {
			return c.report(lr), c.fail(off, c.seq+1, CodeLineTooLong, err.Error())
		}
		if err != nil {
			return c.report(lr), fmt.Errorf("read audit log %s line %d: %w", path, c.line, err)
		}
		if torn {
			return c.report(lr), c.fail(off, c.seq+1, CodeTornTail,
				fmt.Sprintf("%d bytes without a final newline: an interrupted write or a truncation", len(line)))
		}
		if err := c.step(line, off); err != nil {
			return c.report(lr), err
		}
	}
	rep := c.report(lr)
	if !checkHeadFile {
		return rep, c.pinsBeyondEnd(lr.off)
	}
	if head == nil && c.seq > 0 {
		return rep, &ChainError{Path: path, Line: c.line, Seq: c.seq, Offset: c.lastOff, Code: CodeHeadMissing,
			Msg: "the log has entries but its head file is missing"}
	}
	if head != nil {
		if err := checkHead(path, tail{seq: c.seq, hash: c.hash, size: lr.off}, *head, true); err != nil {
			return rep, err
		}
		rep.HeadLag = c.seq - head.Seq
	}
	return rep, c.pinsBeyondEnd(lr.off)
}

// step checks one complete line.
func (c *chain) step(line []byte, off int64) error {
	e, lerr := parseLine(line)
	if lerr != nil {
		return c.fail(off, c.seq+1, lerr.code, lerr.msg)
	}
	switch {
	case e.Seq != c.seq+1:
		return c.fail(off, e.Seq, CodeSeqGap, fmt.Sprintf("seq %d follows seq %d (want %d): "+
			"entries were removed, duplicated or reordered", e.Seq, c.seq, c.seq+1))
	case e.Prev != c.hash:
		return c.fail(off, e.Seq, CodePrevMismatch, fmt.Sprintf("prev %s is not the hash %s of line %d: "+
			"line %d was altered and re-hashed, or this entry was", e.Prev, c.hash, c.line-1, c.line-1))
	}
	for _, p := range c.pins {
		if p.Seq == e.Seq && p.Hash != e.Hash {
			return c.fail(off, e.Seq, p.code, fmt.Sprintf("entry hashes to %s but %s records %s: "+
				"the entry was altered and re-hashed", e.Hash, p.what, p.Hash))
		}
	}
	c.seq, c.hash, c.lastOff = e.Seq, e.Hash, off
	return nil
}

// pinsBeyondEnd reports an anchor past the last entry (the head is checked
// by checkHead first).
func (c *chain) pinsBeyondEnd(end int64) error {
	for _, p := range c.pins {
		if p.Seq > c.seq {
			return &ChainError{Path: c.path, Line: int(p.Seq), Seq: p.Seq, Offset: end, Code: p.code,
				Msg: fmt.Sprintf("%s names seq %d but the log ends at seq %d: entries were removed", p.what, p.Seq, c.seq)}
		}
	}
	return nil
}

func (c *chain) fail(off int64, seq uint64, code Code, msg string) *ChainError {
	return &ChainError{Path: c.path, Line: c.line, Seq: seq, Offset: off, Code: code, Msg: msg}
}

func (c *chain) report(lr *lineReader) Report {
	return Report{Path: c.path, Entries: int(c.seq), Bytes: lr.off, Last: Anchor{Seq: c.seq, Hash: c.hash}}
}

// errLineTooLong is a line over MaxLine bytes.
var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLine)

// lineReader yields lines of at most MaxLine bytes with their offsets.
type lineReader struct {
	r   *bufio.Reader
	off int64 // offset of the next line
	acc []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its newline and where it starts.
// torn is true for a last line without a newline. The line is valid until
// the next call. io.EOF ends the stream.
func (lr *lineReader) next() (line []byte, off int64, torn bool, err error) {
	off = lr.off
	lr.acc = lr.acc[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.off += int64(len(chunk))
		if len(lr.acc)+len(chunk) > MaxLine+1 {
			return nil, off, false, errLineTooLong
		}
		switch {
		case err == nil:
			if len(lr.acc) == 0 {
				return chunk[:len(chunk)-1], off, false, nil
			}
			lr.acc = append(lr.acc, chunk...)
			return lr.acc[:len(lr.acc)-1], off, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.acc = append(lr.acc, chunk...)
		case errors.Is(err, io.EOF):
			lr.acc = append(lr.acc, chunk...)
			if len(lr.acc) == 0 {
				return nil, off, false, io.EOF
			}
			return bytes.Clone(lr.acc), off, true, nil
		default:
			return nil, off, false, fmt.Errorf("read at byte %d: %w", lr.off, err)
		}
	}
}
