package shell

// kbAliases maps other names of a program to the name its entry is
// under: versioned interpreters, Debian alternatives, GNU tools with the
// "g" prefix Homebrew gives them.
var kbAliases = map[string]string{
	"python3.6": "python", "python3.7": "python", "python3.8": "python", "python3.9": "python",
	"python3.10": "python", "python3.11": "python", "python3.12": "python", "python3.13": "python",
	"python2.7": "python", "pip3.8": "pip", "pip3.9": "pip", "pip3.10": "pip", "pip3.11": "pip", "pip3.12": "pip",
	"perl5": "perl", "ruby3": "ruby", "php7": "php", "php8": "php", "lua5.1": "lua", "lua5.3": "lua", "lua5.4": "lua",
	"vim.tiny": "vim", "vim.basic": "vim", "nc.openbsd": "nc", "nc.traditional": "nc",
	"gls": "ls", "gcp": "cp", "gmv": "mv", "grm": "rm", "gdate": "date", "gstat": "stat", "gsort": "sort",
	"ghead": "head", "gtail": "tail", "gwc": "wc", "gcut": "cut", "gtr": "tr", "greadlink": "readlink",
	"grealpath": "realpath", "gdu": "du", "gxargs": "xargs", "gmkdir": "mkdir", "gln": "ln", "gtouch": "touch",
	"gchmod": "chmod", "gcat": "cat", "gtee": "tee", "gsplit": "split", "guniq": "uniq", "gshuf": "shuf",
	"gmd5sum": "md5sum", "gsha256sum": "sha256sum", "gbase64": "base64", "gdd": "dd", "ginstall": "install",
	"gnumfmt": "numfmt", "gseq": "seq", "gprintf": "printf", "gecho": "echo", "genv": "env", "gnohup": "nohup",
	"docker.io": "docker", "podman-remote": "podman", "kubectl.exe": "kubectl",
	"mawk1": "awk", "busybox.static": "busybox", "bsdcpio": "cpio", "bsdunzip": "unzip",
	"x86_64-linux-gnu-gcc": "gcc", "gcc-12": "gcc", "gcc-13": "gcc", "g++-12": "g++", "clang-15": "clang",
	"nodejs18": "node", "tclsh8.6": "tclsh",
	"avconv": "ffmpeg", "avprobe": "ffprobe", "avplay": "ffplay", // libav's names for the same tools
}
