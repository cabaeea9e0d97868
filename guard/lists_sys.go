package guard

// Categories of the system tables (lists_<os>.go).
const (
	catShadow    = "password hashes"
	catSudo      = "sudo rules"
	catSSHHost   = "SSH host keys and server configuration"
	catRoot      = "the root user's files"
	catKernelMem = "kernel memory devices"
	catNetDev    = "shell network pseudo-devices"
	catSystem    = "system configuration files"
	catLoader    = "dynamic loader settings"
	catAuth      = "authentication (PAM) settings"
	catCron      = "scheduled jobs"
	catPackages  = "package manager sources"
	catKernel    = "kernel settings"
	catBoot      = "boot files"
	catDevices   = "device files"
	catKeychain  = "keychains"
)

// harmlessDevices are exceptions under the protected /dev on every OS:
// reading and writing them is routine (2>/dev/null, /dev/urandom).
var harmlessDevices = []entry{
	{path: "/dev/null", level: None},
	{path: "/dev/zero", level: None},
	{path: "/dev/full", level: None},
	{path: "/dev/random", level: None},
	{path: "/dev/urandom", level: None},
	{path: "/dev/tty", level: None},
	{path: "/dev/stdin", level: None},
	{path: "/dev/stdout", level: None},
	{path: "/dev/stderr", level: None},
}
