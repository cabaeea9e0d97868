package shell

// This file is the contract between the analyser core (walk.go, word.go,
// call.go, ...) and the knowledge base of programs (kb_*.go). The core
// resolves each simple command to a name and words, finds its Program in
// the knowledge base, and interprets the Program's table; Check functions
// cover what a table cannot say, through the methods of Call.

// Role is what an argument means to a program.
type Role uint8

// Argument roles.
const (
	RoleNone      Role = iota // a plain value: pattern, number, name, mode
	RoleRead                  // a path the program reads
	RoleWrite                 // a path the program creates or overwrites
	RoleDelete                // a path the program deletes
	RoleReadWrite             // a path edited in place
	RoleURL                   // a URL the program talks to
	RoleHost                  // a host: "host", "user@host", "host:port"
	RoleRemote                // scp/rsync operand: "[user@]host:path" is remote, otherwise a local path
	RoleCode                  // inline code in the program's own language (Program.Lang)
	RoleShellCode             // a shell script string (sh -c, watch, ssh's remote command)
	RoleCommand               // this word and all after it are a command to run (sudo, env, timeout)
	RoleScript                // a file whose code the program runs (python x.py, bash x.sh)
	RoleDir                   // a directory the program works in (-C DIR): read, and becomes cwd
	RoleMkdir                 // a directory the program creates empty (mkdir): a write with PathUse.Mkdir
	// RoleOperand is an argument the knowledge base does not describe: a
	// path-like word (see looksLikeOperand) is a read, a URL a destination,
	// anything else a plain value. The core gives it, in place of
	// RoleNone, to the operands of a subcommand the table does not list
	// (git frobnicate ~/.ssh/id_rsa), to the word after an option it does
	// not list (git show --unknown ~/.ssh/id_rsa) and to the value of an
	// unknown "--option=VALUE": what the knowledge base does not know is
	// not taken as harmless.
	RoleOperand
)

// Flag describes one option.
type Flag struct {
	// Value is set when the flag takes an argument ("-o FILE",
	// "--output=FILE", "-oFILE"); Role is then the argument's role.
	Value bool
	Role  Role
	// Tags are produced whenever the flag is present (e.g. git push
	// --force → TagForcePush, tar --checkpoint-action → TagCodeEscape).
	Tags []TagKind
}

// Program is what the knowledge base knows about one program (or one
// subcommand of it).
type Program struct {
	// Flags maps spellings ("-o", "--output") to their meaning. Unknown
	// flags are taken as booleans, but the value of "--unknown=VALUE" and
	// a plain operand right after an unknown flag are RoleOperand (the
	// flag may take it as its value); combined short flags ("-rf") are
	// split by the core when every letter is a known boolean.
	Flags map[string]Flag
	// Args gives the roles of positional arguments in order; Rest is the
	// role of every positional argument after those.
	Args []Role
	Rest Role
	// Sub maps the first positional argument to a subcommand's Program
	// (git push, docker run, kubectl delete). A subcommand not listed is
	// judged by SubDefault when set, else by this Program; either way its
	// RoleNone operands become RoleOperand (the table does not describe
	// them), at every depth below it.
	Sub        map[string]*Program
	SubDefault *Program
	// Tags are produced every time the program runs (mkfs → TagFilesystemFormat).
	Tags []TagKind
	// Network is set for programs that talk to the network; URL and Host
	// arguments become NetDest entries, and stdin piped into such a
	// program becomes a Flow.
	Network bool
	// Upload is set when the program sends local data to its destination
	// (scp to a remote, curl -T, nc): read paths and stdin become Flows.
	Upload bool
	// Lang names the language of RoleCode and RoleScript arguments and of
	// code fed on stdin: "sh", "python", "perl", "ruby", "node", "php",
	// "awk", "lua", "sql", ... "" means stdin is data, not code.
	Lang string
	// StdinCode is set when code arrives on stdin if no script or inline
	// code is given (sh, bash, python, perl, node).
	StdinCode bool
	// OptionsFirst is set for programs whose options end at the first
	// operand, because what follows is another command's argv (xargs,
	// parallel): "xargs ls -la" must not read -la as xargs's own.
	OptionsFirst bool
	// NoContent is set for programs whose output reveals no file
	// content, whatever their options: digests and metadata (md5sum,
	// stat, ls, df). An operand such a program only reads that is known
	// only at run time is not opaque: the worst case is a hash or a size
	// of a file, never its bytes. (file, wc, du and tree are not such
	// programs: file prints parts of content, and their -f/--files0-from/
	// --fromfile options print the lines of any file as names.)
	NoContent bool
	// Check runs after the table was applied, for what it cannot express.
	Check func(c *Call)
}
