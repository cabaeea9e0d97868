package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Masked secret files are empty mode-0 files in a command's sandbox. An
// untracked one that no .gitignore names makes `git add -A` fail
// ("open(".env"): Permission denied", exit 128), and `git status` list
// it: the mask shows. Each command whose sandbox masks files of the
// workspace gets git's core.excludesFile pointed (through GIT_CONFIG_*
// variables, which outrank every config file) at a file in its private
// /tmp holding the user's own global excludes and one anchored pattern
// per masked file, relative to the repository it sits in: git then leaves
// them out as if they were not there. A tracked masked file still fails
// loudly (git would otherwise stage it emptied).

// gitExcludeName is the file in the command's private /tmp.
const gitExcludeName = ".parallax-git-exclude"

// maxUserExcludes bounds the user's global excludes file copied in.
const maxUserExcludes = 64 << 10

// writeGitExclude writes the exclude file for masked into tmp and returns
// the variables that point git at it (inside is tmp's path in the
// sandbox); nil when no masked file is in a repository. ex remembers
// where the user's excludes live (nil: asked of git each time).
func writeGitExclude(tmp, inside string, ex *gitExcludes, home string, masked []string) ([]string, error) {
	var patterns []string
	for _, m := range masked {
		if root := repoRoot(filepath.Dir(m)); root != "" {
			if rel, err := filepath.Rel(root, m); err == nil && !strings.HasPrefix(rel, "..") {
				patterns = append(patterns, "/"+escapeGitPattern(filepath.ToSlash(rel)))
			}
		}
	}
	if len(patterns) == 0 {
		return nil, nil
	}
	var b strings.Builder
	if user := ex.content(home); user != "" {
		b.WriteString(user)
		if !strings.HasSuffix(user, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString("# Parallax: secret files masked in this command's sandbox\n")
	for _, p := range patterns {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(tmp, gitExcludeName), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.excludesFile",
		"GIT_CONFIG_VALUE_0=" + filepath.Join(inside, gitExcludeName)}, nil
}

// gitConfigVars are the variables writeGitExclude sets (a command's own
// are replaced).
var gitConfigVars = []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"}

// repoRoot is the nearest directory at or above dir holding .git; "" for
// none.
func repoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// escapeGitPattern makes a path a literal gitignore pattern.
func escapeGitPattern(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*', '?', '[', '\\', '!', '#', ' ':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// gitExcludes remembers, for one sandbox configuration, where the
// user's global config puts the excludes file and the stamps of the
// config files it was read from, so that a command asks git (an exec,
// ≈ 2 ms) only when one changed.
type gitExcludes struct {
	mu           sync.Mutex
	home, stamps string
	path         string
}

// content is the content of the user's global excludes file: git's
// core.excludesFile as the user's global config gives it, else
// $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore); "" when there is
// none or it cannot be read whole. A nil x asks git every time.
func (x *gitExcludes) content(home string) string {
	f, err := os.Open(x.pathOf(home))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxUserExcludes+1))
	if err != nil || len(b) > maxUserExcludes {
		return ""
	}
	return string(b)
}

// pathOf is the path of the user's global excludes file.
func (x *gitExcludes) pathOf(home string) string {
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	var stamps strings.Builder
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&stamps, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	if x != nil {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.path != "" && x.home == home && x.stamps == stamps.String() {
			return x.path
		}
	}
	p := ""
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "git", "config", "--global", "--path", "--get", "core.excludesFile")
	c.Env = append(withoutKeys(os.Environ(), "HOME"), "HOME="+home)
	out, err := c.Output()
	if err == nil {
		p = strings.TrimSpace(string(out))
	}
	if p == "" {
		p = filepath.Join(xdg, "git", "ignore")
	}
	var exit *exec.ExitError
	if x != nil && (err == nil || errors.As(err, &exit)) { // git answered (exit 1: the key is not set); else ask again next time
		x.home, x.stamps, x.path = home, stamps.String(), p
	}
	return p
}
