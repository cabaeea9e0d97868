package shell

import "github.com/parallax/parallax/action"

// PathUse is one path a command touches.
type PathUse struct {
	// Path is absolute and cleaned. When Glob is set it is a pattern
	// (shell glob syntax: * ? [..]) that may match many paths; consumers
	// must treat it as touching every sensitive path it could match.
	Path   string
	Access action.Access
	Glob   bool
	// Recursive marks a find-style path set (find's {} and -delete, the
	// files xargs receives from find or grep -l, a loop over $(find ...)).
	// Path is then a pattern whose "**" matches any run of characters,
	// "/" included, and whose wildcards also match names starting with a
	// dot: "ROOT/**" is ROOT and everything below it, "ROOT/**/*.txt" is
	// ROOT and what below it ends in ".txt". Recursive implies Glob.
	Recursive bool
	// Creates marks a recursive write ("ROOT/**", Recursive) whose set is
	// not limited to what exists: the program writes below ROOT content
	// the analysis cannot see (git checks out a commit or the index,
	// applies a stash or a patch, merges), so any path there may be
	// created, replaced or removed. Consumers must judge it against every
	// sensitive path below ROOT, existing or not. Creates implies
	// Recursive.
	Creates bool
	// Mkdir marks a write that creates a directory, empty (mkdir): it
	// puts no content in place. Set only for a literal path.
	Mkdir bool
	// Select narrows a recursive set (Recursive) beyond its pattern: what
	// find's expression, grep's filters and the consumer's search select
	// and show (see Selection). nil selects everything the pattern does.
	Select  *Selection
	Program string // the program that touches it ("" for a redirect)
	// Split marks a path reached only through a piece of a name split by
	// the channel that carried a listing to the program (xargs without
	// -0, an unquoted $(...), read): "./z .. q.tmp" gives rm -r "..".
	// The remedy is a channel that does not split (find -print0 | xargs
	// -0, find -exec CMD {} +, find -delete).
	Split bool
}

// Exec is one program the command runs.
type Exec struct {
	Name  string   // base name as resolved ("python3", "rm"); "" when dynamic
	Path  string   // the path as written when it contains a slash
	Args  []string // resolved arguments (unresolvable ones as "")
	Depth int      // nesting depth: 0 top level, 1 inside sh -c, ...
}

// NetDest is a network destination a program talks to.
type NetDest struct {
	Program string
	Host    string // lowercased host or IP literal as written; "" when unknown
	Port    string
	URL     string // the full URL when one was given
	Listen  bool   // the program listens (bind) rather than connects
	Upload  bool   // the program sends local data (POST body, -T, scp to remote)
}

// SourceKind says where data in a flow comes from.
type SourceKind uint8

// Flow sources.
const (
	SourceFile    SourceKind = iota // a file's content
	SourceEnv                       // an environment variable's value
	SourceCommand                   // the output of a command (env, printenv, history, ...)
	SourceSecret                    // a literal that looks like a secret
)

// Flow is data moving from a source into a network-facing program.
type Flow struct {
	Kind    SourceKind
	Source  string // path, variable name or program
	Program string // the network program receiving it
	Host    string // its destination host when known
}

// TagKind is a named fact the analyser found. Tags are the vocabulary the
// heuristics judge; the analyser only states facts.
type TagKind uint16

// Tag kinds. Keep tagNames in sync.
const (
	TagDownloadExec     TagKind = iota // data fetched from the network is executed
	TagDecodedExec                     // decoded/deobfuscated data is executed
	TagReverseShell                    // a shell or interpreter is wired to a network socket
	TagBindShell                       // a shell is served on a listening socket
	TagCodeEscape                      // a flag or argument makes a program run code (GTFOBins)
	TagPrivilege                       // privilege change: sudo, su, setuid bits, capabilities
	TagPersistence                     // something will run again later: cron, systemd, rc, autostart, hooks
	TagDestructive                     // broad destruction: rm -rf of /, ~, system dirs; shred; wipefs
	TagDeviceWrite                     // writes to a block device or raw memory
	TagFilesystemFormat                // mkfs, fdisk and friends
	TagForkBomb                        // self-replicating function
	TagHistoryWipe                     // shell history cleared or disabled
	TagLogTamper                       // logs truncated or deleted, journal vacuumed
	TagSecurityOff                     // firewall, SELinux, AppArmor, auditd disabled
	TagObfuscation                     // decoding layers, $IFS tricks, escapes hiding a name
	TagDynamicCommand                  // command name not resolvable statically
	TagEval                            // eval / sh -c of a string the analyser could not resolve
	TagForcePush                       // git push --force / +refspec / --mirror / --delete
	TagInfraTeardown                   // terraform destroy, kubectl delete ns, cloud deletes
	TagContainerEscape                 // docker -v /:/host, --privileged, --pid=host, nsenter
	TagPackageSource                   // package source other than the default registry
	TagPackageInstall                  // packages installed (runs install scripts)
	TagUnknownProgram                  // a program the knowledge base does not know
	TagOpaque                          // something the analyser could not resolve
	TagRemoteExec                      // a command runs on another machine (ssh host cmd)
	TagCredentialSearch                // searching the disk for secrets
	TagSystemChange                    // shutdown, mount, sysctl, iptables rule, user add, kill all
	TagNetworkScan                     // port scans, network sweeps
	TagLimitExceeded                   // size or depth bound hit: result incomplete
	TagTimestomp                       // file times set from a date or another file (touch -r, -d, -t)
	TagMalformed                       // the command is not valid shell, and bash refuses it as well
	tagCount
)

var tagNames = [tagCount]string{
	"download_exec", "decoded_exec", "reverse_shell", "bind_shell", "code_escape",
	"privilege", "persistence", "destructive", "device_write", "filesystem_format",
	"fork_bomb", "history_wipe", "log_tamper", "security_off", "obfuscation",
	"dynamic_command", "eval", "force_push", "infra_teardown", "container_escape",
	"package_source", "package_install", "unknown_program", "opaque", "remote_exec",
	"credential_search", "system_change", "network_scan", "limit_exceeded", "timestomp",
	"malformed",
}

// String names the tag kind (stable; used in reasons and golden files).
func (k TagKind) String() string {
	if k < tagCount {
		return tagNames[k]
	}
	return "unknown_tag"
}

// Tag is one fact with the program it concerns and a short detail
// (never a secret value).
type Tag struct {
	Kind    TagKind
	Program string
	Detail  string
}

// Effects is what a command does, as far as static analysis can tell.
type Effects struct {
	Paths   []PathUse
	Execs   []Exec
	Network []NetDest
	Flows   []Flow
	Tags    []Tag
	// Downloads are the paths written with data fetched from the network
	// (curl -o, wget -O, a redirect of a download). A later action that
	// runs one of them runs downloaded code.
	Downloads []string
	// Printed are the environment variables whose value reaches the
	// command's standard output through programs that pass text on
	// (echo, printf, printenv NAME, cat, grep, tr, ...): the agent, and
	// the model behind it, read them. A value redirected to a file or
	// piped into a program that consumes it (docker login
	// --password-stdin) is not printed.
	Printed []string
	// EnvDump is set when the value of every environment variable
	// reaches standard output (env, printenv, set, export -p, declare -x,
	// whole or through a filter that can keep any of them); EnvNames when
	// only their names do (env | cut -d= -f1).
	EnvDump, EnvNames bool
	// Signals are the processes and services the command signals or
	// stops, each judged by where its target comes from (killtarget.go).
	Signals []Signal
	// Written is the text the command puts in files when the analysis
	// knows it: a redirect of echo, printf or a here-document (> or >>),
	// tee's files, and what a sed or perl in-place edit may insert. A
	// file written with text it cannot know is in Paths only. At most
	// MaxWritten entries.
	Written []WrittenText

	filters []string // names a case pattern or a [[ ]] test compares with (KillTargets)
}

// WrittenText is text a command writes to a file.
type WrittenText struct {
	Path   string // absolute
	Text   string
	Append bool // added at the end (>>, tee -a); else the file's whole content
	// Insert: Text is what an in-place edit (sed -i, perl -pi) may put
	// anywhere in the file — its program with the program's escapes
	// undone ("\n", "\t", "\/", "\$"), and for sed the text of its a, i
	// and c commands as lines of their own — not the file's content.
	Insert bool
}

// MaxWritten bounds Effects.Written.
const MaxWritten = 16

// Has reports whether a tag of kind k was found.
func (e *Effects) Has(k TagKind) bool {
	for _, t := range e.Tags {
		if t.Kind == k {
			return true
		}
	}
	return false
}

// Find returns the first tag of kind k.
func (e *Effects) Find(k TagKind) (Tag, bool) {
	for _, t := range e.Tags {
		if t.Kind == k {
			return t, true
		}
	}
	return Tag{}, false
}
