//go:build linux

package guard

// foldCase: Linux file names are case-sensitive.
const foldCase = false

// privateRoots: Linux has no /private aliases.
var privateRoots []string

// homeEntriesOS adds nothing on Linux.
var homeEntriesOS []entry

// systemEntries are the absolute paths protected on Linux. An entry of
// level None is an exception that ends the lookup (e.g. /dev/null under
// the protected /dev).
var systemEntries = append([]entry{
	{path: "/etc/shadow", level: Restricted, what: catShadow},
	{path: "/etc/shadow-", level: Restricted, what: catShadow},
	{path: "/var/run/secrets", level: Restricted, what: catCreds}, // Kubernetes service-account tokens
	{path: "/run/secrets", level: Restricted, what: catCreds},     // Docker and Kubernetes secrets
	{path: "/etc/gshadow", level: Restricted, what: catShadow},
	{path: "/etc/gshadow-", level: Restricted, what: catShadow},
	{path: "/etc/security/opasswd", level: Restricted, what: catShadow},
	{path: "/etc/sudoers", level: Restricted, what: catSudo},
	{path: "/etc/sudoers.d", level: Restricted, what: catSudo},
	{path: "/etc/ssh", level: Restricted, what: catSSHHost, pub: true},
	{path: "/etc/ssl/private", level: Restricted, what: catKeys},
	{path: "/root", level: Restricted, what: catRoot},
	{path: "/var/lib/sss", level: Restricted, what: catShadow},
	{path: "/dev/mem", level: Restricted, what: catKernelMem},
	{path: "/dev/kmem", level: Restricted, what: catKernelMem},
	{path: "/dev/port", level: Restricted, what: catKernelMem},
	{path: "/dev/tcp", level: Restricted, what: catNetDev},
	{path: "/dev/udp", level: Restricted, what: catNetDev},

	{path: "/etc/hosts", level: Protected, what: catSystem},
	{path: "/etc/passwd", level: Protected, what: catSystem},
	{path: "/etc/group", level: Protected, what: catSystem},
	{path: "/etc/fstab", level: Protected, what: catSystem},
	{path: "/etc/resolv.conf", level: Protected, what: catSystem},
	{path: "/etc/nsswitch.conf", level: Protected, what: catSystem},
	{path: "/etc/environment", level: Protected, what: catSystem},
	{path: "/etc/profile", level: Protected, what: catShellRC},
	{path: "/etc/profile.d", level: Protected, what: catShellRC},
	{path: "/etc/bash.bashrc", level: Protected, what: catShellRC},
	{path: "/etc/bashrc", level: Protected, what: catShellRC},
	{path: "/etc/zsh", level: Protected, what: catShellRC},
	{path: "/etc/ld.so.preload", level: Protected, what: catLoader},
	{path: "/etc/ld.so.conf", level: Protected, what: catLoader},
	{path: "/etc/ld.so.conf.d", level: Protected, what: catLoader},
	{path: "/etc/pam.d", level: Protected, what: catAuth},
	{path: "/etc/security", level: Protected, what: catAuth},
	{path: "/etc/crontab", level: Protected, what: catCron},
	{path: "/etc/cron.d", level: Protected, what: catCron},
	{path: "/etc/cron.hourly", level: Protected, what: catCron},
	{path: "/etc/cron.daily", level: Protected, what: catCron},
	{path: "/etc/cron.weekly", level: Protected, what: catCron},
	{path: "/etc/cron.monthly", level: Protected, what: catCron},
	{path: "/etc/cron.allow", level: Protected, what: catCron},
	{path: "/etc/cron.deny", level: Protected, what: catCron},
	{path: "/etc/anacrontab", level: Protected, what: catCron},
	{path: "/var/spool/cron", level: Protected, what: catCron},
	{path: "/var/spool/at", level: Protected, what: catCron},
	{path: "/etc/systemd", level: Protected, what: catAutostart},
	{path: "/lib/systemd/system", level: Protected, what: catAutostart},
	{path: "/usr/lib/systemd/system", level: Protected, what: catAutostart},
	{path: "/etc/init.d", level: Protected, what: catAutostart},
	{path: "/etc/init", level: Protected, what: catAutostart},
	{path: "/etc/rc.local", level: Protected, what: catAutostart},
	{path: "/etc/xdg/autostart", level: Protected, what: catAutostart},
	{path: "/etc/udev", level: Protected, what: catAutostart},
	{path: "/etc/apt", level: Protected, what: catPackages},
	{path: "/etc/yum.repos.d", level: Protected, what: catPackages},
	{path: "/etc/yum.conf", level: Protected, what: catPackages},
	{path: "/etc/dnf", level: Protected, what: catPackages},
	{path: "/etc/pacman.conf", level: Protected, what: catPackages},
	{path: "/etc/pacman.d", level: Protected, what: catPackages},
	{path: "/etc/sysctl.conf", level: Protected, what: catKernel},
	{path: "/etc/sysctl.d", level: Protected, what: catKernel},
	{path: "/etc/modprobe.d", level: Protected, what: catKernel},
	{path: "/etc/modules-load.d", level: Protected, what: catKernel},
	{path: "/boot", level: Protected, what: catBoot},
	{path: "/proc", level: Protected, what: catKernel},
	{path: "/sys", level: Protected, what: catKernel},

	{path: "/dev", level: Protected, what: catDevices},
	{path: "/dev/shm", level: None},
}, harmlessDevices...)
