//go:build linux

package files

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// maxMatchLine bounds one reported line of a content match.
const maxMatchLine = 200

// searcher holds the state of one search_files run.
type searcher struct {
	cfg     *Config
	pattern string
	re      *regexp.Regexp // nil when the pattern is not a valid RE2
	glob    bool           // the pattern is a valid doublestar glob
	names   *capped
	lines   *capped
	files   int // entries visited
	matches int
	stopped string // why the walk stopped early
}

func (e *Executor) search(ctx context.Context, pp *PathPlan, p *action.SearchFilesPayload) (tools.Result, error) {
	const op = "search_files"
	s := &searcher{cfg: &e.cfg, pattern: p.Pattern, glob: doublestar.ValidatePattern(p.Pattern),
		names: newCapped(e.cfg.MaxOutputBytes / 2), lines: newCapped(e.cfg.MaxOutputBytes / 2)}
	if g, ok := strings.CutPrefix(p.Pattern, "glob:"); ok {
		// Names only: the rest is a glob, never a regex over contents.
		s.pattern, s.glob = g, g != "" && doublestar.ValidatePattern(g)
		if !s.glob {
			return tools.Result{}, errf(tools.CodeBadInput, op, pp.Path, "pattern after glob: is not a valid glob")
		}
	} else if re, err := regexp.Compile(p.Pattern); err == nil {
		s.re = re
	}
	if s.re == nil && !s.glob {
		return tools.Result{}, errf(tools.CodeBadInput, op, pp.Path, "pattern is neither a valid RE2 regular expression nor a valid glob")
	}
	if pp.Exists() && pp.Last().Type == 0 {
		return s.one(op, pp)
	}
	w, err := newWalker(op, pp.Path, e.cfg.Judge, true, s.visit)
	if err != nil {
		return tools.Result{}, err
	}
	if err := w.walkPlanned(ctx, pp); err != nil {
		return tools.Result{}, err
	}
	res := s.result()
	res.Output += w.note()
	return res, nil
}

// one searches a single planned regular file.
func (s *searcher) one(op string, pp *PathPlan) (tools.Result, error) {
	f, _, err := openRegular(op, pp)
	if err != nil {
		return tools.Result{}, err
	}
	defer f.Close()
	name := path.Base(pp.Resolved)
	if s.glob && s.nameMatch(name) {
		s.names.line(name)
	}
	if s.re != nil {
		s.grep(name, f)
	}
	return s.result(), nil
}

func (s *searcher) nameMatch(rel string) bool {
	target := rel
	if !strings.Contains(s.pattern, "/") {
		target = path.Base(rel)
	}
	ok, _ := doublestar.Match(s.pattern, target)
	return ok
}

// visit handles one walked entry: its name against the glob, its
// contents against the regex. Symlinks and special files are not read.
func (s *searcher) visit(rel string, st *unix.Stat_t, dirfd int, name string) error {
	if s.glob && s.nameMatch(rel) && !s.names.line(rel) {
		s.stopped = "output limit"
		return errStop
	}
	if s.files++; s.files > s.cfg.MaxSearchFiles {
		s.stopped = fmt.Sprintf("%d entries visited", s.cfg.MaxSearchFiles)
		return errStop
	}
	if modeType(st.Mode) != 0 {
		return nil
	}
	if s.re == nil || st.Size > s.cfg.MaxSearchFileBytes {
		return nil
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // unreadable or gone: skipped, as grep -s would
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	if !s.grep(rel, io.LimitReader(f, s.cfg.MaxSearchFileBytes)) {
		return errStop
	}
	return nil
}

// grep reports the lines of r matching the regex; false once a bound is hit.
func (s *searcher) grep(rel string, r io.Reader) bool {
	data, err := io.ReadAll(r)
	if err != nil || bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return true // unreadable or binary: skipped
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if !s.re.Match(line) {
			continue
		}
		if s.matches == s.cfg.MaxSearchMatches {
			s.stopped = fmt.Sprintf("%d matches", s.cfg.MaxSearchMatches)
			return false
		}
		s.matches++
		if len(line) > maxMatchLine {
			line = append(trimRune(line[:maxMatchLine:maxMatchLine]), "…"...)
		}
		if !s.lines.line(fmt.Sprintf("%s:%d: %s", rel, n, line)) {
			s.stopped = "output limit"
			return false
		}
	}
	return true
}

func (s *searcher) result() tools.Result {
	var b strings.Builder
	if s.glob && s.names.String() != "" {
		fmt.Fprintf(&b, "names matching glob %q:\n%s", s.pattern, s.names)
	}
	if s.re != nil && s.lines.String() != "" {
		fmt.Fprintf(&b, "lines matching regex %q:\n%s", s.pattern, s.lines)
	}
	if b.Len() == 0 {
		b.WriteString("no matches\n")
	}
	res := tools.Result{Output: b.String()}
	if s.stopped != "" {
		res.Truncated = true
		res.Output += "[… search stopped at " + s.stopped + "]\n"
	}
	return res
}
