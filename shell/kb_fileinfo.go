package shell

// Permissions, ownership, and the tools that only look at files.

// kbFileMetaTable builds the kbFileMeta table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbFileMetaTable() map[string]*Program {
	var (
		kChmodFlags = flags(
			shorts("RfvchH")+" --recursive --silent --quiet --verbose --changes --no-dereference"+
				" --dereference --preserve-root --no-preserve-root", fBool,
			"--reference", fRead,
			"--from", fVal,
		)
		kLsFlags = flags(
			shorts("aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1")+" --all --almost-all --escape"+
				" --classify --directory --human-readable --si --inode --dereference --numeric-uid-gid"+
				" --recursive --reverse --size --literal --group-directories-first --full-time"+
				" --author --color --colour --hyperlink --dired --context --zero", fBool,
			"-I --ignore --hide -w --width -T --tabsize --sort --format --time --time-style"+
				" --block-size --indicator-style --quoting-style", fVal,
		)
		kHeadFlags = flags(
			shorts("qvzfF")+" --quiet --silent --verbose --zero-terminated --follow --retry", fBool,
			"-n --lines -c --bytes -s --sleep-interval --pid --max-unchanged-stats", fVal,
		)
		kSumFlags = flags(
			shorts("bctwz")+" --binary --check --text --tag --quiet --status --strict --warn --zero"+
				" --ignore-missing", fBool,
			"-a --algorithm -l --length", fVal,
		)
	)

	var kbFileMeta = map[string]*Program{
		"chmod": {Flags: kChmodFlags, Args: []Role{RoleNone}, Rest: RoleWrite, Check: checkChmod},
		"chown": {Flags: kChmodFlags, Args: []Role{RoleNone}, Rest: RoleWrite, Check: checkChown},
		"chgrp": {Flags: kChmodFlags, Args: []Role{RoleNone}, Rest: RoleWrite, Check: checkChown},
		"install": {Flags: flags(
			shorts("bcCdDpsTv")+" --compare --directory --preserve-timestamps --strip --verbose"+
				" --no-target-directory", fBool,
			"-g --group -o --owner -S --suffix --strip-program", fVal,
			"-m --mode", fVal,
			"-t --target-directory", fWrite,
		), Check: checkInstall},
		"setfacl": {Flags: flags(
			shorts("bkndRLPv")+" --remove-all --remove-default --no-mask --default --recursive"+
				" --logical --physical --test", fBool,
			"-m --modify -x --remove --set", fVal,
			"-M --modify-file -X --remove-file --set-file --restore", fRead,
		), Rest: RoleWrite},
		"getfacl": readAll(flags(shorts("aceEsRLPtnpd"), fBool)),

		"ls":   readMeta(kLsFlags),
		"dir":  readMeta(kLsFlags),
		"vdir": readMeta(kLsFlags),
		"exa":  readAll(kLsFlags),
		"eza":  readAll(kLsFlags),
		"cat":  readAll(flags(shorts("AbeEnstTuv")+" --show-all --number-nonblank --number --squeeze-blank --show-ends --show-tabs --show-nonprinting", fBool)),
		"bat":  readAll(flags(shorts("pnAP")+" --plain --number --show-all --paging", fBool, "-l --language -r --line-range --style --theme", fVal)),
		"tac":  readAll(flags(shorts("br")+" --before --regex", fBool, "-s --separator", fVal)),
		"nl": readAll(flags(shorts("p")+" --no-renumber", fBool,
			"-b --body-numbering -d --section-delimiter -f --footer-numbering -h --header-numbering"+
				" -i --line-increment -l --join-blank-lines -n --number-format -s --number-separator"+
				" -v --starting-line-number -w --number-width", fVal)),
		"head": readAll(kHeadFlags),
		"tail": readAll(kHeadFlags),
		"less": readAll(flags(shorts("aBcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~")+" --quit-if-one-screen --no-init --RAW-CONTROL-CHARS --chop-long-lines", fBool,
			"-b -h -j -p -P -t -T -x -y -z --pattern --tabs", fVal, "-o -O --log-file --LOG-FILE", fWrite, "-k --lesskey-file", fRead)),
		"more":  readAll(flags(shorts("dlfpcsu"), fBool, "-n --lines", fVal)),
		"most":  readAll(nil),
		"pg":    readAll(nil),
		"zless": readAll(nil),
		"zmore": readAll(nil),
		"view":  readAll(nil),
		"stat": readMeta(flags(shorts("LftZ")+" --dereference --file-system --terse", fBool,
			"-c --format --printf --cached", fVal)),
		"file": readAll(flags(shorts("bcdEhiklLNnprsSvz0")+" --brief --mime --mime-type --mime-encoding --dereference --no-dereference --special-files --uncompress --keep-going", fBool,
			"-e --exclude -F --separator -P --parameter", fVal,
			"-f --files-from -m --magic-file", fRead)),
		"wc": readAll(flags(shorts("clmwL")+" --bytes --chars --lines --words --max-line-length", fBool,
			"--files0-from", fRead, "--total", fVal)),
		"du": readAll(flags(
			shorts("0abcDhHklLmPsSxg")+" --null --all --apparent-size --bytes --total --dereference-args"+
				" --human-readable --si --count-links --dereference --no-dereference --separate-dirs"+
				" --summarize --one-file-system --inodes", fBool,
			"-d --max-depth -B --block-size -t --threshold --exclude --time --time-style", fVal,
			"-X --exclude-from --files0-from", fRead)),
		"df": readMeta(flags(shorts("ahHiklPTv")+" --all --human-readable --si --inodes --local --portability --print-type --total", fBool,
			"-B --block-size -t --type -x --exclude-type --output", fVal)),
		"readlink": readMeta(flags(shorts("femnqsvz")+" --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero", fBool)),
		"realpath": readMeta(flags(shorts("eLmPqsz")+" --canonicalize-existing --canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero", fBool,
			"--relative-to --relative-base", fVal)),
		"dirname":  plain(flags(shorts("z")+" --zero", fBool)),
		"basename": plain(flags(shorts("az")+" --multiple --zero", fBool, "-s --suffix", fVal)),
		"pwd":      plain(flags(shorts("LP"), fBool)),
		"tree": readAll(flags(
			shorts("adfilpsughDFqNQrtvxACJXS")+" --noreport --dirsfirst --du --prune", fBool,
			"-L -P -I -H -T --charset --filelimit --timefmt --sort", fVal,
			"-o", fWrite, "--fromfile", fRead)),
		"md5sum":    readMeta(kSumFlags),
		"sha1sum":   readMeta(kSumFlags),
		"sha224sum": readMeta(kSumFlags),
		"sha256sum": readMeta(kSumFlags),
		"sha384sum": readMeta(kSumFlags),
		"sha512sum": readMeta(kSumFlags),
		"b2sum":     readMeta(kSumFlags),
		"shasum":    readMeta(kSumFlags),
		"cksum":     readMeta(kSumFlags),
		"sum":       readMeta(flags(shorts("rs"), fBool)),
		"md5":       readMeta(flags(shorts("pqrt"), fBool, "-s", fVal)),
		"xxd": {Flags: flags(shorts("abeEipru")+" -C -ps -plain -include -revert -bits -uppercase", fBool,
			"-c -cols -g -groupsize -l -len -o -offset -s -seek -n -name", fVal),
			Args: []Role{RoleRead, RoleWrite}},
		"od": readAll(flags(shorts("bcdfilosvxB")+" --output-duplicates --traditional", fBool,
			"-A --address-radix -j --skip-bytes -N --read-bytes -S --strings -t --format -w --width --endian", fVal)),
		"hexdump": readAll(flags(shorts("bcCdovx"), fBool, "-n -s -e", fVal, "-f", fRead)),
		"hd":      readAll(flags(shorts("bcCdovx"), fBool, "-n -s -e", fVal, "-f", fRead)),
		"strings": readAll(flags(shorts("afwdo")+" --all --data --include-all-whitespace", fBool,
			"-n --bytes -t --radix -e --encoding -T --target -s --output-separator", fVal)),
		"cmp": readAll(flags(shorts("blsv")+" --print-bytes --verbose --quiet --silent", fBool,
			"-i --ignore-initial -n --bytes", fVal)),
		"diff": readAll(flags(
			shorts("abBcdeEfHilnNpqrsStTuvwWyZ")+" --brief --recursive --new-file --unified --context"+
				" --ignore-case --ignore-all-space --ignore-blank-lines --ignore-space-change --side-by-side"+
				" --text --report-identical-files --suppress-common-lines --color --minimal --normal", fBool,
			"-C -D -F -I -L -U -W -x --exclude --label --ignore-matching-lines --width --from-file"+
				" --to-file --line-format --new-line-format --old-line-format --unchanged-line-format"+
				" --starting-file --horizon-lines --tabsize --palette", fVal,
			"-X --exclude-from", fRead)),
		"diff3":     readAll(flags(shorts("aeiAEmTxX3"), fBool, "-L --label", fVal)),
		"sdiff":     readAll(flags(shorts("abBdEHilstwW"), fBool, "-w -I", fVal, "-o --output", fWrite)),
		"colordiff": readAll(flags(shorts("ubBcNrqwyi"), fBool, "-U -C -x", fVal)),
		"vimdiff":   readAll(nil),
		"lsof": readAll(flags(shorts("blnNPRtUVwhKXl"), fBool,
			"-c -d -g -i -p -s -u -F -k -T +d +D -r +r -a -A -E -S -o", fVal)),
		"fuser": {Flags: flags(shorts("aiklmMnsuvw4")+" --all --kill --mount --user --verbose", fBool,
			"-n --namespace", fVal), Rest: RoleRead, Check: checkFuserKill},
		"locate": {Flags: flags(shorts("0AbceilPqrSw")+" --all --basename --count --existing --ignore-case --null --regex --wholename", fBool,
			"-d --database", fRead, "-l -n --limit", fVal), Check: checkLocate},
		"which":      plain(flags(shorts("as"), fBool)),
		"whereis":    plain(flags(shorts("bmsuBMSfl"), fBool)),
		"namei":      readAll(flags(shorts("lmnovx"), fBool)),
		"pathchk":    plain(nil),
		"mountpoint": readAll(flags(shorts("dqx"), fBool)),
		"getent":     plain(flags(shorts("is"), fBool, "-s --service", fVal)),
		"symlinks":   readAll(flags(shorts("cdrstv"), fBool)),
		"samefile":   readAll(nil),
		"cygpath":    plain(nil),
	}
	return kbFileMeta
}

// checkChmod tags setuid/setgid modes as privilege changes.
func checkChmod(c *Call) {
	if w, ok := pos(c, 0); ok && setuidMode(w.Value) {
		c.Tag(TagPrivilege, "chmod "+w.Value)
	}
}

// checkChown tags a change of owner or group to root.
func checkChown(c *Call) {
	w, ok := pos(c, 0)
	if !ok {
		return
	}
	v := w.Value
	if v == "root" || v == "0" || len(v) > 4 && (v[:5] == "root:" || v[:5] == "root.") ||
		len(v) > 1 && (v[:2] == "0:" || v == ":root" || v == ":0" || v == ":wheel") {
		c.Tag(TagPrivilege, c.Name+" "+v)
	}
}

// checkInstall copies like cp (or creates directories with -d) and tags
// setuid modes and root ownership.
func checkInstall(c *Call) {
	if _, ok := c.Flag("-d", "--directory"); ok {
		for _, w := range c.Positional {
			c.Use(w, accW)
		}
	} else {
		copyLike(accR, accW)(c)
	}
	if flagValIs(c, []string{"-o", "--owner"}, "root", "0") {
		c.Tag(TagPrivilege, "install -o root")
	}
	if w, ok := c.Flag("-m", "--mode"); ok && setuidMode(w.Value) {
		c.Tag(TagPrivilege, "install -m "+w.Value)
	}
}

// checkLocate tags searches for key and credential files.
func checkLocate(c *Call) {
	for _, w := range c.Positional {
		if looksLikeCredentialSearch(w.Value) {
			c.Tag(TagCredentialSearch, w.Value)
			return
		}
	}
}
