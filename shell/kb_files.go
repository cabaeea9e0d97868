package shell

// File operations: copying, moving, deleting, creating, low-level writes.

// kbFilesTable builds the kbFiles table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbFilesTable() map[string]*Program {
	var (
		kCpFlags = flags(
			shorts("aRrfivnpulsxdHLPbTZ")+" --archive --recursive --force --interactive --verbose"+
				" --no-clobber --link --symbolic-link --update --one-file-system --dereference"+
				" --no-dereference --parents --preserve --remove-destination --strip-trailing-slashes"+
				" --attributes-only --debug --sparse --reflink --backup --no-target-directory", fBool,
			"-t --target-directory", fWrite,
			"-S --suffix --no-preserve", fVal,
		)
		kRmFlags = flags(
			shorts("rRfivdI")+" --recursive --force --interactive --verbose --dir"+
				" --one-file-system --preserve-root", fBool,
			"--no-preserve-root", tagged(fBool, TagDestructive),
		)
	)

	var kbFiles = map[string]*Program{
		"cp": {Flags: kCpFlags, Check: copyLike(accR, accW)},
		"mv": {Flags: flags(
			shorts("finuvbTZ")+" --force --interactive --no-clobber --update --verbose --backup"+
				" --strip-trailing-slashes --no-target-directory --debug", fBool,
			"-t --target-directory", fWrite,
			"-S --suffix", fVal,
		), Check: copyLike(accRD, accW)},
		"ln": {Flags: flags(
			shorts("sfFinrvbLPTd")+" --symbolic --force --interactive --no-dereference --relative"+
				" --verbose --backup --logical --physical --no-target-directory", fBool,
			"-t --target-directory", fWrite,
			"-S --suffix", fVal,
		), Check: checkLn},
		"link":      {Args: []Role{RoleRead, RoleWrite}},
		"unlink":    {Args: []Role{RoleDelete}},
		"rm":        {Flags: kRmFlags, Rest: RoleDelete, Check: checkRm},
		"srm":       {Flags: kRmFlags, Rest: RoleDelete, Tags: []TagKind{TagDestructive}},
		"wipe":      {Flags: kRmFlags, Rest: RoleDelete, Tags: []TagKind{TagDestructive}},
		"trash":     {Flags: kRmFlags, Rest: RoleDelete},
		"trash-put": {Flags: kRmFlags, Rest: RoleDelete},
		"rmdir": {Flags: flags(shorts("pv")+" --parents --verbose --ignore-fail-on-non-empty", fBool),
			Rest: RoleDelete},
		"mkdir": {Flags: flags(shorts("pvZ")+" --parents --verbose", fBool, "-m --mode --context", fVal),
			Rest: RoleMkdir},
		"touch": {Flags: flags(
			shorts("acmhf")+" --no-create --no-dereference", fBool,
			"-d --date -t --time", fVal,
			"-r --reference", fRead,
		), Rest: RoleWrite, Check: checkTouch},
		"mkfifo":    {Flags: flags("-m --mode -Z --context", fVal), Rest: RoleWrite},
		"mknod":     {Flags: flags("-m --mode -Z --context", fVal), Args: []Role{RoleWrite}},
		"mktemp":    plain(flags(shorts("dqut")+" --directory --dry-run --quiet", fBool, "-p --tmpdir --suffix", fVal)),
		"tempfile":  plain(flags("-d --directory -p --prefix -s --suffix -m --mode", fVal, "-n --name", fWrite)),
		"tee":       {Flags: flags(shorts("aip")+" --append --ignore-interrupts --output-error", fBool), Rest: RoleWrite},
		"sponge":    {Flags: flags("-a", fBool), Args: []Role{RoleWrite}},
		"fallocate": {Flags: flags(shorts("cdinpxzv")+" --keep-size --dig-holes", fBool, "-l --length -o --offset", fVal), Args: []Role{RoleWrite}},
		"truncate": {Flags: flags(
			shorts("co")+" --no-create --io-blocks", fBool,
			"-s --size", fVal,
			"-r --reference", fRead,
		), Rest: RoleWrite, Check: checkTruncate},
		"shred": {Flags: flags(
			shorts("fuvxz")+" --force --remove --verbose --exact --zero", fBool,
			"-n --iterations -s --size --random-source", fVal,
		), Rest: RoleWrite, Tags: []TagKind{TagDestructive}, Check: checkShred},
		"dd":     {Check: checkDd},
		"dcfldd": {Check: checkDd},
		"split": {Flags: flags(
			shorts("de")+" --numeric-suffixes --hex-suffixes --elide-empty-files --unbuffered --verbose"+
				" -x -u", fBool,
			"-a --suffix-length -b --bytes -C --line-bytes -l --lines -n --number -t --separator"+
				" --additional-suffix", fVal,
			"--filter", fShell,
		), Args: []Role{RoleRead, RoleWrite}},
		"csplit": {Flags: flags(
			shorts("ksqz")+" --keep-files --quiet --silent --elide-empty-files --suppress-matched", fBool,
			"-b --suffix-format -n --digits", fVal,
			"-f --prefix", fWrite,
		), Args: []Role{RoleRead}},
		"rename": {Flags: flags(shorts("vnfsoi")+" --verbose --no-act --force --symlink --no-overwrite", fBool,
			"-e", fVal), Check: checkRename},
		"dos2unix": {Flags: flags(shorts("kqsfon")+" --keepdate --quiet --safe --force --newfile", fBool), Rest: RoleReadWrite},
		"unix2dos": {Flags: flags(shorts("kqsfo")+" --keepdate --quiet", fBool), Rest: RoleReadWrite},
		"fromdos":  {Rest: RoleReadWrite},
		"todos":    {Rest: RoleReadWrite},
		"patch": {Flags: flags(
			shorts("REfNsbtuceln")+" --reverse --forward --force --silent --quiet --batch --dry-run"+
				" --backup --unified --context --ed --normal --ignore-whitespace --binary --verbose", fBool,
			"-p --strip -F --fuzz -V --version-control -z --suffix -D --ifdef -B --prefix -Y -g", fVal,
			"-i --input", fRead,
			"-o --output -r --reject-file", fWrite,
			"-d --directory", fDir,
		), Args: []Role{RoleReadWrite, RoleRead}, Check: checkPatchFetched},
		"sync":   plain(flags(shorts("df")+" --data --file-system", fBool)),
		"mmv":    {Rest: RoleNone},
		"chattr": {Flags: flags(shorts("RVf"), fBool, "-v -p", fVal), Args: []Role{RoleNone}, Rest: RoleWrite},
		"lsattr": readAll(flags(shorts("RVadDlpv"), fBool)),
	}
	return kbFiles
}

// checkLn records link targets as read (a link exposes them) and the
// link as written; "ln -sf /dev/null ~/.bash_history" wipes history.
func checkLn(c *Call) {
	copyLike(accR, accW)(c)
	p := c.Positional
	if len(p) == 2 && p[0].Known && p[0].Value == "/dev/null" {
		tagPathKinds(c, p[1:])
	}
}

// checkRm tags deletes of history files and logs.
func checkRm(c *Call) { tagPathKinds(c, c.Positional) }

// checkTruncate tags truncation of history files and logs.
func checkTruncate(c *Call) { tagPathKinds(c, c.Positional) }

// checkShred records removal with -u and tags history and log targets.
func checkShred(c *Call) {
	if _, ok := c.Flag("-u", "--remove"); ok {
		for _, w := range c.Positional {
			c.Use(w, accD)
		}
	}
	tagPathKinds(c, c.Positional)
}

// checkDd reads if= and writes of=; a write to a block device is a
// device write.
func checkDd(c *Call) {
	for _, w := range c.Args {
		acc := accR
		var v string
		switch {
		case len(w.Value) > 3 && w.Value[:3] == "if=":
			v = w.Value[3:]
		case len(w.Value) > 3 && w.Value[:3] == "of=":
			v, acc = w.Value[3:], accW
		default:
			continue
		}
		vw := Word{Value: v, Known: w.Known, Glob: w.Glob}
		c.Use(vw, acc)
		if acc == accW {
			if p, ok := c.Abs(vw); ok && isDevicePath(p) {
				c.Tag(TagDeviceWrite, p)
			} else if !ok && isDevicePath(v) {
				c.Tag(TagDeviceWrite, v)
			}
			tagPathKinds(c, []Word{vw})
		}
	}
}

// checkRename handles both renames: perl's "rename EXPR FILES" and
// util-linux's "rename FROM TO FILES". Renamed files are deleted under
// their old name and written under the new one.
func checkRename(c *Call) {
	p := c.Positional
	start := 1
	if _, ok := c.Flag("-e"); ok {
		start = 0
	} else if len(p) > 0 && !looksLikePerlExpr(p[0].Value) {
		start = 2
	}
	for i := start; i < len(p); i++ {
		c.Use(p[i], accAll)
	}
}

// looksLikePerlExpr reports whether s is a perl substitution or
// transliteration (s/a/b/, y/a/b/, tr/a/b/).
func looksLikePerlExpr(s string) bool {
	if len(s) > 2 && (s[0] == 's' || s[0] == 'y') && !isAlnum(s[1]) {
		return true
	}
	return len(s) > 3 && s[:2] == "tr" && !isAlnum(s[2])
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// checkTouch flags times set to a chosen date or copied from another file:
// how a dropped file is made to look as old as its neighbours.
func checkTouch(c *Call) {
	for _, f := range [...]string{"-r", "--reference", "-d", "--date", "-t"} {
		if _, ok := c.Flag(f); ok {
			c.Tag(TagTimestomp, "touch "+f)
			return
		}
	}
}
