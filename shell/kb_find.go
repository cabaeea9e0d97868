package shell

import "strings"

// find and fd. find's actions (-exec, -delete, -fprint) are where the
// effects are; -exec commands are analysed one level deeper with {} as a
// path only known at run time (its known prefix is the search root).

// kbFindTable builds the kbFind table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbFindTable() map[string]*Program {
	var kbFind = map[string]*Program{
		"find":  {Check: checkFind},
		"gfind": {Check: checkFind},
		"fd": {Flags: flags(shorts("HIsiFalL0pu")+" --hidden --no-ignore --case-sensitive --ignore-case"+
			" --fixed-strings --absolute-path --list-details --follow --full-path --print0 --unrestricted", fBool,
			"-d --max-depth --min-depth -t --type -e --extension -E --exclude -S --size --changed-within"+
				" --changed-before -o --owner -j --threads --color -c", fVal,
			"-x --exec -X --exec-batch", fVal), Args: []Role{RoleNone}, Rest: RoleRead, Check: checkFd},
		"fdfind": {Flags: flags(shorts("HIsiFalL0pu")+" --hidden --no-ignore", fBool,
			"-d --max-depth -t --type -e --extension -E --exclude -x --exec -X --exec-batch", fVal),
			Args: []Role{RoleNone}, Rest: RoleRead, Check: checkFd},
	}
	return kbFind
}

// find primaries taking one value; findRead and findWrite name files.
var (
	findValue1 = map[string]bool{
		"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
		"-iwholename": true, "-regex": true, "-iregex": true, "-type": true, "-xtype": true,
		"-size": true, "-perm": true, "-user": true, "-group": true, "-uid": true, "-gid": true,
		"-mtime": true, "-mmin": true, "-atime": true, "-amin": true, "-ctime": true,
		"-cmin": true, "-maxdepth": true, "-mindepth": true, "-links": true, "-inum": true,
		"-used": true, "-fstype": true, "-lname": true, "-ilname": true, "-context": true,
		"-regextype": true, "-printf": true, "-D": true, "-newermt": true, "-newerct": true,
		"-newerat": true, "-newerBt": true,
	}
	findRead  = map[string]bool{"-newer": true, "-anewer": true, "-cnewer": true, "-samefile": true, "-files0-from": true, "-newermm": true}
	findWrite = map[string]bool{"-fprint": true, "-fprint0": true, "-fls": true, "-fprintf": true}
	findNames = map[string]bool{"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true, "-regex": true, "-iregex": true, "-lname": true}
)

// checkFind parses find's roots and expression.
func checkFind(c *Call) {
	args := c.Args
	i := 0
	for i < len(args) && args[i].Known && (args[i].Value == "-H" || args[i].Value == "-L" ||
		args[i].Value == "-P" || strings.HasPrefix(args[i].Value, "-O")) {
		i++
	}
	var roots []Word
	for ; i < len(args); i++ {
		v := args[i].Value
		if args[i].Known && (strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ",") {
			break
		}
		roots = append(roots, args[i])
	}
	if len(roots) == 0 {
		roots = []Word{lit(".")}
	}
	for _, r := range roots {
		c.Use(r, accR)
	}
	prefix := ""
	if len(roots) == 1 {
		if p, ok := c.Abs(roots[0]); ok {
			prefix = strings.TrimSuffix(p, "/") + "/"
		}
	}
	credential := false
	for ; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].Known && (args[j].Value == ";" || args[j].Value == "+")) {
				j++
			}
			if j > i+1 {
				c.Run(replaceBraces(args[i+1:j], "{}", prefix))
			}
			i = j
		case v == "-delete":
			for _, r := range roots {
				c.Use(r, accD)
			}
		case findWrite[v]:
			if i+1 < len(args) {
				c.Use(args[i+1], accW)
			}
			i++
			if v == "-fprintf" {
				i++
			}
		case findRead[v]:
			if i+1 < len(args) {
				c.Use(args[i+1], accR)
			}
			i++
		case findValue1[v]:
			if findNames[v] && i+1 < len(args) && looksLikeCredentialSearch(args[i+1].Value) {
				credential = true
			}
			i++
		}
	}
	if credential && searchesOutside(c, roots) {
		c.Tag(TagCredentialSearch, c.Name)
	}
}

// searchesOutside reports whether a root is outside the working directory
// (find /, find ~): a name search there is a hunt, not project work.
func searchesOutside(c *Call, roots []Word) bool {
	for _, r := range roots {
		p, ok := c.Abs(r)
		if !ok || c.Cwd == "" || !(p == c.Cwd || strings.HasPrefix(p, strings.TrimSuffix(c.Cwd, "/")+"/")) {
			return true
		}
	}
	return false
}

// replaceBraces returns argv with every word containing mark replaced by a
// word known only at run time (prefix is what is known of it).
func replaceBraces(argv []Word, mark, prefix string) []Word {
	out := make([]Word, len(argv))
	for i, w := range argv {
		if mark != "" && strings.Contains(w.Value, mark) {
			if w.Value == mark {
				out[i] = unknownWord(prefix)
			} else {
				out[i] = Word{Value: strings.ReplaceAll(w.Value, mark, prefix)}
			}
			continue
		}
		out[i] = w
	}
	return out
}

// checkFd runs fd's -x/-X command with {} unknown and tags secret hunts.
func checkFd(c *Call) {
	for i, a := range c.Args {
		v := a.Value
		if v == "-x" || v == "--exec" || v == "-X" || v == "--exec-batch" {
			if i+1 < len(c.Args) {
				c.Run(replaceBraces(c.Args[i+1:], "{}", ""))
			}
			break
		}
	}
	if w, ok := pos(c, 0); ok && looksLikeCredentialSearch(w.Value) && len(c.Positional) > 1 &&
		searchesOutside(c, c.Positional[1:]) {
		c.Tag(TagCredentialSearch, c.Name)
	}
}
