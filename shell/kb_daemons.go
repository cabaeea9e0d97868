package shell

import "strings"

// System and security daemons: the processes and service units whose
// stop takes a machine's access, logging, scheduling, data or protection
// away (ATT&CK T1489 Service Stop, T1562.001 Impair Defenses). The names
// are process names as ps shows them and unit names as systemctl and
// service take them; comparison is case-insensitive.
var systemDaemons = map[string]bool{
	// init and the service manager
	"init": true, "systemd": true, "launchd": true, "upstart": true, "runit": true, "s6-svscan": true,
	"systemd-logind": true, "systemd-udevd": true, "systemd-resolved": true, "systemd-networkd": true,
	"systemd-timesyncd": true,
	// remote access
	"sshd": true, "dropbear": true,
	// scheduling
	"cron": true, "crond": true, "anacron": true, "atd": true, "cronie": true,
	// logging and audit
	"syslogd": true, "rsyslogd": true, "rsyslog": true, "syslog-ng": true, "syslog": true,
	"journald": true, "systemd-journald": true, "auditd": true, "audispd": true, "kauditd": true,
	// message bus and authorisation
	"dbus": true, "dbus-daemon": true, "dbus-broker": true, "polkitd": true, "polkit": true,
	// databases
	"postgres": true, "postgresql": true, "postmaster": true, "mysqld": true, "mysql": true,
	"mariadb": true, "mariadbd": true, "redis-server": true, "redis": true, "mongod": true,
	"mongodb": true,
	// firewalls and protection
	"ufw": true, "firewalld": true, "iptables": true, "ip6tables": true, "nftables": true,
	"fail2ban": true, "fail2ban-server": true, "apparmor": true, "osqueryd": true, "falcon-sensor": true,
	"wazuh-agentd": true, "ossec": true, "falco": true, "osquery": true, "auditbeat": true, "elastic-agent": true,
	"elastic-endpoint": true, "wdavdaemon": true, "mdatp": true, "sentinelone": true, "cbagentd": true, "clamd": true, "sshguard": true, "snort": true, "suricata": true,
	// web servers
	"nginx": true, "apache2": true, "httpd": true,
	// display
	"gdm": true, "gdm3": true, "sddm": true, "lightdm": true, "xdm": true, "xorg": true,
	"xwayland": true, "gnome-shell": true,
	// container and network plumbing
	"dockerd": true, "containerd": true, "kubelet": true, "networkmanager": true, "udevd": true,
	"wpa_supplicant": true, "chronyd": true, "ntpd": true,
}

// unitAliases are service names that name a daemon only as a unit
// ("service ssh stop"); as a process pattern "ssh" is the client.
var unitAliases = map[string]bool{"ssh": true, "docker": true, "network-manager": true, "auditd": true}

// SystemDaemon reports whether a process or unit name (a path, a
// ".service" unit, a "[s]shd" grep trick, a "^sshd$" pattern) names a
// system or security daemon, and returns the daemon's name.
func SystemDaemon(name string, unit bool) (string, bool) {
	n := strings.ToLower(name)
	n = strings.NewReplacer("[", "", "]", "", "^", "", "$", "", "\\", "").Replace(n)
	n = strings.TrimRight(n, "/") // "/sshd/" as an awk or sed pattern
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	n = strings.TrimSuffix(n, ":")
	for _, s := range [...]string{".service", ".socket", ".pid", ".target"} {
		n = strings.TrimSuffix(n, s)
	}
	if i := strings.IndexByte(n, '@'); i > 0 {
		n = n[:i]
	}
	if systemDaemons[n] || unit && unitAliases[n] {
		return n, true
	}
	return "", false
}
