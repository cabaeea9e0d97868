//go:build darwin

package guard

// foldCase: the default macOS file systems compare names
// case-insensitively, so the tables do too.
const foldCase = true

// privateRoots: /etc, /var and /tmp are links into /private; entries under
// them are also stored under /private so the resolved path matches.
var privateRoots = []string{"/etc", "/var", "/tmp"}

// homeEntriesOS are the macOS-only user paths.
var homeEntriesOS = []entry{
	{path: "~/Library/Keychains", level: Restricted, what: catKeychain},
	{path: "~/Library/Cookies", level: Restricted, what: catBrowser},
	{path: "~/Library/Application Support/Google/Chrome", level: Restricted, what: catBrowser},
	{path: "~/Library/Application Support/Firefox", level: Restricted, what: catBrowser},
	{path: "~/Library/Application Support/BraveSoftware", level: Restricted, what: catBrowser},
	{path: "~/Library/Safari", level: Restricted, what: catBrowser},
	{path: "~/Library/Application Support/gcloud", level: Restricted, what: catCloud},
	{path: "~/Library/LaunchAgents", level: Protected, what: catAutostart},
	{path: "~/Library/Preferences/com.apple.loginitems.plist", level: Protected, what: catAutostart},
	{path: "~/Library/Application Support/com.apple.backgroundtaskmanagementagent", level: Protected, what: catAutostart},
}

// systemEntries are the absolute paths protected on macOS.
var systemEntries = append([]entry{
	{path: "/etc/master.passwd", level: Restricted, what: catShadow},
	{path: "/var/db/dslocal", level: Restricted, what: catShadow},
	{path: "/etc/sudoers", level: Restricted, what: catSudo},
	{path: "/etc/sudoers.d", level: Restricted, what: catSudo},
	{path: "/etc/ssh", level: Restricted, what: catSSHHost, pub: true},
	{path: "/var/root", level: Restricted, what: catRoot},
	{path: "/Library/Keychains", level: Restricted, what: catKeychain},
	{path: "/dev/mem", level: Restricted, what: catKernelMem},
	{path: "/dev/kmem", level: Restricted, what: catKernelMem},
	{path: "/dev/tcp", level: Restricted, what: catNetDev},
	{path: "/dev/udp", level: Restricted, what: catNetDev},

	{path: "/etc/hosts", level: Protected, what: catSystem},
	{path: "/etc/passwd", level: Protected, what: catSystem},
	{path: "/etc/group", level: Protected, what: catSystem},
	{path: "/etc/fstab", level: Protected, what: catSystem},
	{path: "/etc/resolv.conf", level: Protected, what: catSystem},
	{path: "/etc/paths", level: Protected, what: catShellRC},
	{path: "/etc/paths.d", level: Protected, what: catShellRC},
	{path: "/etc/profile", level: Protected, what: catShellRC},
	{path: "/etc/bashrc", level: Protected, what: catShellRC},
	{path: "/etc/zshrc", level: Protected, what: catShellRC},
	{path: "/etc/zprofile", level: Protected, what: catShellRC},
	{path: "/etc/zshenv", level: Protected, what: catShellRC},
	{path: "/etc/pam.d", level: Protected, what: catAuth},
	{path: "/etc/crontab", level: Protected, what: catCron},
	{path: "/etc/periodic", level: Protected, what: catCron},
	{path: "/usr/lib/cron", level: Protected, what: catCron},
	{path: "/var/at", level: Protected, what: catCron},
	{path: "/etc/sysctl.conf", level: Protected, what: catKernel},
	{path: "/Library/LaunchAgents", level: Protected, what: catAutostart},
	{path: "/Library/LaunchDaemons", level: Protected, what: catAutostart},
	{path: "/Library/StartupItems", level: Protected, what: catAutostart},
	{path: "/System", level: Protected, what: catSystem},
	{path: "/etc/rc.common", level: Protected, what: catAutostart},

	{path: "/dev", level: Protected, what: catDevices},
}, harmlessDevices...)
