package claudecode

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/parallax/parallax/ifc"
)

// Bounds of what the hook reads to classify the channels to the model
// that carry no tool result (memory files and their imports, the files a
// Monitor command streams). Past a bound nothing more is read and the
// session is taken to have seen critical data: what was not read was
// not classified.
const (
	// MaxChannelFiles bounds the files read for one event.
	MaxChannelFiles = 100
	// MaxChannelFileBytes bounds one file: Claude Code's own bound for a
	// memory file (2.1.332 skips larger ones).
	MaxChannelFileBytes = 4 << 20
	// MaxChannelBytes bounds the bytes read for one event (DLP scans
	// about 175 MB/s: at most about 0.1 s).
	MaxChannelBytes = 16 << 20
	// MaxImportDepth bounds @import chains: a memory file is depth 0, what
	// it imports depth 1. Claude Code 2.1.332 loads depth 4 at most (its
	// documentation says five hops); one more is followed here.
	MaxImportDepth = 5
)

// finding is what one source showed the model, as the hook classified it.
type finding struct {
	Path string // the file; "" for text that is no file (a prompt)
	What string // how it reached the model ("memory file", "imported by X", ...)
	// Level and Labels are the content's (DLP), or the path's own level
	// when it is higher (PathRule names its rule).
	Level    ifc.Level
	Labels   []string
	PathRule string
	// Unclassified says why the content could not be classified; Level
	// is then Critical.
	Unclassified string
}

// source names the finding for a taint: paths, rules and labels, never
// content.
func (f finding) source() string {
	s := f.What
	if f.Path != "" {
		s += " " + f.Path
	}
	switch {
	case f.Unclassified != "":
		s += " (not classified: " + f.Unclassified + ")"
	case f.PathRule != "":
		s += " (" + f.PathRule + ")"
	case len(f.Labels) > 0:
		s += " labelled " + strings.Join(f.Labels, ", ")
	}
	return s
}

// scanner reads and classifies files and text within the channel bounds.
type scanner struct {
	cls   ifc.ContentClassifier
	paths *ifc.Paths
	files int   // files read
	bytes int64 // bytes read
	found []finding
	// over is set once a bound was hit (its finding is recorded once).
	over bool
}

func newScanner(cls ifc.ContentClassifier, paths *ifc.Paths) *scanner {
	return &scanner{cls: cls, paths: paths}
}

// top is the finding of the highest level (the first on a tie); ok is
// false when nothing rose above Public.
func (s *scanner) top() (f finding, ok bool) {
	for _, x := range s.found {
		if x.Level > f.Level {
			f, ok = x, true
		}
	}
	return f, ok
}

// text classifies text that is no file.
func (s *scanner) text(what, text string) {
	lvl, labels := s.cls.Classify(text)
	s.found = append(s.found, finding{What: what, Level: lvl, Labels: labels})
}

// unclassified records a source that could not be classified: critical.
func (s *scanner) unclassified(path, what, why string) {
	s.found = append(s.found, finding{Path: path, What: what, Level: ifc.Critical, Unclassified: why})
}

// readStatus says what a bounded read found.
type readStatus uint8

const (
	readOK      readStatus = iota
	readMissing            // no such file (or a path through a non-directory)
	readDir                // a directory
	readSpecial            // a device, FIFO or socket: not read
	readFailed             // it exists but could not be read, or is over a bound
)

// file classifies one file by its path label and its content. It returns
// the content when it was read (for the imports of a memory file), and
// the status: a missing file, a directory or a special file is recorded
// by nobody (the caller decides what it means); a file that could not be
// read, or is over a bound, is recorded as unclassified.
func (s *scanner) file(path, what string) ([]byte, readStatus) {
	label := s.paths.Classify(path)
	if label.Level >= ifc.Critical {
		// The path says it all: its content is not read.
		s.found = append(s.found, finding{Path: path, What: what, Level: label.Level, PathRule: label.Rule})
		return nil, readOK
	}
	if s.files >= MaxChannelFiles || s.bytes >= MaxChannelBytes {
		s.overBound(path, what)
		return nil, readFailed
	}
	limit := min(int64(MaxChannelFileBytes), MaxChannelBytes-s.bytes)
	data, st, err := readBounded(path, limit)
	switch st {
	case readOK:
	case readFailed:
		if errors.Is(err, errOverBound) && limit < MaxChannelFileBytes {
			s.overBound(path, what)
		} else {
			s.unclassified(path, what, err.Error())
		}
		return nil, st
	default:
		return nil, st
	}
	s.files++
	s.bytes += int64(len(data))
	lvl, labels := s.cls.Classify(string(data))
	f := finding{Path: path, What: what, Level: lvl, Labels: labels}
	if label.Level > lvl && label.Level > ifc.Internal {
		// A path no rule names is Internal: that says nothing here.
		f.Level, f.Labels, f.PathRule = label.Level, nil, label.Rule
	}
	s.found = append(s.found, f)
	return data, readOK
}

// overBound records, once, that the bounds stopped the reading.
func (s *scanner) overBound(path, what string) {
	if s.over {
		return
	}
	s.over = true
	s.unclassified(path, what, fmt.Sprintf("over the hook's bounds of %d files, %d bytes in all", MaxChannelFiles,
		MaxChannelBytes))
}

// errOverBound is a file larger than what may be read of it.
var errOverBound = errors.New("over the hook's size bound")

// readBounded reads at most limit bytes of a regular file. It never
// blocks on a FIFO (opened non-blocking, checked before reading) and
// never reads a device.
func readBounded(path string, limit int64) ([]byte, readStatus, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) //nolint:gosec // a file the host shows the model
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, readMissing, err
	case err != nil:
		return nil, readFailed, fmt.Errorf("cannot be read: %w", err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, readFailed, fmt.Errorf("cannot be read: %w", err)
	case st.IsDir():
		return nil, readDir, nil
	case !st.Mode().IsRegular():
		return nil, readSpecial, nil
	case st.Size() > limit:
		return nil, readFailed, fmt.Errorf("%w (%d bytes, at most %d read)", errOverBound, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, readFailed, fmt.Errorf("cannot be read: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, readFailed, fmt.Errorf("%w (grew past %d bytes)", errOverBound, limit)
	}
	return data, readOK, nil
}
