package shell

import "strings"

// This file handles names split by the channel that carries them.
//
// A listing (find, ls, grep -l) prints one name per line. A channel that
// splits its input on blanks or newlines (xargs without -0/--null, xargs
// -d with a delimiter other than NUL, xargs -I, an unquoted $(...) or
// `...`, read) may hand its consumer pieces of a name instead of the
// name: "./z .. q.tmp" reaches rm as "./z", ".." and "q.tmp". A file
// name holds no "/", so every piece but the first is a bare name,
// relative to the consumer's working directory: "." and ".." among
// them. The first piece is a path below the listing's root whose name
// the listing's filters (-name) did not select.
//
// A consumer that acts on a directory operand with everything below it
// (rm -r, chmod -R, cp -r, mv, tar, grep -r, ...) therefore reaches the
// working directory's parent tree. For such a consumer the analyser adds
// the pieces as operands (wPiece), after the split word, and the paths
// they name are recorded with PathUse.Split. A consumer that does not
// recurse (sed -i, cat, wc, grep without -r) gets nothing more: a
// directory operand is an error to it.
//
// Channels that do not split: find -exec {} / -delete, xargs -0 after
// -print0, read -d '' and a quoted "$f" of a loop over a glob.

// splitPieces returns the call's arguments with the pieces of split
// names added after each split word, when the program recurses into a
// directory operand; args itself otherwise.
func splitPieces(name string, args []Word) []Word {
	n := 0
	for _, w := range args {
		if w.flags&wSplit != 0 {
			n++
		}
	}
	if n == 0 || !recursesDirs(name, args) {
		return args
	}
	out := make([]Word, 0, len(args)+3*n)
	for i, w := range args {
		if w.flags&wSplit == 0 {
			out = append(out, w)
			continue
		}
		w.flags &^= wSplit
		last := i == len(args)-1
		if !last {
			out = append(out, w)
		}
		out = append(out, piece(".."), piece("."))
		if tree, ok := pieceTree(w); ok {
			out = append(out, tree)
		}
		if last {
			// The last operand keeps its place: it may be the
			// destination (mv, cp); the pieces join the sources.
			out = append(out, w)
		}
	}
	return out
}

// piece is a bare name a split can produce.
func piece(v string) Word {
	return Word{Value: v, Known: true, flags: wPiece}
}

// pieceTree is the first piece of a split item "ROOT/**/NAME": any path
// below ROOT, whatever its name.
func pieceTree(w Word) (Word, bool) {
	if w.flags&wRec == 0 {
		return Word{}, false
	}
	pat := w.pattern()
	i := strings.Index(pat, "/**")
	if i < 0 || i+3 == len(pat) {
		return Word{}, false
	}
	t := setWord(pat[:i+3], true)
	t.flags |= wPiece
	return t, true
}

// recursesDirs reports whether the program, called with args, acts on a
// directory operand with everything below it: deletes, changes, copies,
// moves, archives or reads the whole tree.
func recursesDirs(name string, args []Word) bool {
	switch name {
	case "mv", "gmv", "rsync", "tar", "gtar", "bsdtar", "7z", "7za", "du", "gdu", "find", "gfind",
		"rg", "ag", "ack", "rgrep", "tree", "trash", "trash-put":
		return true
	case "rm", "grm", "srm", "wipe":
		return hasOpt(args, "rR", "--recursive")
	case "cp", "gcp":
		return hasOpt(args, "rRa", "--recursive", "--archive")
	case "chmod", "gchmod", "chown", "gchown", "chgrp", "gchgrp", "chattr", "setfacl", "chcon":
		return hasOpt(args, "R", "--recursive")
	case "grep", "egrep", "fgrep", "ggrep":
		return hasOpt(args, "rR", "--recursive", "--dereference-recursive", "--directories=recurse") ||
			optValue(args, "-d", "recurse")
	case "ls", "gls":
		return hasOpt(args, "R", "--recursive")
	case "zip":
		return hasOpt(args, "r", "--recurse-paths")
	case "scp":
		return hasOpt(args, "r", "")
	case "gofmt", "goimports":
		return hasOpt(args, "w", "")
	}
	return false
}

// hasOpt reports whether an argument is one of the long options, or a
// cluster of short options holding one of the letters. It looks at every
// argument (GNU programs take options after operands) and so may take an
// operand for an option: it over-approximates.
func hasOpt(args []Word, letters string, long ...string) bool {
	for _, w := range args {
		v := w.Value
		if !w.Known || len(v) < 2 || v[0] != '-' {
			continue
		}
		if v[1] == '-' {
			for _, l := range long {
				if l != "" && v == l {
					return true
				}
			}
			continue
		}
		if strings.ContainsAny(v[1:], letters) {
			return true
		}
	}
	return false
}

// optValue reports whether a short option is given with the value.
func optValue(args []Word, opt, val string) bool {
	for i, w := range args {
		if w.Known && (w.Value == opt+val || w.Value == opt && i+1 < len(args) && args[i+1].Value == val) {
			return true
		}
	}
	return false
}

// nulDelim reports whether an xargs -d value is the NUL character.
func nulDelim(v string) bool {
	switch v {
	case "\\0", "\\00", "\\000", "\\x00", "\x00":
		return true
	}
	return false
}
