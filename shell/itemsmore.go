package shell

import "strings"

// This file gives more program outputs the shape of a list of paths from
// known sets (see findset.go for find, ls and grep -l): the files git
// ls-files lists, and filters that pass such a list on unchanged apart
// from its separators.

// gitLsFilesFlags are the git ls-files options whose output is only the
// names of files below the current directory, relative to it.
// --full-name (relative to the top of the repository), -s/--stage, -u,
// -t, -v, -f, --format, --eol and --debug (mode, hash, tag or other words
// before the name) are left out on purpose.
var gitLsFilesFlags = map[string]bool{
	"-c": true, "--cached": true, "-m": true, "--modified": true, "-o": true, "--others": true,
	"-d": true, "--deleted": true, "-i": true, "--ignored": true, "--exclude-standard": true,
	"-z": true, "--recurse-submodules": true, "--directory": true, "--no-empty-directory": true,
	"--deduplicate": true, "--error-unmatch": true,
}

// moreItems describes the output of c as item sets where the tables of
// findset.go do not; nil when it cannot.
func (a *analyzer) moreItems(c *Call, in *stream) ([]Word, bool) {
	switch c.Name {
	case "git":
		return gitLsFilesItems(c), false
	case "fd", "fdfind":
		return fdItems(c), false
	case "tr", "gtr":
		if trNewlineToNul(c) {
			return passItems(in)
		}
	case "pv":
		if len(c.Positional) == 0 && onlyFlags(c, "-l --line-mode -q --quiet -p --progress -t --timer"+
			" -e --eta -r --rate -b --bytes -n --numeric -L --rate-limit -N --name") {
			return passItems(in)
		}
	}
	return nil, false
}

// gitLsFilesItems: "git ls-files [PATHSPEC…]" prints the tracked (or
// untracked, with -o) files below the current directory, relative to it:
// one recursive set of the directory, narrowed by its pathspecs
// (pathspecSelection). Global options (-C DIR, --git-dir), pathspecs
// that climb with "..", magic ones, and options that print more than
// names give no set.
func gitLsFilesItems(c *Call) []Word {
	args := c.Args
	if len(args) == 0 || !args[0].Known || args[0].Value != "ls-files" {
		return nil
	}
	var specs []Word
	for i, w := range args[1:] {
		if w.Known && w.Value == "--" {
			specs = append(specs, args[i+2:]...)
			break
		}
		if w.Known && w.Value != "" && w.Value[0] != '-' {
			specs = append(specs, w)
			continue
		}
		if !w.Known || !gitLsFilesFlag(w.Value) {
			return nil
		}
	}
	set := setWord(treePat(".", ""), true)
	if len(specs) > 0 {
		sel, ok := pathspecSelection(specs)
		if !ok {
			return nil
		}
		set.sel = sel
		if v := specs[0].Value; len(specs) == 1 && strings.HasPrefix(v, "*") && !strings.ContainsAny(v[1:], "*?[]\\/{}!") && len(v) > 1 {
			set = setWord(treePat(".", v), true) // "*.go": every file whose name ends so
			set.sel = sel
		}
	}
	return []Word{set}
}

// trNewlineToNul reports whether c is "tr '\n' '\0'": it swaps the
// separator of a list (for xargs -0) and changes nothing else.
func trNewlineToNul(c *Call) bool {
	if len(c.Flags) > 0 || len(c.Positional) != 2 {
		return false
	}
	from, to := c.Positional[0], c.Positional[1]
	if !from.Known || !to.Known {
		return false
	}
	switch from.Value {
	case `\n`, `\012`, "\n":
	default:
		return false
	}
	switch to.Value {
	case `\0`, `\000`, "\x00":
		return true
	}
	return false
}

// gitLsFilesFlag reports whether v is one of gitLsFilesFlags, or a
// cluster of their short forms ("-co").
func gitLsFilesFlag(v string) bool {
	if gitLsFilesFlags[v] {
		return true
	}
	if len(v) < 3 || v[0] != '-' || v[1] == '-' {
		return false
	}
	for i := 1; i < len(v); i++ {
		if !gitLsFilesFlags["-"+v[i:i+1]] {
			return false
		}
	}
	return true
}
