//go:build linux

package files

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// binarySniff is how much of the returned text is looked at for a NUL.
const binarySniff = 8 << 10

func (e *Executor) read(pp *PathPlan, p *action.ReadFilePayload) (tools.Result, error) {
	const op = "read_file"
	f, size, err := openRegular(op, pp)
	if err != nil {
		return tools.Result{}, err
	}
	defer f.Close()
	out, truncated, err := readRange(f, int64(p.Offset), int64(p.Limit), e.cfg.MaxReadBytes)
	if err != nil {
		return tools.Result{}, wrapPathErr(op, "", pp.Path, err)
	}
	if bytes.IndexByte(out[:min(len(out), binarySniff)], 0) >= 0 {
		return tools.Result{Output: fmt.Sprintf("[binary file, %d bytes; not shown]", size)}, nil
	}
	res := tools.Result{Output: string(out), Truncated: truncated}
	if truncated {
		res.Output += fmt.Sprintf("\n[… truncated at %d bytes; the file is %d bytes; read on with offset/limit]",
			len(out), size)
	}
	return res, nil
}

// openRegular pins pp and opens it for reading: it must be the planned
// regular file. Opening never follows a symlink and never blocks on a FIFO.
func openRegular(op string, pp *PathPlan) (*os.File, int64, error) {
	pn, f, st, err := openRegularPinned(op, pp)
	if err != nil {
		return nil, 0, err
	}
	pn.close()
	return f, st.Size, nil
}

// openRegularPinned is openRegular keeping the pinned parent open.
func openRegularPinned(op string, pp *PathPlan) (*pinned, *os.File, *unix.Stat_t, error) {
	pn, err := pin(op, pp, false, dirMode)
	if err != nil {
		return nil, nil, nil, err
	}
	f, st, err := pn.openRegular()
	if err != nil {
		pn.close()
		return nil, nil, nil, err
	}
	return pn, f, st, nil
}

// openRegular opens the pinned path, which must be the planned regular file.
func (p *pinned) openRegular() (*os.File, *unix.Stat_t, error) {
	if _, _, err := p.final(); err != nil {
		return nil, nil, err
	}
	if !p.pp.Exists() {
		return nil, nil, errf(tools.CodeNotFound, p.op, p.pp.Path, "no such file")
	}
	switch t := p.pp.Last().Type; {
	case t&fs.ModeDir != 0:
		return nil, nil, errf(tools.CodeIsDir, p.op, p.pp.Path, "is a directory")
	case t != 0:
		return nil, nil, errf(tools.CodeNotRegular, p.op, p.pp.Path, "is %s, not a regular file", p.pp.Last())
	}
	fd, st, err := p.openFinal(unix.O_RDONLY | unix.O_NONBLOCK)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), p.pp.Resolved), st, nil
}

// readRange returns at most limit lines from line offset (1-based; 0
// and 1 both start at the first line; limit 0 means to the end), never
// more than maxBytes. Lines are not loaded whole: a huge line is cut.
func readRange(r io.Reader, offset, limit, maxBytes int64) ([]byte, bool, error) {
	if offset <= 1 && limit == 0 {
		buf, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
		if err != nil {
			return nil, false, err
		}
		if int64(len(buf)) > maxBytes {
			return trimRune(buf[:maxBytes]), true, nil
		}
		return buf, false, nil
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var out []byte
	line := int64(1)
	for limit == 0 || line < max(offset, 1)+limit {
		chunk, err := br.ReadSlice('\n')
		if line >= offset {
			if int64(len(out)+len(chunk)) > maxBytes {
				return trimRune(append(out, chunk[:maxBytes-int64(len(out))]...)), true, nil
			}
			out = append(out, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue // the same line goes on
		case errors.Is(err, io.EOF):
			return out, false, nil
		case err != nil:
			return nil, false, err
		}
		line++
	}
	return out, false, nil
}

// trimRune drops a UTF-8 sequence cut at the end of b.
func trimRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}
