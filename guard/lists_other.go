//go:build !linux && !darwin

package guard

// foldCase: assume case-sensitive names (BSDs and other Unix systems).
const foldCase = false

// privateRoots: no /private aliases.
var privateRoots []string

// homeEntriesOS adds nothing here.
var homeEntriesOS []entry

// systemEntries is a conservative Unix fallback.
var systemEntries = append([]entry{
	{path: "/etc/shadow", level: Restricted, what: catShadow},
	{path: "/etc/master.passwd", level: Restricted, what: catShadow},
	{path: "/etc/spwd.db", level: Restricted, what: catShadow},
	{path: "/etc/sudoers", level: Restricted, what: catSudo},
	{path: "/etc/sudoers.d", level: Restricted, what: catSudo},
	{path: "/usr/local/etc/sudoers", level: Restricted, what: catSudo},
	{path: "/usr/local/etc/sudoers.d", level: Restricted, what: catSudo},
	{path: "/etc/ssh", level: Restricted, what: catSSHHost, pub: true},
	{path: "/root", level: Restricted, what: catRoot},
	{path: "/dev/mem", level: Restricted, what: catKernelMem},
	{path: "/dev/kmem", level: Restricted, what: catKernelMem},
	{path: "/dev/tcp", level: Restricted, what: catNetDev},
	{path: "/dev/udp", level: Restricted, what: catNetDev},

	{path: "/etc/hosts", level: Protected, what: catSystem},
	{path: "/etc/passwd", level: Protected, what: catSystem},
	{path: "/etc/group", level: Protected, what: catSystem},
	{path: "/etc/fstab", level: Protected, what: catSystem},
	{path: "/etc/resolv.conf", level: Protected, what: catSystem},
	{path: "/etc/profile", level: Protected, what: catShellRC},
	{path: "/etc/pam.d", level: Protected, what: catAuth},
	{path: "/etc/crontab", level: Protected, what: catCron},
	{path: "/var/cron", level: Protected, what: catCron},
	{path: "/var/spool/cron", level: Protected, what: catCron},
	{path: "/etc/rc.conf", level: Protected, what: catAutostart},
	{path: "/etc/rc.d", level: Protected, what: catAutostart},
	{path: "/etc/rc.local", level: Protected, what: catAutostart},
	{path: "/usr/local/etc/rc.d", level: Protected, what: catAutostart},
	{path: "/etc/sysctl.conf", level: Protected, what: catKernel},
	{path: "/boot", level: Protected, what: catBoot},

	{path: "/dev", level: Protected, what: catDevices},
}, harmlessDevices...)
