package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// maxHops bounds symlink resolution, like the kernel's ELOOP limit.
const maxHops = 40

var errLoop = errors.New("too many levels of symbolic links")

// resolve follows every symlink on the existing prefix of p (clean,
// absolute) and keeps the missing tail as written, so a file that does
// not exist yet under a linked directory resolves into the link target.
// /proc/<pid>/root is an alias of "/"; other /proc magic links are not
// followed (classify blocks them). Nothing is cached: files change.
func (g *Guard) resolve(p string) (string, error) {
	var (
		hops     int
		resolved = "/"
		rest     = p[1:]
		missing  = -1 // len(resolved) when a component was found missing
	)
	for rest != "" {
		var c string
		c, rest = cutSeg(rest)
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			if len(resolved) < missing {
				missing = -1
			}
			continue
		}
		next := joinSeg(p, resolved, c)
		if strings.HasPrefix(next, "/proc/") {
			switch _, kind := procClass(next); kind {
			case procAlias:
				resolved = "/"
				continue
			case procOpaque, procSecret, procStd:
				return path.Clean(next + "/" + rest), nil
			}
		}
		if missing >= 0 {
			resolved = next
			continue
		}
		fi, err := g.fs.Lstat(next)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return "", fmt.Errorf("inspect %s: %w", next, err)
			}
			missing = len(next)
			resolved = next
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if hops++; hops > maxHops {
			return "", errLoop
		}
		target, err := g.fs.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", next, err)
		}
		if target == "" {
			return "", fmt.Errorf("read link %s: empty target", next)
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		if rest == "" {
			rest = target
		} else {
			rest = target + "/" + rest
		}
	}
	return resolved, nil
}

// cutSeg splits the first component off a slash-separated path.
func cutSeg(s string) (seg, rest string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// joinSeg returns dir/c, reusing p's memory when dir/c is a prefix of p
// (the common case: no link followed yet).
func joinSeg(p, dir, c string) string {
	head := dir
	if dir == "/" {
		head = ""
	}
	n := len(head) + 1 + len(c)
	if n <= len(p) && p[:len(head)] == head && p[len(head)] == '/' && p[len(head)+1:n] == c {
		return p[:n]
	}
	return head + "/" + c
}

// procKind says what a /proc path is.
type procKind uint8

const (
	procNone   procKind = iota // an ordinary path, or not under /proc
	procAlias                  // /proc/<pid>/root/…: alias is the same path from "/"
	procOpaque                 // another process's cwd, fd or map_files: cannot be resolved
	procSecret                 // process memory or environment, kernel memory
	procStd                    // /proc/<pid>/fd/0..2: the standard streams
)

// procClass classifies a clean absolute path under /proc. <pid> is a
// number, "self" or "thread-self"; "task/<tid>/" after it is skipped.
func procClass(p string) (alias string, kind procKind) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return "", procNone
	}
	pid, rest := cutSeg(rest)
	switch {
	case pid == "kcore" || pid == "kmem":
		return "", procSecret
	case pid != "self" && pid != "thread-self" && !isDigits(pid):
		return "", procNone
	}
	if c, r := cutSeg(rest); c == "task" {
		if tid, r2 := cutSeg(r); tid != "" {
			rest = r2
		}
	}
	c, r := cutSeg(rest)
	switch c {
	case "root":
		return "/" + r, procAlias
	case "cwd", "map_files":
		return "", procOpaque
	case "environ", "mem", "pagemap":
		return "", procSecret
	case "fd":
		n, r2 := cutSeg(r)
		switch {
		case n == "":
			return "", procNone
		case r2 == "" && (n == "0" || n == "1" || n == "2"):
			return "", procStd
		}
		return "", procOpaque
	}
	return "", procNone
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
