package heuristic

import (
	"github.com/parallax/parallax/internal/glob"
	"strings"
)

// credentialPaths is credential material: reading it is credential
// access wherever the read comes from. The guard hard-blocks the best
// known of these (~/.ssh keys, ~/.aws, shadow) before tier 1; they are
// repeated here so glob reads and paths hidden in payloads meet the same
// answer. Directories that hold nothing but credentials are listed
// themselves (an archive or copy of the directory reads them all).
var credentialPaths = newPathSet(
	// SSH, GPG, password stores, keyrings.
	"~/.ssh", "~/.ssh/id_*", "~/.ssh/*.pem", "~/.ssh/*.key", "~/.ssh/*_rsa", "~/.ssh/*_ed25519",
	"~/.gnupg", "~/.gnupg/**", "~/.password-store", "~/.password-store/**",
	"~/.local/share/keyrings", "~/.local/share/keyrings/**", "~/Library/Keychains", "~/Library/Keychains/**",
	"/Library/Keychains/**", "/etc/ssh/ssh_host_*_key",
	// Network and VCS credentials.
	"~/.netrc", "~/_netrc", "~/.git-credentials", "~/.config/git/credentials",
	"~/.config/gh/hosts.yml", "~/.config/hub", "~/.pgpass", "~/.my.cnf", "~/.mylogin.cnf",
	// Cloud, cluster and package registry credentials.
	"~/.aws", "~/.aws/credentials", "~/.aws/sso/cache/**", "~/.aws/cli/cache/**",
	"~/.config/gcloud", "~/.config/gcloud/**", "~/.azure", "~/.azure/**",
	"~/.kube", "~/.kube/config", "~/.kube/**", "/etc/kubernetes/admin.conf", "/etc/kubernetes/pki/**",
	"/var/lib/kubelet/pki/**", "~/.docker/config.json", "~/.vault-token",
	"~/.terraform.d/credentials.tfrc.json", "**/*.tfstate", "**/*.tfstate.backup",
	"~/.npmrc", "~/.pypirc", "~/.gem/credentials", "~/.cargo/credentials", "~/.cargo/credentials.toml",
	"~/.config/rclone/rclone.conf", "~/.s3cfg", "~/.boto", "~/.oci/config", "~/.databrickscfg",
	"~/.config/doctl/config.yaml", "~/.m2/settings-security.xml",
	// Browser cookie and password stores.
	"**/Cookies", "**/Login Data", "**/Login Data For Account", "**/cookies.sqlite",
	"**/logins.json", "**/key3.db", "**/key4.db", "~/Library/Cookies/**",
	// System secrets and process memory.
	"/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/security/opasswd",
	"/proc/*/environ", "/proc/*/mem", "/proc/*/task/*/environ", "/proc/kcore", "/dev/mem", "/dev/kmem",
	// Private keys by name, anywhere.
	"**/id_rsa", "**/id_dsa", "**/id_ecdsa", "**/id_ed25519", "**/*.ppk", "**/wallet.dat",
)

// isCredential reports whether p (or the glob p) names credential
// material. Public halves of key pairs are not credentials.
func isCredential(p string, isGlob bool, home string) bool {
	if strings.HasSuffix(p, ".pub") {
		return false
	}
	return credentialPaths.has(p, isGlob, home)
}

// exfilSources are files that are not credential stores themselves but
// must not leave the machine: shell histories (they hold typed secrets),
// dotenv files, key material by extension, account databases.
var exfilSources = newPathSet(
	"~/.bash_history", "~/.zsh_history", "~/.sh_history", "~/.history", "~/.python_history",
	"~/.psql_history", "~/.mysql_history", "~/.node_repl_history", "~/.local/share/fish/fish_history",
	"**/.env", "**/.env.local", "**/.env.production", "**/.env.development", "**/.envrc",
	"**/*.pem", "**/*.key", "**/*.p12", "**/*.pfx", "**/*.jks", "**/*.keystore",
	"**/credentials.json", "**/service-account*.json", "**/secrets.yaml", "**/secrets.yml",
	"/etc/passwd", "/etc/group", "/etc/sudoers",
)

// isSensitiveSource reports whether data read from p must not reach the
// network: credentials, exfil sources, and whole trees that contain
// them (the home directory, /, /etc, /home, /root).
func isSensitiveSource(p string, isGlob bool, home string) bool {
	if isCredential(p, isGlob, home) || exfilSources.has(p, isGlob, home) {
		return true
	}
	switch p {
	case "/", "/etc", "/home", "/root", "/Users":
		return true
	}
	if rel, ok := homeRel(p, home); ok && rel == "" {
		return true
	}
	return isGlob && (glob.Intersect(p, "/etc") || glob.Intersect(p, home))
}

// historyPaths are shell and REPL histories: wiping them hides tracks.
var historyPaths = newPathSet(
	"~/.bash_history", "~/.zsh_history", "~/.sh_history", "~/.history", "~/.python_history",
	"~/.psql_history", "~/.mysql_history", "~/.node_repl_history", "~/.local/share/fish/fish_history",
	"~/.lesshst", "~/.viminfo",
)

// logPaths are system logs and audit trails.
var logPaths = newPathSet(
	"/var/log", "/var/log/**", "/var/adm/**", "/var/audit/**", "/private/var/log/**",
	"/run/log/journal/**", "**/audit.jsonl",
)

// persistencePaths are places whose content runs again later without the
// agent: hooks, autostart entries, schedulers, service units, shell start
// files, loader preloads, login hooks.
var persistencePaths = newPathSet(
	"**/.git/hooks/*", "/**/.git/hooks/*",
	"~/.ssh/authorized_keys", "~/.ssh/authorized_keys2", "~/.ssh/rc", "/etc/ssh/sshrc",
	"~/.config/autostart/**", "/etc/xdg/autostart/**", "~/.config/systemd/user/**",
	"~/Library/LaunchAgents/**", "/Library/LaunchAgents/**", "/Library/LaunchDaemons/**",
	"/etc/cron*", "/etc/cron*/**", "/etc/anacrontab", "/var/spool/cron/**", "/var/spool/anacron/**",
	"/var/spool/at/**", "/etc/systemd/**", "/lib/systemd/**", "/usr/lib/systemd/**",
	"/run/systemd/system/**", "/etc/init.d/**", "/etc/rc.local", "/etc/rc*.d/**", "/etc/init/**",
	"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_logout", "~/.profile", "~/.zshrc",
	"~/.zshenv", "~/.zprofile", "~/.zlogin", "~/.zlogout", "~/.config/fish/config.fish",
	"~/.config/fish/conf.d/**", "~/.xinitrc", "~/.xprofile", "~/.xsession", "~/.pam_environment",
	"/etc/profile", "/etc/profile.d/**", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zshrc",
	"/etc/zsh/**", "/etc/environment", "/etc/ld.so.preload", "/etc/ld.so.conf.d/**",
	"/etc/update-motd.d/**", "/etc/apt/apt.conf.d/**", "/etc/udev/rules.d/**",
	"/etc/pam.d/**", "/lib/security/**", "/usr/lib/security/**",
)

// systemPaths are system binaries, libraries and configuration: writing
// or deleting there changes the machine for every user. Package source
// lists are left to the package_source and write_outside_workspace rules.
var systemPaths = newPathSet(
	"/etc", "/etc/**", "/usr", "/usr/bin/**", "/usr/sbin/**", "/usr/lib/**", "/usr/lib32/**",
	"/usr/lib64/**", "/usr/libexec/**", "/usr/share/**", "/usr/include/**", "/bin", "/bin/**",
	"/sbin", "/sbin/**", "/lib", "/lib/**", "/lib32/**", "/lib64/**", "/libx32/**", "/boot", "/boot/**",
	"/System/**", "/private/etc/**",
)

// packageSourceLists are package manager source lists: additions there are
// judged as package sources (ESCALATE), not as system writes.
var packageSourceLists = newPathSet(
	"/etc/apt/sources.list", "/etc/apt/sources.list.d/**", "/etc/apt/keyrings/**",
	"/etc/apt/trusted.gpg.d/**", "/usr/share/keyrings/**", "/etc/yum.repos.d/**",
	"/etc/zypp/repos.d/**", "/etc/pacman.d/mirrorlist",
)

// privilegePaths are files that grant privilege when written.
var privilegePaths = newPathSet(
	"/etc/sudoers", "/etc/sudoers.d", "/etc/sudoers.d/**", "/etc/passwd", "/etc/shadow",
	"/etc/group", "/etc/gshadow", "/etc/doas.conf", "/etc/polkit-1/**", "/private/etc/sudoers",
	"/etc/security/capability.conf",
)

// scratchDirs may be written by anyone: writes there are routine.
var scratchDirs = [...]string{"/tmp", "/var/tmp", "/private/tmp", "/dev/shm"}

// harmlessDevices are device files writing to which changes nothing.
var harmlessDevices = [...]string{"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full"}

// isHarmlessDevice reports whether p is a device writing to which is
// routine (null, the terminal, standard streams, /dev/fd/N).
func isHarmlessDevice(p string) bool {
	for _, d := range harmlessDevices {
		if p == d {
			return true
		}
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/") ||
		strings.HasPrefix(p, "/proc/self/fd/")
}

// isScratch reports whether p is inside a world-writable scratch dir.
func isScratch(p string) bool {
	for _, d := range scratchDirs {
		if r, ok := under(p, d); ok && r != "" {
			return true
		}
	}
	return false
}

// criticalRoots are directories whose recursive deletion wrecks the
// machine. Their direct children (any /usr/*) are critical too.
var criticalRoots = [...]string{"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64",
	"/libx32", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap",
	"/System", "/Library", "/Applications", "/Users", "/private", "/nix"}

// criticalRootGlobs are the criticalRoots' direct children, "ROOT/*".
var criticalRootGlobs = func() []string {
	out := make([]string, len(criticalRoots))
	for i, r := range criticalRoots {
		out[i] = r + "/*"
	}
	return out
}()

// isCriticalDir reports whether deleting p (recursively) destroys the
// machine, the home directory or the workspace: "/", a critical root or
// one of its direct children, the home directory, the workspace root, or
// any ancestor of these.
func isCriticalDir(p, home, workspace string) bool {
	if p == "/" {
		return true
	}
	if home != "" && inside(home, p) || workspace != "" && inside(workspace, p) {
		return true
	}
	for _, r := range criticalRoots {
		if rel, ok := under(p, r); ok && strings.IndexByte(rel, '/') < 0 {
			return true
		}
	}
	return false
}

// isCriticalGlob reports whether a glob delete could take out a critical
// directory: "/*", "/e*", "/usr/*", "~/*", "~/.*", the workspace itself.
// Globs for files inside an ordinary directory ("~/*.log") are not.
func isCriticalGlob(g, home, workspace string) bool {
	if glob.Intersect(g, "/*") {
		return true
	}
	// The literal start of g rules most roots out before any matching
	// (the first test globIntersect makes, done once here); a root glob's
	// literal start is all of it but the final "*".
	pg := glob.LiteralPrefix(g)
	for _, r := range criticalRootGlobs {
		if n := min(len(pg), len(r)-1); pg[:n] == r[:n] && glob.Intersect(g, r) {
			return true
		}
	}
	for _, d := range [...]string{home, workspace} {
		if d != "" && glob.Intersect(g, d) {
			return true
		}
	}
	if rel, ok := homeRel(g, home); ok && strings.IndexByte(rel, '/') < 0 {
		return strings.Trim(rel, "*?.") == ""
	}
	return false
}
