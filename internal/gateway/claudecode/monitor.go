package claudecode

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// A Monitor streams a background command's output (or a WebSocket's
// messages) to the model as events: no PostToolUse ever carries them.
// So before a Monitor may run, the session is tainted to what its output
// may show: the paths it reads (their labels, raised by the gate's own
// observation of the call) and their content now (DLP, within the
// channel bounds). Output the hook cannot see through the files it
// reads — a program whose output is not made of its input files (a
// build, a test run, a server, docker logs), shell code the analyser
// cannot resolve, the network, the environment, a WebSocket — is taken
// as critical: it is never classified, and a prompt would not classify
// it either. `tail -f build.log` reads one file: its labels and content
// count, nothing more.

// outputKind says what a program shows of the files it reads.
type outputKind uint8

const (
	outputUnknown  outputKind = iota // anything: not made of its input files
	outputContent                    // the content of the files it reads (or of its input)
	outputMetadata                   // names, sizes, times, counts, its own arguments
)

// monitorOutput is what a program a Monitor runs shows. A static switch:
// every program not named here shows unknown output.
func monitorOutput(name string) outputKind {
	switch name {
	case "cat", "tac", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed",
		"awk", "gawk", "mawk", "cut", "sort", "uniq", "tr", "nl", "jq", "yq", "column", "fold", "paste", "rev",
		"strings", "xxd", "od", "hexdump", "base64", "base32", "tee", "fmt", "expand", "unexpand", "diff",
		"cmp", "comm", "join", "sponge":
		return outputContent
	case "ls", "stat", "du", "df", "find", "file", "wc", "inotifywait", "fswatch", "date", "sleep", "true",
		"false", "seq", "echo", "printf", "test", "[", "yes", "basename", "dirname", "realpath", "readlink",
		"pwd", "watch", "timeout", "stdbuf", "nice", "read", "cd", ":", "exit", "break", "continue", "wait",
		"set", "export", "local", "shift", "return":
		return outputMetadata
	}
	return outputUnknown
}

// harmlessReads are device files whose content is no data.
func harmlessRead(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// monitorTaint raises the session's taint, before a Monitor may run, to
// what its output may show (see above). An error means the taint could
// not be recorded: the caller refuses the call.
func (p *pre) monitorTaint(ctx context.Context, m *Mapped) error {
	sc, err := newChannelScanner(p.ws.Root, p.opts.Home)
	if err != nil {
		return fmt.Errorf("cannot classify what this Monitor shows the model: %w", err)
	}
	if m.Command == "" {
		sc.unclassified("", "output of Monitor", "a WebSocket's messages, which no hook sees")
	} else {
		sc.monitor(m.Command, m.Cwd, p.opts.Home)
	}
	if err := recordFindings(ctx, p.ws, p.in.SessionID, "Monitor", sc); err != nil {
		return fmt.Errorf("cannot record what this Monitor shows the model, so it is refused: %w", err)
	}
	return nil
}

// monitor classifies what a Monitor command's output may show.
func (s *scanner) monitor(command, cwd, home string) {
	const what = "output of Monitor"
	eff := shell.Analyze(command, shell.Options{Cwd: cwd, Home: home})
	if why := unknownOutput(eff); why != "" {
		s.unclassified("", what, why)
		return
	}
	read := map[string]bool{}
	for _, u := range eff.Paths {
		if u.Access&action.AccessRead == 0 || harmlessRead(u.Path) ||
			u.Program != "" && monitorOutput(u.Program) != outputContent {
			continue
		}
		switch {
		case u.Recursive:
			s.tree(literalPrefix(u.Path), what, read)
		case u.Glob:
			matches, err := filepath.Glob(u.Path)
			if err != nil || len(matches) > MaxChannelFiles {
				s.unclassified(u.Path, what, "a pattern over more files than the hook reads")
				continue
			}
			for _, p := range matches {
				s.monitorPath(p, what, read)
			}
		default:
			s.monitorPath(u.Path, what, read)
		}
	}
}

// unknownOutput says why a command's output is not made of files the
// hook can read, or "" when it is.
func unknownOutput(eff *shell.Effects) string {
	for _, k := range []shell.TagKind{shell.TagOpaque, shell.TagDynamicCommand, shell.TagEval,
		shell.TagLimitExceeded, shell.TagUnknownProgram, shell.TagRemoteExec} {
		if t, ok := eff.Find(k); ok {
			return "the command's analysis is incomplete (" + k.String() + " " + t.Program + ")"
		}
	}
	switch {
	case len(eff.Network) > 0:
		return "the command talks to the network"
	case eff.EnvDump || len(eff.Printed) > 0:
		return "the command prints environment variables"
	}
	for _, x := range eff.Execs {
		if x.Name == "" || monitorOutput(x.Name) == outputUnknown {
			return fmt.Sprintf("the output of %q is not made of files the hook can read", x.Name)
		}
	}
	return ""
}

// monitorPath classifies one path a Monitor reads: a file's content, a
// directory's files. A missing file shows nothing yet; a special file
// (FIFO, device, socket) is not read: critical.
func (s *scanner) monitorPath(p, what string, read map[string]bool) {
	if read[p] {
		return
	}
	read[p] = true
	switch _, st := s.file(p, what); st {
	case readDir:
		s.tree(p, what, read)
	case readSpecial:
		s.unclassified(p, what, "not a regular file")
	case readOK, readMissing, readFailed:
	}
}

// tree classifies the regular files below root, within the bounds.
func (s *scanner) tree(root, what string, read map[string]bool) {
	seen := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		seen++
		switch {
		case s.over:
			return filepath.SkipAll
		case seen > 10*MaxChannelFiles:
			s.overBound(p, what)
			return filepath.SkipAll
		case err != nil:
			if p != root || !errors.Is(err, fs.ErrNotExist) {
				s.unclassified(p, what, "cannot be listed: "+err.Error())
			}
			return nil
		case d.IsDir() || read[p]:
			return nil
		}
		read[p] = true
		if _, st := s.file(p, what); st == readSpecial && !harmlessRead(p) {
			s.unclassified(p, what, "not a regular file")
		}
		return nil
	})
}
