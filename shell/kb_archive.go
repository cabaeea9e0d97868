package shell

import "strings"

// Archivers and compressors. tar carries several GTFOBins escapes
// (--checkpoint-action=exec, --to-command, -I/--use-compress-program,
// --rsh-command, --info-script), all parsed by checkTar.

// kbArchiveTable builds the kbArchive table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbArchiveTable() map[string]*Program {
	var (
		kGzipFlags = flags(
			shorts("cdfhklLnNqrtvVZ123456789")+" --stdout --to-stdout --decompress --uncompress --force --keep"+
				" --list --no-name --name --quiet --recursive --test --verbose --best --fast --rm"+
				" --rsyncable --synchronous", fBool,
			"-S --suffix -T --threads -b --blocksize -p --processes -M --memlimit --format -F", fVal,
			"-o --output", fWrite,
			"-D --dict", fRead,
		)
		kZipFlags = flags(
			shorts("0123456789AcdDeEfFgjJklLmnoqrRSTuvwXyz@")+" --recurse-paths --move --test --quiet"+
				" --verbose --junk-paths --encrypt --symlinks --update --freshen --delete --grow"+
				" -ll -FF -sf -so -sp -ws -dc -dd -db -dg -du -dv -MM -nw -ic -AC -AS -UN -sc -sd -su -sv", fBool,
			"-b --temp-path -i --include -x --exclude -n --suffixes -P --password -s --split-size"+
				" -t --from-date -tt --before-date -Z --compression-method -ds -la -lf -li", fVal,
			"-O --output-file --out", fWrite,
			"-TT --unzip-command", tagged(fShell, TagCodeEscape),
		)
		kSevenZip = &Program{Flags: flags(
			"-y -r -so -si -spf -sdel -slt -bd -sccUTF-8 -aoa -aos -aou -aot -ssw -mmt", fBool,
			"-o", fWrite,
			"-p -t -m -x -i -v -w -ax -ai -an -bs -bb -scs -sfx", fVal,
		), Check: check7z}
		kCompress = &Program{Flags: kGzipFlags, Check: checkCompress}
		kZcat     = readAll(kGzipFlags)
	)

	var kbArchive = map[string]*Program{
		"tar": {Check: checkTar}, "gtar": {Check: checkTar}, "bsdtar": {Check: checkTar}, "gnutar": {Check: checkTar},
		"jar": {Check: checkTar},
		"zip": {Flags: kZipFlags, Args: []Role{RoleReadWrite}, Rest: RoleRead, Check: checkZip},
		"unzip": {Flags: flags(
			shorts("ZcfhlnopqtTuvzaCjKLMNsVWX")+" -qq -aa -UU", fBool,
			"-P -x -I -O", fVal, "-d", fWrite,
		), Args: []Role{RoleRead}, Check: checkUnzip},
		"zipinfo":  {Flags: flags(shorts("12shmlvMtTz"), fBool, "-x", fVal), Args: []Role{RoleRead}},
		"zipsplit": {Flags: flags(shorts("tipsq"), fBool, "-n -r", fVal, "-b", fWrite), Rest: RoleRead},
		"zipnote":  {Flags: flags(shorts("wq"), fBool, "-b", fWrite), Rest: RoleReadWrite},
		"zipcloak": {Flags: flags(shorts("dq"), fBool, "-O -b", fWrite), Rest: RoleReadWrite},
		"gzip":     kCompress, "gunzip": kCompress, "pigz": kCompress, "unpigz": kCompress,
		"bzip2": kCompress, "bunzip2": kCompress, "bzip": kCompress, "pbzip2": kCompress,
		"xz": kCompress, "unxz": kCompress, "lzma": kCompress, "unlzma": kCompress, "lzip": kCompress,
		"zstd": kCompress, "unzstd": kCompress, "compress": kCompress, "uncompress": kCompress,
		"brotli": kCompress, "lzop": kCompress,
		"lz4":  {Flags: kGzipFlags, Args: []Role{RoleRead, RoleWrite}},
		"zcat": kZcat, "gzcat": kZcat, "bzcat": kZcat, "xzcat": kZcat, "lzcat": kZcat, "zstdcat": kZcat,
		"7z": kSevenZip, "7za": kSevenZip, "7zr": kSevenZip, "7zz": kSevenZip,
		"unrar": {Flags: flags("-y -o+ -o- -r -inul -idq", fBool, "-p -x", fVal),
			Sub: map[string]*Program{
				"x": {Args: []Role{RoleRead, RoleWrite}, Check: checkExtractHere},
				"e": {Args: []Role{RoleRead, RoleWrite}, Check: checkExtractHere},
				"l": {Args: []Role{RoleRead}}, "lb": {Args: []Role{RoleRead}},
				"t": {Args: []Role{RoleRead}}, "p": {Args: []Role{RoleRead}},
			}},
		"rar": {Flags: flags("-r -y -m5 -df -ep1", fBool, "-p -x -v", fVal),
			Args: []Role{RoleNone, RoleReadWrite}, Rest: RoleRead},
		"cpio": {Check: checkCpio},
		"pax": {Flags: flags(shorts("rwadiklnPtuvXzHL"), fBool, "-s -x -b -o -p -T -U -G", fVal, "-f", fRW),
			Rest: RoleRead},
		"ar":         {Flags: flags("--plugin --target --output", fVal), Args: []Role{RoleNone, RoleReadWrite}, Rest: RoleRead},
		"rpm2cpio":   {Args: []Role{RoleRead}},
		"unsquashfs": {Flags: flags(shorts("flns"), fBool, "-d -dest", fWrite), Args: []Role{RoleRead}},
		"mksquashfs": {Check: copyLike(accR, accW)},
	}
	return kbArchive
}

// tarShortValue are tar's short options taking a value.
const tarShortValue = "fCTXbKNVgLIFH"

// tarLongValue are tar's long options taking a value.
var tarLongValue = map[string]bool{
	"--file": true, "--directory": true, "--files-from": true, "--exclude-from": true,
	"--exclude": true, "--transform": true, "--xform": true, "--owner": true, "--group": true,
	"--mode": true, "--mtime": true, "--strip-components": true, "--format": true,
	"--blocking-factor": true, "--record-size": true, "--tape-length": true, "--label": true,
	"--newer": true, "--after-date": true, "--newer-mtime": true, "--to-command": true,
	"--use-compress-program": true, "--checkpoint-action": true, "--rsh-command": true,
	"--rmt-command": true, "--info-script": true, "--new-volume-script": true,
	"--index-file": true, "--listed-incremental": true, "--suffix": true,
	"--sort": true, "--owner-map": true, "--group-map": true, "--volno-file": true,
	"--quoting-style": true, "--warning": true, "--xattrs-include": true,
	"--xattrs-exclude": true, "--hole-detection": true,
}

// checkTar parses tar's three option styles (old "czf", short "-xzf",
// long "--file=") and records the archive, the members and the escapes.
func checkTar(c *Call) {
	st := tarState{}
	args := c.Args
	i := 0
	if len(args) > 0 && args[0].Known && !strings.HasPrefix(args[0].Value, "-") {
		// Old style: a bundle of letters, values follow in order.
		next := 1
		for j := 0; j < len(args[0].Value); j++ {
			r := args[0].Value[j]
			var v Word
			if strings.IndexByte(tarShortValue, r) >= 0 && next < len(args) {
				v = args[next]
				next++
			}
			st.short(c, r, v)
		}
		i = next
	}
	for ; i < len(args); i++ {
		w := args[i]
		v := w.Value
		switch {
		case v == "--":
			st.members = append(st.members, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			if !hasVal && tarLongValue[name] && i+1 < len(args) {
				i++
				st.long(c, name, args[i])
			} else {
				st.long(c, name, Word{Value: val, Known: w.Known})
			}
		case len(v) > 1 && v[0] == '-' && w.Known:
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(tarShortValue, v[j]) >= 0 {
					var val Word
					if j+1 < len(v) {
						val = lit(v[j+1:])
					} else if i+1 < len(args) {
						i++
						val = args[i]
					}
					st.short(c, v[j], val)
					break
				}
				st.short(c, v[j], Word{})
			}
		default:
			st.members = append(st.members, w)
		}
	}
	st.finish(c)
}

type tarState struct {
	mode     byte // c, r, u, x, t, d, A
	archive  Word
	haveArch bool
	dir      Word
	haveDir  bool
	remove   bool
	members  []Word
}

func (st *tarState) short(c *Call, r byte, v Word) {
	switch r {
	case 'c', 'r', 'u', 'x', 't', 'd', 'A':
		st.mode = r
	case 'f':
		st.archive, st.haveArch = v, true
	case 'C':
		st.dir, st.haveDir = v, true
	case 'T', 'X':
		if v.Value != "-" {
			c.Use(v, accR)
		}
	case 'g':
		c.Use(v, accW)
	case 'I':
		tarEscape(c, "-I", v)
	case 'F':
		tarEscape(c, "-F", v)
	}
}

func (st *tarState) long(c *Call, name string, v Word) {
	switch name {
	case "--create":
		st.mode = 'c'
	case "--append":
		st.mode = 'r'
	case "--update":
		st.mode = 'u'
	case "--extract", "--get":
		st.mode = 'x'
	case "--list":
		st.mode = 't'
	case "--diff", "--compare":
		st.mode = 'd'
	case "--file":
		st.archive, st.haveArch = v, true
	case "--directory":
		st.dir, st.haveDir = v, true
	case "--files-from", "--exclude-from":
		c.Use(v, accR)
	case "--listed-incremental", "--index-file", "--volno-file":
		c.Use(v, accW)
	case "--remove-files":
		st.remove = true
	case "--to-command", "--use-compress-program", "--rsh-command", "--rmt-command",
		"--info-script", "--new-volume-script":
		tarEscape(c, name, v)
	case "--checkpoint-action":
		if cmd, ok := strings.CutPrefix(v.Value, "exec="); ok {
			tarEscape(c, name, Word{Value: cmd, Known: v.Known})
		} else if !v.Known {
			tarEscape(c, name, v)
		}
	}
}

// tarEscape records an archiver option that runs a command.
func tarEscape(c *Call, opt string, cmd Word) {
	c.Tag(TagCodeEscape, c.Name+" "+opt)
	if cmd.Value != "" || !cmd.Known {
		c.RunShell(cmd)
	}
}

func (st *tarState) finish(c *Call) {
	if st.haveArch && st.archive.Known && (st.archive.Value == "-" || st.archive.Value == "") {
		st.haveArch = false
	}
	dest := lit(".")
	if st.haveDir {
		dest = st.dir
	}
	switch st.mode {
	case 'c', 'r', 'u', 'A':
		if st.haveArch {
			c.Use(st.archive, accW)
		}
		acc := accR
		if st.remove {
			acc = accRD
		}
		for _, m := range st.members {
			if st.haveDir {
				if p, ok := c.Abs(st.dir); ok && m.Known && !strings.HasPrefix(m.Value, "/") {
					c.UsePath(strings.TrimSuffix(p, "/")+"/"+m.Value, acc)
					continue
				}
			}
			c.Use(m, acc)
		}
	case 'x':
		if st.haveArch {
			c.Use(st.archive, accR)
		}
		c.Use(dest, accW)
	default:
		if st.haveArch {
			c.Use(st.archive, accR)
		}
	}
}

// checkZip: -m moves files into the archive (deletes them).
func checkZip(c *Call) {
	if _, ok := c.Flag("-m", "--move"); ok && len(c.Positional) > 1 {
		for _, w := range c.Positional[1:] {
			c.Use(w, accD)
		}
	}
}

// checkUnzip records the extraction into the working directory unless a
// listing, test or pipe mode was asked or -d named the destination.
func checkUnzip(c *Call) {
	if _, ok := c.Flag("-l", "-t", "-v", "-p", "-c", "-Z", "-z", "-d"); ok {
		return
	}
	c.Use(lit("."), accW)
}

// checkExtractHere records extraction into the working directory when no
// destination operand was given.
func checkExtractHere(c *Call) {
	if len(c.Positional) < 2 {
		c.Use(lit("."), accW)
	}
}

// checkCompress: compressors replace each file by its (de)compressed
// version unless they write to stdout, list or test.
func checkCompress(c *Call) {
	acc := accAll
	if _, ok := c.Flag("-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"); ok {
		acc = accR
	} else if _, ok := c.Flag("-k", "--keep"); ok {
		acc = accRW
	}
	for _, w := range c.Positional {
		c.Use(w, acc)
	}
}

// check7z handles 7-Zip's command letters.
func check7z(c *Call) {
	cmd, ok := pos(c, 0)
	if !ok {
		return
	}
	rest := c.Positional[1:]
	switch cmd.Value {
	case "a", "u", "d", "rn":
		if len(rest) > 0 {
			c.Use(rest[0], accRW)
			for _, w := range rest[1:] {
				c.Use(w, accR)
			}
		}
	case "x", "e":
		for _, w := range rest {
			c.Use(w, accR)
		}
		if _, ok := c.Flag("-o"); !ok {
			c.Use(lit("."), accW)
		}
	default:
		for _, w := range rest {
			c.Use(w, accR)
		}
	}
}

// checkCpio handles cpio's copy-out, copy-in and pass-through modes.
func checkCpio(c *Call) {
	mode := byte(0)
	var dir Word
	haveDir := false
	var operands []Word
	args := c.Args
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--rsh-command" && i+1 < len(args):
			i++
			tarEscape(c, v, args[i])
		case strings.HasPrefix(v, "--rsh-command="):
			tarEscape(c, "--rsh-command", Word{Value: v[len("--rsh-command="):], Known: args[i].Known})
		case v == "-F" || v == "--file" || v == "-O" || v == "-I" || v == "-E" || v == "-D" || v == "--directory":
			if i+1 < len(args) {
				i++
				switch v {
				case "-O":
					c.Use(args[i], accW)
				case "-D", "--directory":
					dir, haveDir = args[i], true
				default:
					c.Use(args[i], accR)
				}
			}
		case v == "-H" || v == "-R" || v == "-M" || v == "--format" || v == "-C":
			i++
		case v == "--create":
			mode = 'o'
		case v == "--extract":
			mode = 'i'
		case v == "--pass-through":
			mode = 'p'
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			for _, m := range "oip" {
				if strings.ContainsRune(v[1:], m) {
					mode = byte(m)
				}
			}
		case !strings.HasPrefix(v, "-"):
			operands = append(operands, args[i])
		}
	}
	switch mode {
	case 'i':
		if haveDir {
			c.Use(dir, accW)
		} else {
			c.Use(lit("."), accW)
		}
	case 'p':
		for _, w := range operands {
			c.Use(w, accW)
		}
	}
}
