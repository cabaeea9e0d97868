package shell

// Text tools: search, sorting and slicing, converters.

// kbTextTable builds the kbText table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbTextTable() map[string]*Program {
	var (
		kGrepFlags = flags(
			shorts("abcEFGhHiIlLnoPqrRsTuUvVwxyzZ")+" --extended-regexp --fixed-strings"+
				" --basic-regexp --perl-regexp --ignore-case --no-ignore-case --word-regexp"+
				" --line-regexp --null-data --no-messages --invert-match --count --color --colour"+
				" --files-without-match --files-with-matches --only-matching --quiet --silent"+
				" --byte-offset --with-filename --no-filename --line-number --initial-tab --null"+
				" --text --recursive --dereference-recursive --line-buffered", fBool,
			"-A --after-context -B --before-context -C --context -m --max-count --include --exclude"+
				" --exclude-dir --label -d --directories -D --devices --binary-files --group-separator", fVal,
			"-e --regexp", fVal,
			"-f --file --exclude-from", fRead,
		)
		kRgFlags = flags(
			shorts("aciFHlLnNoqsSuvwxzUPI0")+" --hidden --no-ignore --ignore-case --smart-case"+
				" --fixed-strings --files --files-with-matches --count --json --vimgrep --multiline"+
				" --follow --line-number --no-heading --search-zip --pcre2 --unrestricted", fBool,
			"-A -B -C -m -j -g --glob --iglob -t --type -T --type-not -M --max-columns -r --replace"+
				" --max-depth --max-filesize --type-add --sort --sortr --encoding -E --color --colors", fVal,
			"-e --regexp", fVal,
			"-f --file --ignore-file", fRead,
			"--pre", tagged(fShell, TagCodeEscape),
		)
		kSortFlags = flags(
			shorts("bcCdfghiMmnRrsuVz")+" --ignore-leading-blanks --check --dictionary-order"+
				" --ignore-case --general-numeric-sort --human-numeric-sort --ignore-nonprinting"+
				" --month-sort --numeric-sort --random-sort --reverse --stable --unique --version-sort"+
				" --zero-terminated --merge", fBool,
			"-k --key -t --field-separator -S --buffer-size -T --temporary-directory --parallel"+
				" --batch-size --sort --compress-program --random-source", fVal,
			"-o --output", fWrite,
			"--files0-from", fRead,
		)
		kGrep = &Program{Flags: kGrepFlags, Args: []Role{RoleNone}, Rest: RoleRead, Check: checkGrep}
	)

	var kbText = map[string]*Program{
		"grep": kGrep, "egrep": kGrep, "fgrep": kGrep, "rgrep": kGrep, "zgrep": kGrep, "zegrep": kGrep,
		"zfgrep": kGrep, "bzgrep": kGrep, "xzgrep": kGrep, "agrep": kGrep, "pdfgrep": kGrep, "ggrep": kGrep,
		"rg": {Flags: kRgFlags, Args: []Role{RoleNone}, Rest: RoleRead, Check: checkGrep},
		"ag": {Flags: flags(shorts("aiQlLcwvsSuUfGz")+" --hidden --literal --ignore-case --unrestricted", fBool,
			"-A -B -C -m -g -G --ignore --depth --file-search-regex", fVal), Args: []Role{RoleNone}, Rest: RoleRead, Check: checkGrep},
		"ack": {Flags: flags(shorts("ivwlLcohHfgnrRQs")+" --literal --ignore-case", fBool,
			"-A -B -C -m --type --ignore-dir --match --output", fVal), Args: []Role{RoleNone}, Rest: RoleRead, Check: checkGrep},
		"sed":  {Check: checkSed},
		"gsed": {Check: checkSed},
		"sort": readAll(kSortFlags),
		"uniq": {Flags: flags(shorts("cdDiuz")+" --count --repeated --all-repeated --ignore-case --unique --zero-terminated --group", fBool,
			"-f --skip-fields -s --skip-chars -w --check-chars", fVal), Args: []Role{RoleRead, RoleWrite}},
		"cut": readAll(flags(shorts("nsz")+" --complement --only-delimited --zero-terminated", fBool,
			"-b --bytes -c --characters -d --delimiter -f --fields --output-delimiter", fVal)),
		"tr":    plain(flags(shorts("cCdst")+" --complement --delete --squeeze-repeats --truncate-set1", fBool)),
		"paste": readAll(flags(shorts("sz")+" --serial --zero-terminated", fBool, "-d --delimiters", fVal)),
		"join": readAll(flags(shorts("iz")+" --ignore-case --check-order --nocheck-order --header", fBool,
			"-1 -2 -a -e -j -o -t -v", fVal)),
		"comm": readAll(flags(shorts("123iz")+" --check-order --nocheck-order --total --zero-terminated", fBool,
			"--output-delimiter", fVal)),
		"column": readAll(flags(shorts("tnxeJLr")+" --table --fillrows --json", fBool,
			"-s --separator -c --output-width -o --output-separator -N --table-columns -R -H -W -E -l -d -T", fVal)),
		"fold":     readAll(flags(shorts("bs")+" --bytes --spaces", fBool, "-w --width", fVal)),
		"fmt":      readAll(flags(shorts("csum")+" --crown-margin --split-only --uniform-spacing", fBool, "-w --width -p --prefix -g --goal", fVal)),
		"pr":       readAll(flags(shorts("acdFfmrtTJ")+" --across --double-space --merge --omit-header", fBool, "-h --header -l --length -w --width -W -o --indent -s -S -n -N -e -i", fVal)),
		"expand":   readAll(flags(shorts("i")+" --initial", fBool, "-t --tabs", fVal)),
		"unexpand": readAll(flags(shorts("a")+" --all --first-only", fBool, "-t --tabs", fVal)),
		"rev":      readAll(nil),
		"shuf": {Flags: flags(shorts("erz")+" --echo --repeat --zero-terminated", fBool,
			"-n --head-count -i --input-range", fVal, "-o --output", fWrite, "--random-source", fRead),
			Rest: RoleRead},
		"tsort":    readAll(nil),
		"look":     {Flags: flags(shorts("dfab"), fBool, "-t", fVal), Args: []Role{RoleNone, RoleRead}},
		"colrm":    plain(nil),
		"iconv":    readAll(flags(shorts("cls")+" --list --silent", fBool, "-f --from-code -t --to-code", fVal, "-o --output", fWrite)),
		"base64":   readAll(flags(shorts("diDb")+" --decode --ignore-garbage", fBool, "-w --wrap", fVal, "-o --output", fWrite)),
		"base32":   readAll(flags(shorts("di")+" --decode --ignore-garbage", fBool, "-w --wrap", fVal)),
		"basenc":   readAll(flags(shorts("di")+" --decode --ignore-garbage --base64 --base64url --base32 --base32hex --base16 --base2msbf --base2lsbf --z85", fBool, "-w --wrap", fVal)),
		"uuencode": {Flags: flags(shorts("m")+" --base64", fBool, "-o --output-file", fWrite), Args: []Role{RoleRead}},
		"uudecode": readAll(flags(shorts("ci"), fBool, "-o --output-file", fWrite)),
		"jq":       {Check: checkJq},
		"gojq":     {Check: checkJq},
		"jaq":      {Check: checkJq},
		"yq":       {Check: checkJq},
		"xq":       {Check: checkJq},
		"json_xs":  plain(flags("-f -t -e", fVal)),
		"json":     plain(nil),
		"xmllint": readAll(flags("--noout --format --html --recover --nonet --valid --c14n --huge --noblanks --debug", fBool,
			"--xpath --encode --maxmem --path", fVal, "-o --output", fWrite,
			"--schema --dtdvalid --relaxng --schematron --catalogs", fRead)),
		"xmlstarlet": readAll(nil),
		"xsltproc":   readAll(flags("--novalid --nonet --html --xinclude", fBool, "--param --stringparam --path", fVal, "-o --output", fWrite)),
		"csvtool":    readAll(flags("-t -u -z", fVal)),
		"mlr":        readAll(flags("--icsv --ocsv --ijson --ojson --c2j --c2p --csv --json -I", fBool, "-n --from", fRead)),
		"pandoc": {Lang: "lua", Rest: RoleRead, Flags: flags(shorts("sS")+" --standalone --toc", fBool,
			"-f --from -r --read -t --to -w --write -V --variable -M --metadata --template --pdf-engine --resource-path --css -c", fVal,
			"-o --output", fWrite, "--lua-filter -F --filter", tagged(fScript, TagCodeEscape))},
		"markdown":  readAll(nil),
		"groff":     readAll(flags(shorts("aeghijlpRsStUzZ"), fBool, "-m -T -d -f -F -I -M -n -o -P -r -w -W", fVal)),
		"nroff":     readAll(flags(shorts("ehiqStUz"), fBool, "-m -T -d -n -o -r -w -W", fVal)),
		"pdftotext": {Flags: flags("-layout -raw -htmlmeta -bbox -nopgbrk -q", fBool, "-f -l -enc -eol -opw -upw", fVal), Args: []Role{RoleRead, RoleWrite}},
		"pdfunite":  {Check: copyLike(accR, accW)},
		"ps2pdf":    {Args: []Role{RoleRead, RoleWrite}},
		"antiword":  readAll(nil),
		"xgettext":  readAll(flags(shorts("aEjs"), fBool, "-d -k -L --from-code -p --keyword --language", fVal, "-o --output", fWrite, "-f --files-from", fRead)),
		"enscript":  readAll(flags(shorts("BGhjrR"), fBool, "-p --output", fWrite, "-f -F -M -N -t -T", fVal)),
		"a2ps":      readAll(nil),
		"echo":      plain(nil),
		"printf":    plain(nil),
		"seq":       plain(flags(shorts("w")+" --equal-width", fBool, "-f --format -s --separator", fVal)),
		"yes":       plain(nil),
		"factor":    plain(nil),
		"numfmt":    plain(flags("--from --to --format --field -d --delimiter --padding --suffix", fVal)),
		"expr":      plain(nil),
		"test":      plain(nil),
		"[":         plain(nil),
		"true":      plain(nil),
		"false":     plain(nil),
		"envsubst":  plain(nil),
		"gettext":   plain(nil),
		"cowsay":    plain(flags("-f -e -T -W", fVal)),
		"figlet":    plain(flags("-f -w", fVal)),
		"toilet":    plain(nil),
		"lolcat":    readAll(nil),
		"wdiff":     readAll(nil),
		"spell":     readAll(nil),
		"aspell":    readAll(nil),
		"dict":      {Network: true},
	}
	return kbText
}

// checkGrep reads the first positional as a file too when the pattern
// came from -e/-f (the table took it for the pattern), and tags recursive
// searches for secrets.
func checkGrep(c *Call) {
	_, e := c.Flag("-e", "--regexp")
	_, f := c.Flag("-f", "--file")
	if (e || f) && len(c.Positional) > 0 {
		c.Use(c.Positional[0], accR)
	}
	recursive := c.Name == "rgrep" || c.Name == "rg" || c.Name == "ag" || c.Name == "ack"
	if _, ok := c.Flag("-r", "-R", "--recursive", "--dereference-recursive"); ok {
		recursive = true
	}
	if flagValIs(c, []string{"-d", "--directories"}, "recurse") {
		recursive = true
	}
	if !recursive {
		return
	}
	var pat string
	if w, ok := c.Flag("-e", "--regexp"); ok {
		pat = w.Value
	} else if w, ok := pos(c, 0); ok && !f {
		pat = w.Value
	}
	if looksLikeCredentialSearch(pat) {
		c.Tag(TagCredentialSearch, c.Name+" -r")
	}
	grepTrees(c, e || f)
}

// grepTrees records what a recursive search reads: every file below each
// operand ("." when there is none), narrowed by a single --include or
// --glob name pattern (listName).
func grepTrees(c *Call, patternFlag bool) {
	ops := c.Positional
	if !patternFlag && len(ops) > 0 {
		ops = ops[1:]
	}
	if c.Name == "rg" {
		if _, ok := c.Flag("--files"); ok {
			ops = c.Positional // rg --files [PATH...]: no pattern operand
		}
	}
	// The flag table keeps one --include: the name comes from the
	// selection, which keeps them all (two filters narrow to no one name).
	sel := grepSelection(c)
	name := listName(sel)
	if len(ops) == 0 {
		c.an.useTree(c, Word{Value: ".", Known: true}, name, accR, sel)
		return
	}
	for _, w := range ops {
		if w.Known && w.Value == "-" {
			continue
		}
		c.an.useTree(c, w, name, accR, sel)
	}
}

// checkJq parses jq/yq arguments (their --arg takes two values): the
// first operand is the filter unless -f gave it, the others are files;
// yq -i edits them in place.
func checkJq(c *Call) {
	filter := true
	acc := accR
	var files []Word
	for i := 0; i < len(c.Args); i++ {
		v := c.Args[i].Value
		switch v {
		case "--arg", "--argjson", "--slurpfile", "--rawfile", "--var":
			if (v == "--slurpfile" || v == "--rawfile") && i+2 < len(c.Args) {
				c.Use(c.Args[i+2], accR)
			}
			i += 2
			continue
		case "-f", "--from-file":
			filter = false
			if i+1 < len(c.Args) {
				c.Use(c.Args[i+1], accR)
			}
			i++
			continue
		case "-L", "--indent", "-o", "--output-format", "-p", "--input-format", "--front-matter", "--expression":
			i++
			continue
		case "-i", "--inplace", "--in-place":
			acc = accRW
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			continue
		}
		if filter {
			filter = false
			continue
		}
		files = append(files, c.Args[i])
	}
	for _, w := range files {
		c.Use(w, acc)
	}
}
