package shell

import (
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
)

// Editors, pagers, documentation, media and desktop tools.

// kbMiscTable builds the kbMisc table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbMiscTable() map[string]*Program {
	var (
		kVim = &Program{Flags: flags(shorts("bdeEhlLmMnNrRsvVxyZAbCDFgH")+" --noplugin --clean -es -Es -nu", fBool,
			"-c --cmd", tagged(fVal, TagCodeEscape), "-S", tagged(fRead, TagCodeEscape), "-u -U", fRead,
			"-i -T -t -q -w", fVal, "-W", fWrite), Check: checkVim}
		kEditor  = &Program{Rest: RoleReadWrite}
		kMedia   = &Program{Check: checkMediaOut}
		kOpener  = &Program{Rest: RoleRead, Check: checkOpen}
		kDocOnly = &Program{}
	)

	var kbMisc = map[string]*Program{
		"vim": kVim, "vi": kVim, "nvim": kVim, "gvim": kVim, "vimx": kVim, "ex": kVim, "rvim": kVim,
		"nano": kEditor, "pico": kEditor, "micro": kEditor, "joe": kEditor, "mcedit": kEditor, "gedit": kEditor,
		"kate": kEditor, "subl": kEditor, "mate": kEditor, "code": {Flags: flags("--install-extension", tagged(fVal, TagPackageInstall), "-n -r -w -d -g --wait --new-window --reuse-window --diff", fBool), Rest: RoleReadWrite},
		"ed": {Flags: flags("-s -G -l -r -v", fBool, "-p", fVal), Args: []Role{RoleReadWrite}, Lang: "ed", StdinCode: true},
		"emacs": {Flags: flags("-nw -Q -q --batch --no-init-file --no-site-file", fBool, "--eval -f --funcall", tagged(fVal, TagCodeEscape),
			"-l --load --script", tagged(fRead, TagCodeEscape)), Rest: RoleReadWrite},
		"man": {Flags: flags(shorts("afkKwWlIiuZt")+" --all --apropos --where", fBool, "-M -S -s -L -m -E -C -R", fVal,
			"-P --pager -H --html", tagged(fShell, TagCodeEscape)), Check: checkMan},
		"info":     {Flags: flags("-f --file -o --output", fVal)},
		"parallax": {Check: checkParallax},
		"apropos":  kDocOnly, "whatis": kDocOnly, "tldr": {Network: true}, "cheat": kDocOnly,
		"ffmpeg":  {Flags: flags("-y -n -hide_banner -nostdin -stats", fBool, "-f -c -c:v -c:a -b:v -b:a -r -s -t -ss -to -vf -af -filter_complex -map -codec -vcodec -acodec -preset -crf -ar -ac -loglevel -v -threads -q:v -metadata -aspect -pix_fmt -frames:v -movflags", fVal, "-i", fRead), Check: checkFfmpeg},
		"ffprobe": readAll(flags("-v -show_entries -of -select_streams -print_format", fVal)),
		"ffplay":  readAll(nil),
		"convert": kMedia, "magick": kMedia, "composite": kMedia, "montage": kMedia,
		"mogrify":  {Flags: flags("-resize -format -quality -path -crop -rotate -strip", fVal), Rest: RoleReadWrite},
		"identify": readAll(flags("-format", fVal)),
		"exiftool": {Flags: flags("-overwrite_original -r -j -s", fBool, "-o -w", fWrite), Rest: RoleRead},
		"optipng":  {Rest: RoleReadWrite}, "jpegoptim": {Rest: RoleReadWrite}, "pngquant": {Rest: RoleReadWrite},
		"sox": kMedia, "lame": kMedia, "flac": {Rest: RoleRead}, "metaflac": {Rest: RoleReadWrite},
		"mplayer": readAll(nil), "mpv": readAll(nil), "vlc": readAll(nil), "cvlc": readAll(nil), "mpg123": readAll(nil),
		"pdflatex": {Rest: RoleRead, Flags: flags("-shell-escape --shell-escape", tagged(fBool, TagCodeEscape), "-output-directory", fWrite)},
		"latex":    {Rest: RoleRead, Flags: flags("-shell-escape --shell-escape", tagged(fBool, TagCodeEscape))},
		"xelatex":  {Rest: RoleRead, Flags: flags("-shell-escape --shell-escape", tagged(fBool, TagCodeEscape))},
		"lualatex": {Rest: RoleRead, Flags: flags("-shell-escape --shell-escape", tagged(fBool, TagCodeEscape))},
		"gs":       {Flags: flags("-q -dBATCH -dNOPAUSE -dSAFER", fBool, "-sDEVICE -r", fVal), Rest: RoleRead, Check: checkGhostscript},
		"lp":       readAll(flags("-d -n -o -P -t", fVal)), "lpr": readAll(flags("-P -# -o -T", fVal)), "lpq": kDocOnly, "lpstat": kDocOnly,
		"open": kOpener, "xdg-open": kOpener, "gnome-open": kOpener, "start": kOpener,
		"pbcopy": kDocOnly, "pbpaste": kDocOnly, "wl-copy": kDocOnly, "wl-paste": kDocOnly,
		"xclip":       {Flags: flags("-i -in -o -out -f -filter -verbose -quiet -r -rmlastnl", fBool, "-selection -sel -t -target -d -display -l -loops", fVal), Rest: RoleRead},
		"xsel":        {Flags: flags(shorts("abciopsxklnv")+" --clipboard --input --output --primary --secondary --append --clear --delete --keep", fBool, "-d --display -t --selectionTimeout", fVal)},
		"notify-send": kDocOnly, "say": kDocOnly, "zenity": kDocOnly, "kdialog": kDocOnly, "osd_cat": kDocOnly,
		"xterm": {Flags: flags("-hold -ls", fBool, "-e", Flag{Value: true, Role: RoleCommand},
			"-T -title -geometry -fa -fs -display -d", fVal), Check: checkXterm},
		"gnome-terminal": {Flags: flags("-e --command", fShell, "-x", Flag{Value: true, Role: RoleCommand}, "--title --working-directory", fVal)},
		"xhost":          {Check: checkXhost},
		"xdotool":        {Tags: []TagKind{TagCodeEscape}},
		"pv":             readAll(flags(shorts("pterabTnqcWlf0")+" --progress --timer --eta --rate --bytes --numeric --quiet", fBool, "-s --size -L --rate-limit -N --name -i --interval -w -H -B", fVal)),
		"bar":            readAll(nil),
		// ccze colours log lines from stdin; -F names its rc file.
		"ccze": {Flags: flags(shorts("AhlrC")+" --raw-ansi --html --list-plugins --remove-facility --convert-date", fBool,
			"-m --mode -o --options -c --color -p --plugin -a --argument", fVal, "-F --rcfile", fRead)},
		// ispell checks the files it is given and saves corrections into them.
		"ispell": {Flags: flags(shorts("abBCmMnNtx")+" -S", fBool, "-d -T -w -W", fVal, "-p", fWrite), Rest: RoleReadWrite},
		// xbacklight sets or prints the X display's backlight level.
		"xbacklight": plain(flags("-get", fBool, "-set -inc -dec -time -steps -fps", fVal)),
		// gimp opens images for editing (and may save them); batch code is code.
		"gimp": {Flags: flags(shorts("idfsn")+" --no-interface --no-data --no-fonts --no-splash --new-instance --verbose", fBool,
			"-b --batch", tagged(fVal, TagCodeEscape), "--batch-interpreter", fVal), Rest: RoleReadWrite},
		"mc": kDocOnly, "ranger": kDocOnly, "nnn": kDocOnly, "fzf": {Flags: flags("--preview --bind -q --query", fVal)},
		"cmatrix": kDocOnly, "sl": kDocOnly, "fortune": kDocOnly,
		"fastqc":      {Flags: flags("-o --outdir", fWrite, "-t --threads -f --format", fVal), Rest: RoleRead},
		"samtools":    {Rest: RoleRead, Flags: flags("-o", fWrite, "-@ -b -q -F -f", fVal)},
		"mkisofs":     {Flags: flags("-o", fWrite, "-V", fVal), Rest: RoleRead},
		"genisoimage": {Flags: flags("-o", fWrite, "-V", fVal), Rest: RoleRead},
		"inotifywait": {Flags: flags("-m -r -q -c --monitor --recursive --quiet", fBool, "-e --event --format --timefmt --exclude -t", fVal, "-o --outfile", fWrite), Rest: RoleRead},
		"sqlformat":   readAll(nil),
		"ssconvert":   {Args: []Role{RoleRead, RoleWrite}},
		"soffice":     {Flags: flags("--headless --convert-to", fVal, "--outdir", fWrite), Rest: RoleRead},
		"libreoffice": {Flags: flags("--headless --convert-to", fVal, "--outdir", fWrite), Rest: RoleRead},
		"setarch":     {Flags: flags("-R --addr-no-randomize -3 -B -F -I -L -S -T -X -Z -v", fBool), Args: []Role{RoleNone, RoleCommand}},
		"setfont":     kDocOnly,
	}
	return kbMisc
}

// vimScript splits an ex command that runs inline code of another
// language (":py3 CODE", ":perl CODE", ":lua CODE") into language and code.
func vimScript(cmd string) (lang, code string, ok bool) {
	word, rest, _ := strings.Cut(cmd, " ")
	switch word {
	case "py", "py3", "python", "python3", "pyx", "pythonx":
		lang = "python"
	case "perl", "pe":
		lang = "perl"
	case "ruby", "rub":
		lang = "ruby"
	case "lua":
		lang = "lua"
	default:
		return "", "", false
	}
	return lang, strings.TrimSpace(rest), true
}

// checkVim: -c/--cmd and +cmd run ex commands ("!sh", ":py ...",
// ":terminal"); operands not starting with + are edited files.
func checkVim(c *Call) {
	for i, w := range c.Args {
		v := w.Value
		var cmd string
		switch {
		case (v == "-c" || v == "--cmd") && i+1 < len(c.Args):
			cmd = c.Args[i+1].Value
		case strings.HasPrefix(v, "+") && len(v) > 1:
			cmd = v[1:]
		default:
			continue
		}
		cmd = strings.TrimLeft(cmd, ": ")
		if lang, code, ok := vimScript(cmd); ok {
			c.Tag(TagCodeEscape, c.Name+" -c :"+lang)
			c.RunCode(lang, Word{Value: code, Known: w.Known})
			continue
		}
		if strings.HasPrefix(cmd, "!") {
			c.Tag(TagCodeEscape, c.Name+" -c !")
			c.RunShell(Word{Value: cmd[1:], Known: w.Known})
		} else if strings.HasPrefix(cmd, "py") || strings.HasPrefix(cmd, "lua") || strings.HasPrefix(cmd, "ter") ||
			strings.HasPrefix(cmd, "sh") || strings.Contains(cmd, "system(") || strings.HasPrefix(cmd, "r !") {
			c.Tag(TagCodeEscape, c.Name+" -c "+cmd)
		}
	}
	for _, w := range c.Positional {
		if strings.HasPrefix(w.Value, "+") {
			continue
		}
		c.Use(w, accRW)
	}
}

// checkMan: -l FILE reads a local page; pages are names.
func checkMan(c *Call) {
	if _, ok := c.Flag("-l"); ok {
		for _, w := range c.Positional {
			c.Use(w, accR)
		}
	}
	if w, ok := c.Flag("-P", "--pager"); ok {
		c.RunShell(w)
	}
}

// checkFfmpeg: the last operand is the output file.
func checkFfmpeg(c *Call) {
	if n := len(c.Positional); n > 0 {
		c.Use(c.Positional[n-1], accW)
		for _, w := range c.Positional[:n-1] {
			if strings.Contains(w.Value, ".") {
				c.Use(w, accR)
			}
		}
	}
}

// checkMediaOut: convert-like tools read operands and write the last one.
func checkMediaOut(c *Call) {
	var files []Word
	for _, w := range c.Positional {
		if strings.Contains(w.Value, ".") || strings.Contains(w.Value, "/") {
			files = append(files, w)
		}
	}
	if len(files) == 0 {
		return
	}
	for _, w := range files[:len(files)-1] {
		c.Use(w, accR)
	}
	c.Use(files[len(files)-1], accW)
}

// checkOpen: opening a URL talks to the network; an app (-a) runs.
func checkOpen(c *Call) {
	for _, w := range c.Positional {
		if strings.Contains(w.Value, "://") {
			c.URL(w, false)
		}
	}
}

// checkGhostscript: -dNOSAFER lifts the sandbox; -sOutputFile writes.
func checkGhostscript(c *Call) {
	for _, w := range c.Args {
		switch {
		case w.Value == "-dNOSAFER":
			c.Tag(TagCodeEscape, "gs -dNOSAFER")
		case strings.HasPrefix(w.Value, "-sOutputFile="):
			c.Use(Word{Value: w.Value[len("-sOutputFile="):], Known: w.Known}, accW)
		case strings.HasPrefix(w.Value, "-o") && len(w.Value) > 2:
			c.Use(Word{Value: w.Value[2:], Known: w.Known}, accW)
		}
	}
}

// checkXhost: "xhost +" opens the display to everyone; "xhost -" closes it.
func checkXhost(c *Call) {
	if w, ok := pos(c, 0); ok && strings.HasPrefix(w.Value, "+") {
		c.Tag(TagSecurityOff, "xhost "+w.Value)
	}
}

// checkXterm flags a terminal opened on a remote X display: whoever owns
// that display gets a shell on this machine.
func checkXterm(c *Call) {
	h := c.an.display
	port := "6000"
	if w, ok := c.Flag("-display", "-d"); ok {
		if !w.Known {
			c.Tag(TagOpaque, "xterm display")
			return
		}
		h = displayHost(w.Value)
		if _, n, ok := strings.Cut(w.Value, ":"); ok {
			if d, _, _ := strings.Cut(n, "."); isDigits(d) && len(d) < 4 {
				k, _ := strconv.Atoi(d)
				port = strconv.Itoa(6000 + k)
			}
		}
	}
	if h == "" {
		return
	}
	c.Host(Word{Value: h, Known: true}, port, false, false)
	c.Tag(TagReverseShell, "xterm on remote display "+h)
}

// checkParallax: Parallax's own CLI changes the gate that judges the
// agent (policy add/remove, hook claude-code uninstall, mcp pins approve,
// init --force, chronicle rollback, serve, …): every invocation is
// judged as writing the gate's state (.parallax of the workspace at or
// above cwd, and ~/.parallax), which is sealed. Only what prints help or
// the version, or evaluates a corpus offline, touches no state.
func checkParallax(c *Call) {
	if len(c.Positional) == 0 && len(c.Flags) > 0 {
		for name := range c.Flags {
			if name != "--version" && name != "-v" && name != "--help" && name != "-h" {
				c.UsePath(c.Cwd+"/.parallax", action.AccessWrite)
				return
			}
		}
		return
	}
	if len(c.Positional) == 0 {
		return // prints the help
	}
	if w := c.Positional[0]; w.Known {
		switch w.Value {
		case "version", "help", "completion", "eval":
			return
		}
	}
	c.UsePath(c.Cwd+"/.parallax", action.AccessWrite)
	if strings.HasPrefix(c.Home, "/") {
		c.UsePath(strings.TrimRight(c.Home, "/")+"/.parallax", action.AccessWrite)
	}
}
