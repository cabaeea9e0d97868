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
