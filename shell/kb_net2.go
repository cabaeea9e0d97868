package shell

import "strings"

// More network tools: ssh family, scanners, lookups, downloaders, mail,
// sniffers, openssl, database clients.

// kbNet2Table builds the kbNet2 table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbNet2Table() map[string]*Program {
	var (
		kScanner = &Program{Flags: flags(
			"-sS -sT -sU -sV -sC -sn -sP -Pn -A -O -F -v -vv -n -T4 -T5 --open --reason -6", fBool,
			"-p --ports -e --top-ports --min-rate --max-rate --rate -iR --exclude --source-port -S -D --script-args --script", fVal,
			"-oN -oX -oG -oA -oS --output-filename -o", fWrite,
			"-iL --excludefile --resume --datadir", fRead,
			"--interactive", tagged(fBool, TagCodeEscape),
		), Rest: RoleHost, Network: true, Tags: []TagKind{TagNetworkScan}}
		kPing = &Program{Flags: flags(
			shorts("46aAbBdDfLnOqrRUv"), fBool,
			"-c -i -I -l -m -M -p -Q -s -S -t -T -w -W -F -N -g -f -q -z -P", fVal,
		), Args: []Role{RoleHost}, Network: true}
		kSSLFlags = flags(
			"-noout -text -nodes -new -x509 -batch -pubout -pubin -salt -nosalt -d -e -a -A -base64 -hex"+
				" -binary -check -quiet -brief -showcerts -verify_return_error -crlf -ign_eof -no_ign_eof"+
				" -noenc -sha256 -sha1 -md5 -sha512 -aes256 -aes-256-cbc -des3 -pbkdf2 -export -nokeys"+
				" -nocerts -clcerts -cacerts -1 -5 -6 -apr1 -stdin -tls1_2 -tls1_3 -debug -msg -state -status", fBool,
			"-passin -passout -pass -k -K -iv -md -subj -days -newkey -name -nameopt -set_serial"+
				" -extensions -servername -port -proxy -cipher -ciphersuites -alpn -starttls -verify"+
				" -inform -outform -keyform -certform -iter -S -algorithm -pkeyopt -digest"+
				" -provider -propquery -sigopt -accept", fVal,
			"-in -key -config -CAfile -CApath -CA -CAkey -signkey -inkey -cert -sess_in -rand -extfile"+
				" -certfile -signature -verify_file -prverify -kfile -chainCAfile -recip -paramfile", fRead,
			"-out -keyout -sess_out -msgfile -keylogfile -writerand -CAserial", fWrite,
			"-connect -host", fHost,
			"-engine -provider-path", tagged(fVal, TagCodeEscape),
		)
		kDBClient = &Program{Flags: flags(
			"-B --batch -N -s --silent -t --table -v --verbose -X -q --quiet --no-psqlrc -w -W -A -x -E -1 --ssl", fBool,
			"-u --user -h --host -P --port -D --database -U --username -d --dbname -S --socket --default-character-set"+
				" --protocol -F --field-separator -R --record-separator -T --set --variable --csv-delimiter", fVal,
			"-e --execute -c --command", fCode,
			"-f --file --defaults-file --defaults-extra-file", fRead,
			"-o --output -L --log-file --tee", fWrite,
		), Network: true, Upload: true, Lang: "sql", StdinCode: true}
		kHTTPieFlags = flags(
			shorts("bhvjfFdcSIqmp")+" --json --form --verbose --download --continue --follow --check-status"+
				" --ignore-stdin --quiet --offline --stream --multipart --body --headers", fBool,
			"-a --auth -A --auth-type --print --pretty --style --timeout --proxy --session --session-read-only"+
				" --verify --max-redirects --cert-key --ssl", fVal,
			"-o --output", fWrite,
			"--cert", fRead,
		)
		kHTTPie = &Program{Flags: kHTTPieFlags, Network: true, Check: checkHTTPie}
		kMailer = &Program{Flags: flags("-n -N -v -E -t -d -i -I", fBool,
			"-s --subject -c -b -r -S -f -u -q -M -e", fVal, "-a -A --attach", fRead),
			Network: true, Upload: true}
		kBrowser = &Program{Flags: flags("-dump -source -listonly -nolist -accept_all_cookies -width -no-cookie", fBool,
			"-cmd_log -trace", fWrite, "-cmd_script -cfg", fRead, "-o -T -cols", fVal), Rest: RoleURL, Network: true}
	)

	var kbNet2 = map[string]*Program{
		"ssh":     {Flags: kSSHFlags(), Network: true, Check: checkSSH},
		"autossh": {Flags: with(kSSHFlags(), "-M", fVal), Network: true, Check: checkSSH},
		"scp": {Flags: flags(shorts("346ABCOpqrRTv"), fBool, "-c -D -J -l -o -P -X", fVal, "-F -i", fRead,
			"-S", tagged(fVal, TagCodeEscape)), Network: true, Upload: true, Check: checkSCP},
		"sftp": {Flags: flags(shorts("46AaCfNpqrv"), fBool, "-B -c -D -J -l -o -P -R -s", fVal,
			"-b -F -i", fRead, "-S", tagged(fVal, TagCodeEscape)), Network: true, Upload: true, Check: checkSCP},
		"rsync": {Flags: kRsyncFlags(), Network: true, Upload: true, Check: checkRsync},
		"nmap":  kScanner, "masscan": kScanner, "zmap": kScanner, "rustscan": kScanner, "unicornscan": kScanner,
		"nikto": kScanner, "gobuster": kScanner, "dirb": kScanner, "ffuf": kScanner, "wfuzz": kScanner,
		"sqlmap": kScanner, "hydra": kScanner, "medusa": kScanner, "arp-scan": kScanner, "netdiscover": kScanner,
		"hping3": kScanner, "fping": kScanner, "nbtscan": kScanner, "enum4linux": kScanner, "wpscan": kScanner,
		"ping": kPing, "ping6": kPing, "arping": kPing, "traceroute": kPing, "traceroute6": kPing,
		"tracepath": kPing, "mtr": kPing, "tcptraceroute": kPing,
		"dig": {Flags: flags(shorts("46hmruv"), fBool, "-b -c -p -q -t -x -y", fVal, "-f -k", fRead),
			Network: true, Check: checkDig},
		"nslookup": {Flags: flags("-debug -d2", fBool), Args: []Role{RoleHost, RoleHost}, Network: true},
		"host": {Flags: flags(shorts("aACdlrsTUvw46"), fBool, "-c -N -R -t -W -m", fVal),
			Args: []Role{RoleHost, RoleHost}, Network: true},
		"whois":  {Flags: flags("-H -r -B -G -a -l -L -m -M", fBool, "-p --port -i -T -s -t -v -q", fVal, "-h --host", fHost), Rest: RoleHost, Network: true},
		"drill":  {Args: []Role{RoleHost}, Network: true},
		"ftp":    {Flags: flags(shorts("46pAadeginptvV"), fBool, "-P -s -T -u", fVal), Args: []Role{RoleHost, RoleNone}, Network: true, Upload: true},
		"lftp":   {Flags: flags("-d --norc -v", fBool, "-p -u -e --env-password -c", fVal, "-f", fRead), Args: []Role{RoleHost}, Network: true, Upload: true},
		"tftp":   {Flags: flags(shorts("46v"), fBool, "-m -c -l -R", fVal), Args: []Role{RoleHost, RoleNone}, Network: true, Upload: true},
		"telnet": {Flags: flags(shorts("468EFKLacdfrx"), fBool, "-b -e -l -n -S -X", fVal), Args: []Role{RoleHost, RoleNone}, Network: true, Upload: true},
		"smbclient": {Flags: flags("-N -L -g -q", fBool, "-U --user -W -I -p -m -A -s -D --directory -T -c --command", fVal),
			Args: []Role{RoleHost}, Network: true, Upload: true},
		"aria2c": {Flags: flags("-c -q -V -Z --continue --quiet --check-integrity --force-sequential", fBool,
			"--max-connection-per-server --split --max-concurrent-downloads --header --user-agent --http-user --http-passwd"+
				" --max-tries --retry-wait --timeout --seed-time --all-proxy -x -s -j -k -t", fVal,
			"-d --dir -o --out -l --log --save-session", fWrite,
			"-i --input-file --conf-path --certificate --private-key --ca-certificate -T --torrent-file", fRead,
			"--on-download-complete --on-download-start --on-download-error --on-download-stop --on-download-pause"+
				" --on-bt-download-complete", tagged(fShell, TagCodeEscape),
		), Rest: RoleURL, Network: true, Check: checkWget},
		"axel": {Flags: flags("-a -q -v -k", fBool, "-n -s -H -U", fVal, "-o --output", fWrite), Rest: RoleURL, Network: true},
		"http": kHTTPie, "https": kHTTPie, "xh": kHTTPie, "xhs": kHTTPie,
		"lynx": kBrowser, "w3m": kBrowser, "links": kBrowser, "elinks": kBrowser,
		"mail": kMailer, "mailx": kMailer, "s-nail": kMailer, "bsd-mailx": kMailer,
		"mutt": {Flags: flags("-n -x -y -z -Z -R", fBool, "-s -c -b -e -F -H -i -f", fVal, "-a", fRead),
			Network: true, Upload: true, Check: checkMutt},
		"sendmail": {Flags: flags("-t -i -oi -v", fBool, "-f -F -r -o -B -N -R -V -X", fVal), Network: true, Upload: true},
		"msmtp":    {Flags: flags("-t -v --read-envelope-from", fBool, "-a --account -f --from --host --port -C", fVal), Network: true, Upload: true},
		"ssh-keygen": {Flags: flags(shorts("ABDeHilLpqyQkK"), fBool,
			"-a -b -C -E -F -G -I -J -j -K -m -M -N -n -O -P -r -R -t -V -w -W -Y -Z -z -s -f", fVal), Check: checkSSHKeygen},
		"ssh-copy-id": {Flags: flags(shorts("fnsh"), fBool, "-p -o -t", fVal, "-i", fRead), Args: []Role{RoleHost},
			Network: true, Upload: true, Tags: []TagKind{TagPersistence}},
		"ssh-keyscan": {Flags: flags(shorts("46cDHv"), fBool, "-p -T -t -O", fVal, "-f", fRead), Rest: RoleHost, Network: true},
		"ssh-add":     {Flags: flags(shorts("cDdeKkLlqsTvXx"), fBool, "-E -H -h -S -t", fVal), Rest: RoleRead},
		"ssh-agent":   {Flags: flags(shorts("cDdks"), fBool, "-a -E -O -P -t", fVal), Args: []Role{RoleCommand}},
		"sshpass":     {Flags: flags("-e -v", fBool, "-p -P", fVal, "-f", fRead), Args: []Role{RoleCommand}},
		"mosh": {Flags: flags("-4 -6 -n -a", fBool, "-p --port --ssh --server --predict", fVal),
			Network: true, Check: checkRemoteCmd},
		"rsh":          {Flags: flags("-n -d -K -x", fBool, "-l", fVal), Network: true, Check: checkRemoteCmd},
		"pssh":         {Flags: flags("-i -A -v -x -X -I -P", fBool, "-h --hosts -H --host -l -p -t -o -e -O", fVal), Network: true, Tags: []TagKind{TagRemoteExec}, Check: checkRemoteAll},
		"parallel-ssh": {Flags: flags("-i -A -v -I -P", fBool, "-h --hosts -H --host -l -p -t -o -e -O", fVal), Network: true, Tags: []TagKind{TagRemoteExec}, Check: checkRemoteAll},
		"tcpdump": {Flags: flags(shorts("AdDeKlLnNOpqStuUvxX#")+" -vv -vvv -XX", fBool,
			"-c -C -E -G -i -j -M -m -s -T -y -W -B -Z --time-stamp-precision", fVal,
			"-w", fWrite, "-r -F", fRead, "-z", tagged(fShell, TagCodeEscape)), Network: true},
		"tshark": {Flags: flags("-n -q -V -x -l -P -S", fBool, "-i -f -Y -c -a -b -T -e -E -o -d -s", fVal,
			"-w", fWrite, "-r", fRead, "-X", tagged(fVal, TagCodeEscape)), Network: true},
		"openssl": {Flags: kSSLFlags, Sub: map[string]*Program{
			"s_client": {Flags: kSSLFlags, Network: true, Upload: true},
			"s_server": {Flags: kSSLFlags, Network: true, Upload: true, Check: checkSSLServer},
			"s_time":   {Flags: kSSLFlags, Network: true},
		}, SubDefault: &Program{Flags: kSSLFlags, Rest: RoleRead}},
		"mysql":      kDBClient,
		"mariadb":    kDBClient,
		"psql":       kDBClient,
		"mysqldump":  {Flags: kDBClient.Flags, Network: true, Lang: "sql", Check: checkDump},
		"pg_dump":    {Flags: with(kDBClient.Flags, "-f --file", fWrite), Network: true, Lang: "sql"},
		"pg_dumpall": {Flags: with(kDBClient.Flags, "-f --file", fWrite), Network: true, Lang: "sql"},
		"pg_restore": {Flags: with(kDBClient.Flags, "-f --file", fWrite), Args: []Role{RoleRead}, Network: true, Lang: "sql"},
		"mongo": {Flags: flags("--quiet --nodb --norc", fBool, "--host --port -u --username -p --password --authenticationDatabase", fVal, "--eval", fCode),
			Args: []Role{RoleNone, RoleScript}, Network: true, Lang: "js", StdinCode: true},
		"mongosh": {Flags: flags("--quiet --nodb --norc", fBool, "--host --port -u --username -p --password", fVal, "--eval", fCode, "-f --file", fScript),
			Args: []Role{RoleNone}, Network: true, Lang: "js", StdinCode: true},
		"redis-cli": {Flags: flags("--raw --no-raw -c --scan --bigkeys --stat --latency", fBool, "-h -p -a -n -u -r -i --pattern --user --pass", fVal, "--eval", fScript),
			Network: true, Upload: true, Lang: "lua"},
		"sqlite3": {Flags: flags("-header -csv -json -line -list -column -batch -bail -readonly -echo -box -table -markdown -noheader", fBool,
			"-separator -newline -nullvalue -cmd -init", fVal), Args: []Role{RoleReadWrite, RoleCode}, Lang: "sql", StdinCode: true},
		"nsupdate":   {Flags: flags("-d -D -l -L -v -g -o", fBool, "-k -y -p -t -u -r", fVal), Args: []Role{RoleRead}, Network: true, Upload: true},
		"ldapsearch": {Flags: flags("-x -LLL -LL -L -Z -ZZ -n -v -W", fBool, "-H -h -p -b -D -w -s -a -l -z", fVal, "-y -f", fRead), Network: true},
		"snmpwalk":   {Flags: flags("-v -c -O", fVal), Args: []Role{RoleHost}, Network: true},
		"iperf":      {Flags: flags("-s -u -R -d", fBool, "-c -p -t -b -P -i", fVal), Network: true},
		"iperf3":     {Flags: flags("-s -u -R -d", fBool, "-c -p -t -b -P -i", fVal), Network: true},
		"youtube-dl": {Flags: flags("-x -q --no-playlist", fBool, "-f -o --output --exec", fVal), Rest: RoleURL, Network: true, Check: checkYtdl},
		"yt-dlp":     {Flags: flags("-x -q --no-playlist", fBool, "-f -o --output --exec", fVal), Rest: RoleURL, Network: true, Check: checkYtdl},
	}
	return kbNet2
}

// checkDig records the server (@host) and the name looked up (a DNS query
// carries the name to the domain's servers).
func checkDig(c *Call) {
	for _, w := range c.Positional {
		switch {
		case strings.HasPrefix(w.Value, "@"):
			c.Host(Word{Value: w.Value[1:], Known: w.Known}, "", false, false)
		case strings.HasPrefix(w.Value, "+"):
		case strings.Contains(w.Value, ".") || !w.Known:
			c.Host(w, "", false, false)
		}
	}
}

// checkHTTPie reads [METHOD] URL [ITEM...]: items "f@path" and "f=@path"
// upload files; any data item makes the request an upload.
func checkHTTPie(c *Call) {
	p := c.Positional
	if len(p) == 0 {
		return
	}
	i := 0
	if len(p) > 1 && isMethod(p[0].Value) {
		i = 1
	}
	url := p[i]
	upload := i == 1 && p[0].Value != "GET" && p[0].Value != "HEAD"
	for _, it := range p[i+1:] {
		v := it.Value
		if k := strings.Index(v, "@"); k > 0 && !strings.Contains(v[:k], ":") {
			f := strings.TrimPrefix(v[k+1:], "@")
			c.Use(Word{Value: f, Known: it.Known}, accR)
			upload = true
		} else if strings.Contains(v, "=") {
			upload = true
		}
	}
	if !strings.Contains(url.Value, "://") && url.Known {
		url = lit("http://" + strings.TrimPrefix(url.Value, ":"))
	}
	c.URL(url, upload)
	if _, ok := c.Flag("-d", "--download"); ok {
		if _, o := c.Flag("-o", "--output"); !o {
			c.Use(lit("."), accW)
		}
	}
}

// isMethod reports whether s is an upper-case HTTP method.
func isMethod(s string) bool {
	switch s {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// checkMutt: attachments follow -a up to "--", addresses after.
func checkMutt(c *Call) {
	for i := 0; i < len(c.Args); i++ {
		if c.Args[i].Value != "-a" {
			continue
		}
		for j := i + 2; j < len(c.Args) && c.Args[j].Value != "--" && !strings.HasPrefix(c.Args[j].Value, "-"); j++ {
			c.Use(c.Args[j], accR)
		}
	}
}

// checkSSHKeygen: -f names a key written, unless only read (-y, -l, -e, -i, -B).
func checkSSHKeygen(c *Call) {
	w, ok := c.Flag("-f")
	if !ok {
		return
	}
	if _, ro := c.Flag("-y", "-l", "-e", "-i", "-B", "-F", "-L"); ro {
		c.Use(w, accR)
		return
	}
	if _, rm := c.Flag("-R"); rm {
		c.Use(w, accRW)
		return
	}
	c.Use(w, accW)
}

// checkRemoteCmd: the first operand is the host; words after it are a
// command run there.
func checkRemoteCmd(c *Call) {
	if len(c.Positional) == 0 {
		return
	}
	c.Host(c.Positional[0], "", false, false)
	if len(c.Positional) > 1 {
		c.Tag(TagRemoteExec, c.Name+" "+c.Positional[0].Value)
		c.RunShell(joinWords(c.Positional[1:]))
	}
}

// checkRemoteAll: pssh's operands are the command run on every host.
func checkRemoteAll(c *Call) {
	if len(c.Positional) > 0 {
		c.RunShell(joinWords(c.Positional))
	}
}

// checkSSLServer: openssl s_server listens.
func checkSSLServer(c *Call) {
	port := "4433"
	if w, ok := c.Flag("-accept", "-port"); ok {
		port = w.Value
	}
	c.Host(lit(""), port, true, true)
}

// checkDump: mysqldump writes -r/--result-file.
func checkDump(c *Call) {
	for i := 0; i+1 < len(c.Args); i++ {
		if c.Args[i].Value == "-r" || c.Args[i].Value == "--result-file" {
			c.Use(c.Args[i+1], accW)
		}
	}
}

// checkYtdl: downloads land in the working directory; --exec runs a command.
func checkYtdl(c *Call) {
	if w, ok := c.Flag("--exec"); ok {
		c.Tag(TagCodeEscape, c.Name+" --exec")
		c.RunShell(w)
	}
	if _, ok := c.Flag("-o", "--output"); !ok {
		c.Use(lit("."), accW)
	}
}
