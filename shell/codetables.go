package shell

// The APIs of each language the inline-code scanner recognises, by what
// they do with their arguments. A name is a function (open), a module
// member as written after imports are resolved (os.system,
// child_process.exec, LWP::UserAgent->new), or a method by its last
// member with a dot (.read_text), matched on any receiver the scanner
// cannot name.

// ckind is what a call in inline code does with its arguments.
type ckind uint8

const (
	cShell      ckind = iota + 1 // first argument is shell code
	cArgv                        // first argument is a program or an argv list
	cArgvL                       // execl style: path, argv0, args...
	cExecAny                     // runs a program from arguments the scanner does not follow
	cOpen                        // path and mode
	cOpenRW                      // path, read and written
	cRead                        // path (or URL) read
	cWrite                       // path written
	cWrite2                      // second argument is a path written (R's writeLines(text, con))
	cWriteRest                   // every argument after the first is a path written (perl's chmod)
	cDelete                      // path deleted
	cCopy                        // source read, destination written
	cMove                        // source read and deleted, destination written
	cRecvRead                    // the receiver is a path read: Path(p).read_text()
	cRecvWrite                   // the receiver is a path written
	cRecvDelete                  // the receiver is a path deleted
	cPathOpen                    // open: of a path receiver (Path(p).open(mode)), else of its argument
	cEval                        // code of the same language
	cImport                      // a module named by its argument (dynamic when computed)
	cRequire                     // node's require, lua's require: a module, or a file that runs
	cReflect                     // calls a function named by its argument (send, getattr, call_user_func)
	cDecode                      // decodes data (base64, hex, zlib, rot13)
	cSocket                      // creates a socket
	cConnect                     // connects to host/port arguments
	cListen                      // listens on a port
	cDup                         // duplicates descriptors (os.dup2)
	cHost                        // a client for the host named by its first argument
	cURL                         // a request to the URL in its first argument (after an HTTP method word)
	cClient                      // a network client whose destinations come with each request
	cSend                        // sends a request built elsewhere
	cNetAny                      // talks to the network, where the scanner does not follow
	cCurlOpt                     // php's curl_setopt: CURLOPT_URL sets the destination
	cPerlOpen                    // perl open(FH, MODE, PATH) / open(FH, "MODEPATH")
	cLoad                        // a file (or URL) whose code runs: php's include, R's source
	cSendTo                      // sends to the address in its last argument (sendto(data, (host, port)))
	cPure                        // does nothing the gate judges
)

// codeCalls maps, per language, function names to what they do.
var codeCalls = map[string]map[string]ckind{
	"python": pythonCalls, "perl": perlCalls, "ruby": rubyCalls, "node": nodeCalls, "php": phpCalls,
	"lua": luaCalls, "r": rCalls,
	"awk": {"system": cShell},
}

var pythonCalls = map[string]ckind{
	"os.system": cShell, "os.popen": cShell, "os.popen2": cShell, "os.popen3": cShell, "os.popen4": cShell,
	"subprocess.getoutput": cShell, "subprocess.getstatusoutput": cShell, "commands.getoutput": cShell,
	"commands.getstatusoutput": cShell, "platform.popen": cShell, "asyncio.create_subprocess_shell": cShell,
	"subprocess.call": cArgv, "subprocess.run": cArgv, "subprocess.Popen": cArgv, "subprocess.check_output": cArgv,
	"subprocess.check_call": cArgv, "pty.spawn": cArgv, "os.execv": cArgv, "os.execvp": cArgv, "os.execve": cArgv,
	"os.execvpe": cArgv, "os.spawnv": cArgv, "os.spawnvp": cArgv, "os.spawnve": cArgv, "os.spawnvpe": cArgv,
	"asyncio.create_subprocess_exec": cArgv, "os.posix_spawn": cExecAny, "os.posix_spawnp": cExecAny,
	"os.execl": cArgvL, "os.execlp": cArgvL, "os.execle": cArgvL, "os.execlpe": cArgvL, "os.spawnl": cArgvL,
	"os.spawnlp": cArgvL, "os.spawnle": cArgvL, "os.forkpty": cExecAny,
	"open": cOpen, "io.open": cOpen, "codecs.open": cOpen, "os.open": cOpen, "gzip.open": cOpen, "bz2.open": cOpen,
	"lzma.open": cOpen, "tarfile.open": cOpen, "zipfile.ZipFile": cOpen, "shelve.open": cOpenRW, "dbm.open": cOpenRW,
	"sqlite3.connect": cOpenRW, "fileinput.input": cRead, "io.FileIO": cOpen, ".open": cPathOpen,
	".read_text": cRecvRead, ".read_bytes": cRecvRead, ".write_text": cRecvWrite, ".write_bytes": cRecvWrite,
	".unlink": cRecvDelete, ".rmdir": cRecvDelete, ".touch": cRecvWrite, ".iterdir": cRecvRead,
	"os.remove": cDelete, "os.unlink": cDelete, "os.rmdir": cDelete, "os.removedirs": cDelete, "shutil.rmtree": cDelete,
	"os.chmod": cWrite, "os.chown": cWrite, "os.lchown": cWrite, "os.truncate": cWrite, "os.utime": cWrite,
	"os.mkdir": cWrite, "os.makedirs": cWrite, "os.mkfifo": cWrite, "shutil.chown": cWrite,
	"os.listdir": cRead, "os.scandir": cRead, "os.walk": cRead, "glob.glob": cRead, "glob.iglob": cRead,
	"shutil.copy": cCopy, "shutil.copy2": cCopy, "shutil.copyfile": cCopy, "shutil.copytree": cCopy,
	"os.symlink": cCopy, "os.link": cCopy, "shutil.make_archive": cWrite,
	"shutil.move": cMove, "os.rename": cMove, "os.renames": cMove, "os.replace": cMove, "urllib.request.urlretrieve": cCopy,
	"urllib.urlretrieve": cCopy, "execfile": cLoad, "runpy.run_path": cLoad, "runpy.run_module": cImport,
	"pandas.read_csv": cRead, "pandas.read_json": cRead, "pandas.read_excel": cRead, "pandas.read_parquet": cRead,
	"pandas.read_table": cRead, "numpy.load": cRead, "numpy.loadtxt": cRead, "numpy.genfromtxt": cRead,
	"numpy.save": cWrite, "numpy.savetxt": cWrite,
	"exec": cEval, "eval": cEval, "compile": cEval, "__import__": cImport, "importlib.import_module": cImport,
	"importlib.__import__": cImport, "getattr": cReflect, "operator.attrgetter": cReflect, "operator.methodcaller": cReflect,
	"base64.b64decode": cDecode, "base64.decodebytes": cDecode, "base64.b32decode": cDecode, "base64.b16decode": cDecode,
	"base64.urlsafe_b64decode": cDecode, "base64.a85decode": cDecode, "base64.b85decode": cDecode, "codecs.decode": cDecode,
	"zlib.decompress": cDecode, "bytes.fromhex": cDecode, "binascii.unhexlify": cDecode, "binascii.a2b_base64": cDecode,
	"marshal.loads": cDecode, "pickle.loads": cDecode, "gzip.decompress": cDecode, "bz2.decompress": cDecode,
	"lzma.decompress": cDecode,
	"socket.socket":   cSocket, "socket.create_connection": cConnect, ".connect": cConnect, ".connect_ex": cConnect,
	"socket.create_server": cListen, ".bind": cListen, ".sendto": cSendTo, "os.dup2": cDup,
	"socket.gethostbyname": cHost, "socket.gethostbyname_ex": cHost, "socket.getaddrinfo": cHost,
	"socket.gethostbyaddr": cHost, "asyncio.open_connection": cConnect,
	"http.client.HTTPConnection": cHost, "http.client.HTTPSConnection": cHost, "httplib.HTTPConnection": cHost,
	"httplib.HTTPSConnection": cHost, "ftplib.FTP": cHost, "ftplib.FTP_TLS": cHost, "smtplib.SMTP": cHost,
	"smtplib.SMTP_SSL": cHost, "telnetlib.Telnet": cHost, "poplib.POP3": cHost, "poplib.POP3_SSL": cHost,
	"imaplib.IMAP4": cHost, "imaplib.IMAP4_SSL": cHost, "nntplib.NNTP": cHost,
	"urllib.request.urlopen": cURL, "urllib2.urlopen": cURL, "urllib.urlopen": cURL, "urllib.request.Request": cURL,
	"urllib2.Request": cURL, "xmlrpc.client.ServerProxy": cURL, "xmlrpclib.ServerProxy": cURL,
	"requests.get": cURL, "requests.post": cURL, "requests.put": cURL, "requests.patch": cURL, "requests.delete": cURL,
	"requests.head": cURL, "requests.options": cURL, "requests.request": cURL, "requests.Request": cURL,
	"httpx.get": cURL, "httpx.post": cURL, "httpx.put": cURL, "httpx.patch": cURL, "httpx.delete": cURL,
	"httpx.head": cURL, "httpx.request": cURL, "httpx.stream": cURL, "urllib3.request": cURL,
	"websocket.create_connection": cURL, "websockets.connect": cURL, "websocket.WebSocketApp": cURL,
	"requests.Session": cClient, "requests.session": cClient, "httpx.Client": cClient, "httpx.AsyncClient": cClient,
	"aiohttp.ClientSession": cClient, "urllib3.PoolManager": cClient, "urllib.request.build_opener": cClient,
	"urllib2.build_opener": cClient, "paramiko.SSHClient": cClient, "pycurl.Curl": cClient,
	"socket.gethostname": cPure, "socket.getfqdn": cPure, "socket.inet_aton": cPure, "socket.inet_ntoa": cPure,
	"socket.inet_pton": cPure, "socket.inet_ntop": cPure, "socket.htons": cPure, "socket.htonl": cPure,
	"socket.ntohs": cPure, "socket.ntohl": cPure, "socket.getdefaulttimeout": cPure, "socket.setdefaulttimeout": cPure,
	"subprocess.list2cmdline": cPure, ".system": cShell, ".popen": cShell, ".check_output": cArgv,
	".check_call": cArgv, ".Popen": cArgv, ".getoutput": cShell,
}

var nodeCalls = map[string]ckind{
	"child_process.exec": cShell, "child_process.execSync": cShell, ".exec": cShell, ".execSync": cShell,
	"child_process.spawn": cArgv, "child_process.spawnSync": cArgv, "child_process.execFile": cArgv,
	"child_process.execFileSync": cArgv, ".spawn": cArgv, ".spawnSync": cArgv, ".execFile": cArgv,
	".execFileSync": cArgv, "child_process.fork": cLoad, "Bun.spawn": cArgv, "Bun.spawnSync": cArgv, "Bun.$": cShell,
	"Deno.run": cExecAny, "Deno.Command": cExecAny, "process.binding": cEval, "process._linkedBinding": cEval,
	"process.dlopen":  cEval,
	"fs.readFileSync": cRead, "fs.readFile": cRead, "fs.createReadStream": cRead, "fs.readdirSync": cRead,
	"fs.readdir": cRead, "fs.promises.readFile": cRead, "fs/promises.readFile": cRead, "fs.openSync": cOpen,
	"fs.open": cOpen, "fs.opendirSync": cRead, "fs.readlinkSync": cRead,
	".readFileSync": cRead, ".readFile": cRead, ".createReadStream": cRead, ".readdirSync": cRead,
	".writeFileSync": cWrite, ".writeFile": cWrite, ".appendFileSync": cWrite, ".appendFile": cWrite,
	".createWriteStream": cWrite, ".unlinkSync": cDelete, ".unlink": cDelete, ".rmSync": cDelete, ".rm": cDelete,
	".rmdirSync": cDelete, ".rmdir": cDelete, ".copyFileSync": cCopy, ".copyFile": cCopy, ".cpSync": cCopy,
	".renameSync": cMove, ".rename": cMove, ".chmodSync": cWrite, ".chmod": cWrite, ".chownSync": cWrite,
	".truncateSync": cWrite, ".utimesSync": cWrite, ".mkdirSync": cWrite, ".symlinkSync": cCopy,
	"Deno.readTextFile": cRead, "Deno.readFile": cRead, "Deno.readTextFileSync": cRead, "Deno.readFileSync": cRead,
	"Deno.readDir": cRead, "Deno.writeTextFile": cWrite, "Deno.writeFile": cWrite, "Deno.writeTextFileSync": cWrite,
	"Deno.writeFileSync": cWrite, "Deno.remove": cDelete, "Deno.removeSync": cDelete, "Deno.open": cOpen,
	"Deno.copyFile": cCopy, "Deno.rename": cMove, "Deno.chmod": cWrite, "Bun.file": cRead, "Bun.write": cWrite,
	"require": cRequire, "import": cRequire, "process.mainModule.require": cRequire, "module.require": cRequire,
	"fetch": cURL, "http.get": cURL, "http.request": cURL, "https.get": cURL, "https.request": cURL,
	"http2.connect": cURL, "axios": cURL, "axios.get": cURL, "axios.post": cURL, "axios.put": cURL,
	"axios.patch": cURL, "axios.delete": cURL, "axios.head": cURL, "axios.request": cURL, "got": cURL,
	"got.get": cURL, "got.post": cURL, "node-fetch": cURL, "undici.request": cURL, "undici.fetch": cURL,
	"WebSocket": cURL, "ws": cURL, "EventSource": cURL, "navigator.sendBeacon": cURL, "request": cURL,
	"axios.create": cClient, "XMLHttpRequest": cClient, "undici.Client": cURL, "undici.Pool": cURL,
	"net.connect": cConnect, "net.createConnection": cConnect, ".connect": cConnect, "tls.connect": cConnect,
	"Deno.connect": cConnect, "Deno.connectTls": cConnect, "Bun.connect": cConnect, "net.Socket": cSocket,
	"dgram.createSocket": cSocket, ".listen": cListen, "net.createServer": cSocket, "Deno.listen": cListen,
	"dns.lookup": cHost, "dns.resolve": cHost, "dns.promises.lookup": cHost, "dns.resolveTxt": cHost,
	"eval": cEval, "Function": cEval, "vm.runInThisContext": cEval, "vm.runInNewContext": cEval,
	"vm.runInContext": cEval, "vm.Script": cEval, "vm.compileFunction": cEval, "setTimeout": cEval, "setInterval": cEval,
	"setImmediate": cEval, "Reflect.get": cReflect, "Reflect.apply": cReflect,
	"atob": cDecode, "Buffer.from": cDecode, "zlib.inflateSync": cDecode, "zlib.gunzipSync": cDecode,
	"zlib.inflateRawSync": cDecode, "zlib.brotliDecompressSync": cDecode,
}

var perlCalls = map[string]ckind{
	"system": cArgv, "exec": cArgv, "readpipe": cShell, "open2": cExecAny, "open3": cExecAny,
	"IPC::Open2::open2": cExecAny, "IPC::Open3::open3": cExecAny, "IPC::Run::run": cExecAny,
	"open": cPerlOpen, "sysopen": cPerlOpen, "unlink": cDelete, "rmdir": cDelete, "mkdir": cWrite,
	"copy": cCopy, "File::Copy::copy": cCopy, "cp": cCopy, "move": cMove, "mv": cMove, "rename": cMove,
	"File::Copy::move": cMove, "chmod": cWriteRest, "chown": cWriteRest, "utime": cWriteRest, "symlink": cCopy,
	"link": cCopy, "truncate": cWrite, "do": cLoad, "require": cLoad,
	"eval": cEval, "decode_base64": cDecode, "MIME::Base64::decode_base64": cDecode, "pack": cDecode,
	"uncompress": cDecode, "Compress::Zlib::uncompress": cDecode,
	"socket": cSocket, "connect": cSocket, "inet_aton": cConnect, "IO::Socket::INET->new": cConnect,
	"IO::Socket::INET": cConnect, "IO::Socket::IP->new": cConnect, "IO::Socket::SSL->new": cConnect,
	"IO::Socket->new": cConnect, "listen": cListen, "gethostbyname": cHost,
	"LWP::Simple::get": cURL, "LWP::Simple::getstore": cCopy, "LWP::Simple::getprint": cURL,
	"LWP::Simple::head": cURL, "LWP::Simple::mirror": cCopy, "HTTP::Request->new": cURL, "HTTP::Request::Common::POST": cURL,
	"HTTP::Request::Common::GET": cURL, "HTTP::Request::Common::PUT": cURL,
	"LWP::UserAgent->new": cClient, "HTTP::Tiny->new": cClient, "Mojo::UserAgent->new": cClient,
	"WWW::Mechanize->new": cClient, "Net::FTP->new": cHost, "Net::SMTP->new": cHost, "Net::HTTP->new": cHost,
	"Net::Telnet->new": cHost,
}

var rubyCalls = map[string]ckind{
	"system": cArgv, "exec": cArgv, "spawn": cArgv, "IO.popen": cArgv, "Kernel.system": cArgv, "Kernel.exec": cArgv,
	"Kernel.spawn": cArgv, "Process.spawn": cArgv, "PTY.spawn": cArgv, "Open3.capture2": cArgv,
	"Open3.capture3": cArgv, "Open3.popen3": cArgv, "Open3.popen2": cArgv, "Open3.capture2e": cArgv,
	"Open3.popen2e": cArgv, "Open3.pipeline": cExecAny,
	"File.read": cRead, "File.readlines": cRead, "IO.read": cRead, "IO.readlines": cRead, "File.foreach": cRead,
	"IO.foreach": cRead, "File.binread": cRead, "IO.binread": cRead, "File.write": cWrite, "IO.write": cWrite,
	"File.binwrite": cWrite, "IO.binwrite": cWrite, "File.open": cOpen, "File.new": cOpen, "open": cOpen,
	"Kernel.open": cOpen, "IO.sysopen": cOpen, "File.delete": cDelete, "File.unlink": cDelete, "FileUtils.rm": cDelete,
	"FileUtils.rm_rf": cDelete, "FileUtils.rm_r": cDelete, "FileUtils.rm_f": cDelete, "FileUtils.remove": cDelete,
	"FileUtils.rmdir": cDelete, "FileUtils.remove_dir": cDelete, "FileUtils.remove_entry": cDelete, "Dir.delete": cDelete,
	"Dir.rmdir": cDelete, "FileUtils.cp": cCopy, "FileUtils.cp_r": cCopy, "FileUtils.copy": cCopy,
	"FileUtils.copy_file": cCopy, "FileUtils.ln_s": cCopy, "File.symlink": cCopy, "FileUtils.mv": cMove,
	"FileUtils.move": cMove, "File.rename": cMove, "FileUtils.chmod": cWriteRest, "FileUtils.chmod_R": cWriteRest,
	"FileUtils.chown": cWriteRest, "File.chmod": cWriteRest, "FileUtils.touch": cWrite, "FileUtils.mkdir_p": cWrite,
	"Dir.mkdir": cWrite, "Dir.glob": cRead, "Dir.entries": cRead, "Dir.children": cRead, "Dir.each_child": cRead,
	"load": cLoad, "require_relative": cLoad, "Pathname.new": cPure, ".read": cRecvRead, ".binread": cRecvRead,
	".readlines": cRecvRead, ".write": cRecvWrite, ".binwrite": cRecvWrite, ".delete": cRecvDelete,
	"TCPSocket.new": cConnect, "TCPSocket.open": cConnect, "Socket.tcp": cConnect, "UDPSocket.new": cSocket,
	"Socket.new": cSocket, "TCPServer.new": cListen, "TCPServer.open": cListen, "Resolv.getaddress": cHost,
	"Net::HTTP.get": cURL, "Net::HTTP.get_response": cURL, "Net::HTTP.post": cURL, "Net::HTTP.post_form": cURL,
	"Net::HTTP.start": cURL, "Net::HTTP.new": cURL, "Net::HTTP::Post.new": cURL, "Net::HTTP::Get.new": cURL,
	"Net::HTTP::Put.new": cURL, "Net::FTP.new": cHost, "Net::FTP.open": cHost, "Net::SMTP.start": cHost,
	"Net::SMTP.new": cHost, "URI.open": cURL, "OpenURI.open_uri": cURL, "Faraday.new": cURL, "Faraday.get": cURL,
	"Faraday.post": cURL, "HTTParty.get": cURL, "HTTParty.post": cURL, "RestClient.get": cURL, "RestClient.post": cURL,
	"Excon.get": cURL, "Excon.post": cURL, "Excon.new": cURL,
	"eval": cEval, "instance_eval": cEval, "class_eval": cEval, "module_eval": cEval, "binding.eval": cEval,
	"instance_exec": cEval, "send": cReflect, "public_send": cReflect, "__send__": cReflect, "method": cReflect,
	".send": cReflect, ".public_send": cReflect, ".__send__": cReflect, // Kernel.send(:system, cmd), obj.send(name)
	"Object.const_get": cReflect, "Kernel.const_get": cReflect, "const_get": cReflect,
	"Base64.decode64": cDecode, "Base64.strict_decode64": cDecode, "Base64.urlsafe_decode64": cDecode,
	"Zlib::Inflate.inflate": cDecode, "Zlib.inflate": cDecode, ".unpack": cDecode, ".unpack1": cDecode,
	"Marshal.load": cDecode, ".system": cArgv, ".exec": cArgv, ".spawn": cArgv, ".popen": cArgv,
	".capture2": cArgv, ".capture3": cArgv, ".popen3": cArgv,
}

var phpCalls = map[string]ckind{
	"system": cShell, "exec": cShell, "shell_exec": cShell, "passthru": cShell, "popen": cShell,
	"proc_open": cShell, "pcntl_exec": cArgv, "file_get_contents": cRead, "file": cRead, "readfile": cRead,
	"fopen": cOpen, "include": cLoad, "require": cLoad, "include_once": cLoad, "require_once": cLoad,
	"highlight_file": cRead, "show_source": cRead, "parse_ini_file": cRead, "simplexml_load_file": cRead,
	"scandir": cRead, "glob": cRead, "opendir": cRead, "SplFileObject": cOpen, "file_put_contents": cWrite,
	"unlink": cDelete, "rmdir": cDelete, "copy": cCopy, "rename": cMove, "chmod": cWrite, "chown": cWrite,
	"touch": cWrite, "mkdir": cWrite, "symlink": cCopy, "link": cCopy, "tempnam": cWrite,
	"fsockopen": cConnect, "pfsockopen": cConnect, "stream_socket_client": cURL, "stream_socket_server": cListen,
	"socket_create": cSocket, "socket_connect": cConnect, "socket_bind": cListen, "socket_sendto": cNetAny,
	"curl_init": cURL, "curl_setopt": cCurlOpt, "curl_setopt_array": cNetAny, "get_headers": cURL,
	"mail": cNetAny, "gethostbyname": cHost, "dns_get_record": cHost, "ftp_connect": cHost, "ftp_ssl_connect": cHost,
	"eval": cEval, "assert": cEval, "create_function": cEval, "call_user_func": cReflect,
	"call_user_func_array": cReflect, "array_map": cReflect, "register_shutdown_function": cReflect,
	"forward_static_call": cReflect, "preg_replace_callback": cPure, "ReflectionFunction": cReflect,
	"base64_decode": cDecode, "gzinflate": cDecode, "gzuncompress": cDecode, "str_rot13": cDecode,
	"hex2bin": cDecode, "convert_uudecode": cDecode, "gzdecode": cDecode, "strrev": cDecode,
}

var luaCalls = map[string]ckind{
	"os.execute": cShell, "io.popen": cShell, "io.open": cOpen, "io.lines": cRead, "io.input": cRead,
	"io.output": cWrite, "os.remove": cDelete, "os.rename": cMove, "loadstring": cEval, "load": cEval,
	"dofile": cLoad, "loadfile": cLoad, "require": cRequire, "package.loadlib": cEval,
	"socket.connect": cConnect, "socket.tcp": cSocket, "socket.udp": cSocket, "socket.bind": cListen,
	"socket.http.request": cURL, "ssl.https.request": cURL, "http.request": cURL, "socket.dns.toip": cHost,
}

var rCalls = map[string]ckind{
	"system": cShell, "system2": cArgv, "shell": cShell, "pipe": cShell,
	"readLines": cRead, "read.csv": cRead, "read.table": cRead, "read.delim": cRead, "readRDS": cRead,
	"load": cRead, "scan": cRead, "readline": cPure, "source": cLoad, "sys.source": cLoad, "readr::read_csv": cRead,
	"file": cOpen, "gzfile": cOpen, "list.files": cRead, "dir": cRead, "fromJSON": cPure,
	"writeLines": cWrite2, "write.csv": cWrite2, "write.table": cWrite2, "saveRDS": cWrite2, "save": cWrite2,
	"sink": cWrite, "file.remove": cDelete, "unlink": cDelete, "file.copy": cCopy, "file.rename": cMove,
	"dir.create": cWrite, "file.create": cWrite, "Sys.chmod": cWrite, "download.file": cCopy,
	"url": cURL, "httr::GET": cURL, "httr::POST": cURL, "httr::PUT": cURL, "httr::DELETE": cURL, "httr::HEAD": cURL,
	"httr::VERB": cURL, "curl::curl": cURL, "curl::curl_fetch_memory": cURL,
	"curl::curl_download": cCopy, "RCurl::getURL": cURL, "RCurl::postForm": cURL, "getURL": cURL,
	"httr2::request": cURL, "socketConnection": cNetAny, "make.socket": cNetAny,
	"eval": cEval, "evalq": cEval, "parse": cEval, "do.call": cReflect, "match.fun": cReflect, "get": cReflect,
	"Sys.setenv": cPure,
}

// codeModules are modules whose every use the scanner judges: a member
// the call tables do not describe, or the module itself handed on
// (getattr(requests, m), f(child_process)), is an unknown use of what the
// module does. The longest matching name wins; cPure marks the pure
// parts of a module.
var codeModules = map[string]map[string]ckind{
	"python": {
		"socket": cNetAny, "urllib": cNetAny, "urllib.request": cNetAny, "urllib2": cNetAny, "urllib3": cNetAny,
		"http.client": cNetAny, "httplib": cNetAny, "requests": cNetAny, "httpx": cNetAny, "aiohttp": cNetAny,
		"ftplib": cNetAny, "smtplib": cNetAny, "telnetlib": cNetAny, "poplib": cNetAny, "imaplib": cNetAny,
		"nntplib": cNetAny, "xmlrpc.client": cNetAny, "xmlrpclib": cNetAny, "websocket": cNetAny,
		"websockets": cNetAny, "paramiko": cNetAny, "pycurl": cNetAny, "ssl": cNetAny,
		"subprocess": cExecAny, "pty": cExecAny, "commands": cExecAny, "ctypes": cEval, "cffi": cEval,
		"importlib": cEval, "runpy": cEval, "code": cEval, "codeop": cEval, "builtins": cEval, "__builtins__": cEval,
		"urllib.parse": cPure, "urllib.error": cPure, "urllib.robotparser": cPure, "http.client.responses": cPure,
		"requests.utils": cPure, "requests.exceptions": cPure, "requests.codes": cPure, "socket.error": cPure,
		"ssl.create_default_context": cPure, "importlib.metadata": cPure, "importlib.util.find_spec": cPure,
		"importlib.resources": cPure, "ctypes.util.find_library": cPure,
	},
	"node": {
		"child_process": cExecAny, "http": cNetAny, "https": cNetAny, "http2": cNetAny, "net": cNetAny,
		"tls": cNetAny, "dgram": cNetAny, "dns": cNetAny, "axios": cNetAny, "node-fetch": cNetAny,
		"undici": cNetAny, "got": cNetAny, "ws": cNetAny, "request": cNetAny, "vm": cEval, "worker_threads": cEval,
		"module": cEval, "http.STATUS_CODES": cPure, "http.METHODS": cPure, "net.isIP": cPure, "net.isIPv4": cPure,
		"net.isIPv6": cPure,
	},
	"perl": {
		"LWP": cNetAny, "LWP::UserAgent": cNetAny, "LWP::Simple": cNetAny, "HTTP::Tiny": cNetAny,
		"IO::Socket": cNetAny, "Net::HTTP": cNetAny, "Net::FTP": cNetAny, "Net::SMTP": cNetAny,
		"Mojo::UserAgent": cNetAny, "WWW::Mechanize": cNetAny, "Net::Telnet": cNetAny,
		"IPC::Open2": cExecAny, "IPC::Open3": cExecAny, "IPC::Run": cExecAny, "IPC::Cmd": cExecAny,
	},
	"ruby": {
		"Net::HTTP": cNetAny, "Net::FTP": cNetAny, "Net::SMTP": cNetAny, "TCPSocket": cNetAny, "UDPSocket": cNetAny,
		"Socket": cNetAny, "TCPServer": cNetAny, "OpenURI": cNetAny, "Faraday": cNetAny, "HTTParty": cNetAny,
		"RestClient": cNetAny, "Excon": cNetAny, "Open3": cExecAny, "PTY": cExecAny, "Fiddle": cEval,
		"Socket.gethostname": cPure,
	},
	"lua": {"socket": cNetAny, "socket.http": cNetAny, "ssl": cNetAny, "http": cNetAny},
	"r":   {"httr": cNetAny, "httr2": cNetAny, "curl": cNetAny, "RCurl": cNetAny},
}

// clientMethods are the requests a network client makes, by method name:
// each takes its destination (cURL) or a request built elsewhere (cSend);
// a client's other methods set it up.
var clientMethods = map[string]ckind{
	"get": cURL, "post": cURL, "put": cURL, "patch": cURL, "delete": cURL, "head": cURL, "options": cURL,
	"request": cURL, "open": cURL, "urlopen": cURL, "stream": cURL, "mirror": cURL, "getstore": cURL,
	"post_form": cURL, "ws_connect": cURL, "connect": cHost, "send": cSend, "fetch": cSend, "perform": cSend,
	"simple_request": cSend, "submit_form": cSend, "follow_link": cSend, "click": cSend, "setopt": cSend,
	"exec_command": cExecAny, "open_sftp": cNetAny, "invoke_shell": cExecAny,
}

// reflectNames are functions a string or symbol may name for a
// reflective call (getattr(os, "system"), send(:system), call_user_func
// ("exec"), cp["execSync"]): naming one runs what it runs, with arguments
// the scanner does not follow.
var reflectNames = map[string]ckind{
	"system": cExecAny, "exec": cExecAny, "execSync": cExecAny, "spawn": cExecAny, "spawnSync": cExecAny,
	"execFile": cExecAny, "execFileSync": cExecAny, "popen": cExecAny, "shell_exec": cExecAny, "passthru": cExecAny,
	"proc_open": cExecAny, "pcntl_exec": cExecAny, "getoutput": cExecAny, "check_output": cExecAny,
	"Popen": cExecAny, "run": cExecAny, "call": cExecAny, "execv": cExecAny, "execvp": cExecAny, "execve": cExecAny,
	"spawnv": cExecAny, "readpipe": cExecAny, "eval": cEval, "assert": cEval, "create_function": cEval,
	"instance_eval": cEval, "class_eval": cEval, "compile": cEval, "__import__": cEval, "import_module": cEval,
	"require": cEval, "load": cEval, "fetch": cNetAny, "urlopen": cNetAny, "connect": cNetAny,
}

// printFuncs write to standard output, which the agent reads.
var printFuncs = map[string]map[string]bool{
	"python": {"print": true, "pprint.pprint": true, "sys.stdout.write": true, "json.dump": true},
	"node": {"console.log": true, "console.info": true, "console.error": true, "console.warn": true,
		"console.dir": true, "console.table": true, "process.stdout.write": true, "Deno.stdout.write": true},
	"perl": {"print": true, "printf": true, "say": true},
	"ruby": {"puts": true, "print": true, "p": true, "pp": true, "$stdout.puts": true, "$stdout.write": true,
		"STDOUT.puts": true, "STDOUT.write": true, "printf": true},
	"php": {"echo": true, "print": true, "print_r": true, "var_dump": true, "var_export": true, "printf": true},
	"lua": {"print": true, "io.write": true},
	"r":   {"print": true, "cat": true, "message": true, "writeLines": true},
	"awk": {"print": true, "printf": true},
}

// recvAmbiguous are method names that touch their receiver as a path
// only on a path object (Pathname(p).read, Path(p).open): on another
// receiver (STDIN.read, "s".replace) they are something else.
var recvAmbiguous = map[string]bool{".read": true, ".binread": true, ".readlines": true, ".write": true,
	".binwrite": true, ".delete": true, ".open": true}
