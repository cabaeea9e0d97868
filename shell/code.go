package shell

// This file analyses inline code of scripting languages (python -c,
// perl -e, ruby -e, node -e, php -r, awk programs): the shell commands it
// runs, the files it opens, the sockets and URLs it talks to. Literal
// shell strings are analysed as shell code one level deeper.

// ckind is what a call in inline code does with its arguments.
type ckind uint8

const (
	cShell    ckind = iota + 1 // first argument is shell code
	cArgv                      // first argument is a program or an argv list
	cArgvL                     // execl style: path, argv0, args...
	cOpen                      // path and mode
	cRead                      // path (or URL) read
	cWrite                     // path written
	cDelete                    // path deleted
	cCopy                      // source read, destination written
	cMove                      // source read and deleted, destination written
	cEval                      // code of the same language
	cDecode                    // decodes data (base64, hex, zlib, rot13)
	cSocket                    // creates a socket
	cConnect                   // connects to host/port arguments
	cListen                    // listens on a port
	cDup                       // duplicates descriptors (os.dup2)
	cHost                      // a client object for a host
	cPerlOpen                  // perl open(FH, MODE, PATH) / open(FH, "MODEPATH")
)

// codeCalls maps, per language, function names (full, or the last member
// prefixed with a dot) to what they do.
var codeCalls = map[string]map[string]ckind{
	"python": {
		"os.system": cShell, "os.popen": cShell, "subprocess.getoutput": cShell, "subprocess.getstatusoutput": cShell,
		"commands.getoutput": cShell, "getoutput": cShell,
		"subprocess.call": cArgv, "subprocess.run": cArgv, "subprocess.Popen": cArgv, "subprocess.check_output": cArgv,
		"subprocess.check_call": cArgv, "pty.spawn": cArgv, "os.execv": cArgv, "os.execvp": cArgv, "os.execve": cArgv,
		"os.execvpe": cArgv, "os.spawnv": cArgv, "os.spawnvp": cArgv, "Popen": cArgv, "check_output": cArgv, "call": cArgv,
		"os.execl": cArgvL, "os.execlp": cArgvL, "os.execle": cArgvL, "os.spawnl": cArgvL, "os.spawnlp": cArgvL,
		"open": cOpen, "io.open": cOpen, "codecs.open": cOpen, "os.open": cOpen, ".open": cOpen,
		".read_text": cRead, ".read_bytes": cRead, ".write_text": cWrite, ".write_bytes": cWrite,
		"os.remove": cDelete, "os.unlink": cDelete, "os.rmdir": cDelete, "os.removedirs": cDelete, "shutil.rmtree": cDelete,
		"os.chmod": cWrite, "os.chown": cWrite, "os.truncate": cWrite, "os.listdir": cRead, "os.scandir": cRead,
		"shutil.copy": cCopy, "shutil.copy2": cCopy, "shutil.copyfile": cCopy, "shutil.copytree": cCopy,
		"shutil.move": cMove, "os.rename": cMove, "os.replace": cMove, "urllib.request.urlretrieve": cCopy,
		"exec": cEval, "eval": cEval, "compile": cEval, "execfile": cRead,
		"base64.b64decode": cDecode, "b64decode": cDecode, "base64.decodebytes": cDecode, "base64.b32decode": cDecode,
		"base64.urlsafe_b64decode": cDecode, "codecs.decode": cDecode, "zlib.decompress": cDecode, "bytes.fromhex": cDecode,
		"binascii.unhexlify": cDecode, "binascii.a2b_base64": cDecode, "marshal.loads": cDecode, "pickle.loads": cDecode,
		"socket.socket": cSocket, "socket.create_connection": cConnect, ".connect": cConnect, ".connect_ex": cConnect,
		".bind": cListen, "os.dup2": cDup, "http.client.HTTPConnection": cHost, "http.client.HTTPSConnection": cHost,
		"ftplib.FTP": cHost, "smtplib.SMTP": cHost, "smtplib.SMTP_SSL": cHost, "telnetlib.Telnet": cHost,
	},
	"perl": {
		"system": cArgv, "exec": cArgv, "open": cPerlOpen, "unlink": cDelete, "rmdir": cDelete, "copy": cCopy,
		"File::Copy::copy": cCopy, "move": cMove, "rename": cMove, "eval": cEval, "decode_base64": cDecode,
		"MIME::Base64::decode_base64": cDecode, "pack": cDecode, "socket": cSocket, "connect": cSocket,
		"inet_aton": cConnect, "IO::Socket::INET->new": cConnect, "IO::Socket::INET": cConnect, "listen": cListen,
		"chmod": cWrite, "readpipe": cShell,
	},
	"ruby": {
		"system": cArgv, "exec": cArgv, "spawn": cArgv, "IO.popen": cArgv, "Kernel.system": cArgv, "Kernel.exec": cArgv,
		"Open3.capture2": cArgv, "Open3.capture3": cArgv, "Open3.popen3": cArgv, "Open3.capture2e": cArgv,
		"File.read": cRead, "File.readlines": cRead, "IO.read": cRead, "IO.readlines": cRead, "File.foreach": cRead,
		"File.binread": cRead, "File.write": cWrite, "IO.write": cWrite, "File.binwrite": cWrite, "File.open": cOpen,
		"File.new": cOpen, "open": cOpen, "File.delete": cDelete, "File.unlink": cDelete, "FileUtils.rm": cDelete,
		"FileUtils.rm_rf": cDelete, "FileUtils.rm_r": cDelete, "FileUtils.cp": cCopy, "FileUtils.mv": cMove,
		"FileUtils.chmod": cWrite, "TCPSocket.new": cConnect, "TCPSocket.open": cConnect, "Socket.tcp": cConnect,
		"TCPServer.new": cListen, "TCPServer.open": cListen, "eval": cEval, "instance_eval": cEval,
		"Base64.decode64": cDecode, "Base64.strict_decode64": cDecode, "Zlib::Inflate.inflate": cDecode, ".unpack": cDecode,
		".unpack1": cDecode,
	},
	"node": {
		".exec": cShell, ".execSync": cShell, "execSync": cShell, ".spawn": cArgv, ".spawnSync": cArgv,
		".execFile": cArgv, ".execFileSync": cArgv, "spawn": cArgv, "spawnSync": cArgv,
		".readFileSync": cRead, ".readFile": cRead, ".createReadStream": cRead, ".readdirSync": cRead,
		".writeFileSync": cWrite, ".writeFile": cWrite, ".appendFileSync": cWrite, ".appendFile": cWrite,
		".createWriteStream": cWrite, ".unlinkSync": cDelete, ".unlink": cDelete, ".rmSync": cDelete,
		".rmdirSync": cDelete, ".copyFileSync": cCopy, ".renameSync": cMove, ".chmodSync": cWrite,
		"net.connect": cConnect, "net.createConnection": cConnect, ".connect": cConnect, "net.Socket": cSocket,
		".listen": cListen, "net.createServer": cSocket,
		"eval": cEval, "Function": cEval, "vm.runInThisContext": cEval, "vm.runInNewContext": cEval,
		"atob": cDecode, "Buffer.from": cDecode, "zlib.inflateSync": cDecode, "zlib.gunzipSync": cDecode,
	},
	"php": {
		"system": cShell, "exec": cShell, "shell_exec": cShell, "passthru": cShell, "popen": cShell,
		"proc_open": cShell, "pcntl_exec": cArgv, "file_get_contents": cRead, "file": cRead, "readfile": cRead,
		"fopen": cOpen, "include": cRead, "require": cRead, "include_once": cRead, "require_once": cRead,
		"highlight_file": cRead, "show_source": cRead, "file_put_contents": cWrite, "unlink": cDelete,
		"rmdir": cDelete, "copy": cCopy, "rename": cMove, "chmod": cWrite, "fsockopen": cConnect,
		"pfsockopen": cConnect, "stream_socket_client": cRead, "socket_create": cSocket, "socket_connect": cConnect,
		"socket_bind": cListen, "eval": cEval, "assert": cEval, "create_function": cEval,
		"base64_decode": cDecode, "gzinflate": cDecode, "gzuncompress": cDecode, "str_rot13": cDecode,
		"hex2bin": cDecode, "convert_uudecode": cDecode, "gzdecode": cDecode,
	},
	"awk": {"system": cShell},
	"lua": {
		"os.execute": cShell, "io.popen": cShell, "io.open": cOpen, "os.remove": cDelete, "os.rename": cMove,
		"loadstring": cEval, "load": cEval, "dofile": cRead, "socket.connect": cConnect, "socket.tcp": cSocket,
	},
}

// normLang maps interpreter language names to the scanners'.
func normLang(lang string) string {
	switch lang {
	case "python", "python2", "python3", "py":
		return "python"
	case "node", "nodejs", "js", "javascript", "deno", "bun":
		return "node"
	case "awk", "gawk", "mawk", "nawk":
		return "awk"
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "":
		return "sh"
	}
	return lang
}

// runCode analyses inline code of another language.
func (a *analyzer) runCode(c *Call, lang string, code Word) {
	lang = normLang(lang)
	if lang == "sh" {
		a.runShell(c, code)
		return
	}
	c.code = true
	if !code.Known {
		a.unresolvedCode(c, code)
		return
	}
	if code.flags&wDecoded != 0 {
		a.tagf(c, TagDecodedExec, lang+" code")
	}
	if !a.enter() {
		return
	}
	defer func() { a.depth-- }()
	if _, ok := codeCalls[lang]; !ok && !(lang == "sql" && readOnlySQL(code.Value)) {
		a.tagf(c, TagOpaque, lang+" code")
	}
	s := codeScan{a: a, c: c, lang: lang, toks: lexCode(code.Value, lang)}
	s.used = make([]bool, len(s.toks))
	s.scan()
	s.finish()
}
