package shell

import "strings"

// Network clients: HTTP, raw sockets. Reverse and bind shells through
// nc/ncat/socat are tagged here; downloads piped to a shell are the
// core's (pipelines).

// kbNetTable builds the kbNet table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbNetTable() map[string]*Program {
	var (
		kCurlFlags = flags(
			shorts("sSLkfIivGgjJlnNOqR#024ZM6")+" --silent --show-error --location --insecure --fail"+
				" --head --include --verbose --get --compressed --create-dirs --remote-name --remote-name-all"+
				" --progress-bar --globoff --junk-session-cookies --list-only --netrc --no-buffer"+
				" --fail-with-body --http1.1 --http2 --tlsv1.2 --ssl-reqd --no-progress-meter"+
				" --location-trusted --raw --remote-header-name --anyauth --basic --digest --ntlm --negotiate", fBool,
			"-H --header -X --request -u --user -A --user-agent -e --referer -x --proxy -w --write-out"+
				" -m --max-time --connect-timeout -r --range -C --continue-at --retry --retry-delay"+
				" --retry-max-time --resolve --interface -U --proxy-user -z --time-cond --limit-rate"+
				" -Y --speed-limit -y --speed-time --max-redirs --max-filesize --oauth2-bearer --connect-to"+
				" --noproxy --proxy-header --ciphers --dns-servers --local-port -Q --quote --mail-from"+
				" --mail-rcpt --request-target --aws-sigv4 --variable --expand-url -b --cookie", fVal,
			"-d --data --data-binary --data-raw --data-ascii --data-urlencode -F --form --form-string"+
				" --json --url-query", fVal,
			"-o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --stderr --libcurl"+
				" --etag-save --hsts --alt-svc --output-dir", fWrite,
			"-T --upload-file -K --config -E --cert --key --cacert --capath --netrc-file --crlfile"+
				" --pinnedpubkey --proxy-cacert --etag-compare", fRead,
			"--url", fVal,
			"--unix-socket --abstract-unix-socket", fVal,
		)
		kWgetFlags = flags(
			shorts("qvcNrkpmbSxnEKHFdL46")+" --quiet --verbose --continue --timestamping --recursive"+
				" --convert-links --page-requisites --mirror --background --server-response --spider"+
				" --no-check-certificate --no-parent --no-directories --no-clobber --no-verbose -nv -nd -nc -np -nH"+
				" --force-directories --content-disposition --trust-server-names --show-progress --delete-after", fBool,
			"-l --level -A --accept -R --reject -t --tries -T --timeout -w --wait --limit-rate -U --user-agent"+
				" --header --user --password --http-user --http-password --method --restrict-file-names"+
				" -D --domains --exclude-domains --cut-dirs --progress -Q --quota --referer --bind-address"+
				" -I --include-directories -X --exclude-directories --accept-regex --reject-regex"+
				" --proxy-user --proxy-password --ftp-user --ftp-password --dns-timeout --read-timeout", fVal,
			"-e --execute --post-data --body-data", fVal,
			"-O --output-document -o --output-file -a --append-output --save-cookies --warc-file", fWrite,
			"-i --input-file --config --load-cookies --ca-certificate --certificate --private-key"+
				" --post-file --body-file --ca-directory", fRead,
			"-P --directory-prefix", fWrite,
			"--use-askpass", tagged(fShell, TagCodeEscape),
			"-B --base", fVal,
		)
		kNcFlags = flags(
			shorts("46bCdDFhklnNrStuUvzZ")+" --listen --keep-open --udp --verbose --nodns --ssl"+
				" --send-only --recv-only --broker --chat --allow-all", fBool,
			"-p --source-port -s --source -w --wait -q -i --interval -x --proxy -X --proxy-type -I -O -T -V -P -M"+
				" --proxy-auth --allow --deny --ssl-cert --ssl-key --max-conns -m -o --output -g -G", fVal,
			"-e --exec -c --sh-exec --lua-exec", fVal,
		)
		kNc = &Program{Flags: kNcFlags, Network: true, Upload: true, Check: checkNc}
	)

	var kbNet = map[string]*Program{
		"curl":   {Flags: kCurlFlags, Network: true, Check: checkCurl},
		"wget":   {Flags: kWgetFlags, Network: true, Rest: RoleURL, Check: checkWget},
		"wget2":  {Flags: kWgetFlags, Network: true, Rest: RoleURL, Check: checkWget},
		"nc":     kNc,
		"ncat":   kNc,
		"netcat": kNc,
		"socat": {Flags: flags(shorts("dDhuUvxgb"), fBool, "-lf -ly -ls -lm -lh -t -T", fVal), Network: true, Upload: true,
			Check: checkSocat},
	}
	return kbNet
}

// checkCurl records URLs (uploads when data is sent), data files, the
// remote-name download, and the docker socket.
func checkCurl(c *Call) {
	upload := false
	for _, n := range []string{"-d", "--data", "--data-binary", "--data-raw", "--data-ascii",
		"--data-urlencode", "-F", "--form", "--json", "-T", "--upload-file"} {
		w, ok := c.Flags[n]
		if !ok {
			continue
		}
		upload = true
		if n == "-T" || n == "--upload-file" {
			continue // the table records the read
		}
		if at := strings.IndexByte(w.Value, '@'); at >= 0 && (at == 0 || n == "-F" || n == "--form" || n == "--data-urlencode") {
			f, _, _ := strings.Cut(w.Value[at+1:], ";")
			if f != "-" && f != "" {
				c.Use(Word{Value: f, Known: w.Known}, accR)
			}
		}
	}
	if flagValIs(c, []string{"-X", "--request"}, "POST", "PUT", "PATCH") {
		upload = true
	}
	for _, w := range c.Positional {
		c.URL(w, upload)
	}
	if w, ok := c.Flag("--url"); ok {
		c.URL(w, upload)
	}
	if _, ok := c.Flag("-O", "--remote-name", "--remote-name-all"); ok {
		c.Use(lit("."), accW)
	}
	if w, ok := c.Flag("--unix-socket"); ok {
		c.Use(w, accRW)
		if strings.HasSuffix(w.Value, "docker.sock") {
			c.Tag(TagContainerEscape, "curl --unix-socket "+w.Value)
		}
	}
}

// checkWget: without -O, downloads land in the working directory (or -P);
// --post-* marks the URLs as uploads.
func checkWget(c *Call) {
	if _, ok := c.Flag("-O", "--output-document", "-P", "--directory-prefix", "--spider", "-d", "--dir", "-o", "--out"); !ok {
		c.Use(lit("."), accW)
	}
	if _, ok := c.Flag("--post-data", "--post-file", "--body-data", "--body-file"); ok {
		for _, w := range c.Positional {
			c.URL(w, true)
		}
	}
}

// checkNc records the peer and tags reverse/bind shells and port scans.
func checkNc(c *Call) {
	_, listen := c.Flag("-l", "--listen")
	port := ""
	if w, ok := c.Flag("-p", "--source-port"); ok && listen {
		port = w.Value
	}
	if w, ok := pos(c, 1); ok {
		port = w.Value
	}
	host, haveHost := pos(c, 0)
	if listen && haveHost && len(c.Positional) == 1 && isPort(host.Value) {
		port, haveHost = host.Value, false
	}
	if haveHost {
		c.Host(host, port, true, listen)
	} else if listen {
		c.Host(lit(""), port, false, true)
	}
	if _, ok := c.Flag("-z"); ok || strings.Contains(port, "-") {
		c.Tag(TagNetworkScan, c.Name+" -z")
	}
	ew, e := c.Flag("-e", "--exec")
	sw, s := c.Flag("-c", "--sh-exec")
	if _, ok := c.Flag("--lua-exec"); ok {
		e = true
	}
	if !e && !s {
		return
	}
	switch {
	case listen:
		c.Tag(TagBindShell, c.Name+" -l -e")
	case haveHost:
		c.Tag(TagReverseShell, c.Name+" -e")
	default:
		c.Tag(TagCodeEscape, c.Name+" -e")
	}
	if s {
		c.RunShell(sw)
	} else if ew.Value != "" || !ew.Known {
		c.Run([]Word{ew})
	}
}

// checkSocat reads its two addresses.
func checkSocat(c *Call) {
	var exec, connect, listen bool
	var code Word
	for _, w := range c.Positional {
		typ, rest, found := strings.Cut(w.Value, ":")
		if !found {
			typ, rest, _ = strings.Cut(w.Value, ",")
		}
		typ = strings.ToUpper(typ)
		if typ != "EXEC" && typ != "SYSTEM" {
			rest, _, _ = strings.Cut(rest, ",")
		}
		switch {
		case typ == "EXEC" || typ == "SYSTEM":
			exec = true
			cmd, _, _ := strings.Cut(rest, ",")
			code = Word{Value: cmd, Known: w.Known}
		case strings.Contains(typ, "LISTEN") || strings.HasSuffix(typ, "-RECVFROM") || strings.HasSuffix(typ, "-RECV"):
			listen = true
			c.Host(lit(""), rest, true, true)
		case strings.HasPrefix(typ, "TCP") || strings.HasPrefix(typ, "UDP") || strings.HasPrefix(typ, "SCTP") ||
			strings.HasPrefix(typ, "OPENSSL") || strings.HasPrefix(typ, "SSL") || typ == "DTLS":
			connect = true
			h, p := splitHostPort(rest)
			c.Host(Word{Value: h, Known: w.Known}, p, true, false)
		case typ == "SOCKS4" || typ == "SOCKS4A" || typ == "PROXY" || typ == "SOCKS5":
			connect = true
			parts := strings.Split(rest, ":")
			if len(parts) >= 3 {
				c.Host(Word{Value: parts[len(parts)-2], Known: w.Known}, parts[len(parts)-1], true, false)
			}
		case typ == "FILE" || typ == "OPEN" || typ == "CREATE" || typ == "GOPEN" || typ == "CREAT":
			c.Use(Word{Value: rest, Known: w.Known}, accRW)
		case strings.HasPrefix(typ, "UNIX"):
			c.Use(Word{Value: rest, Known: w.Known}, accRW)
			if strings.HasSuffix(rest, "docker.sock") {
				c.Tag(TagContainerEscape, "socat docker.sock")
			}
		}
	}
	if !exec {
		return
	}
	switch {
	case listen:
		c.Tag(TagBindShell, "socat LISTEN EXEC")
	case connect:
		c.Tag(TagReverseShell, "socat TCP EXEC")
	default:
		c.Tag(TagCodeEscape, "socat EXEC")
	}
	c.RunShell(code)
}
