package shell

import "strings"

// Privilege, users, firewalls, mandatory access control, audit, secrets.

// kbAdminTable builds the kbAdmin table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbAdminTable() map[string]*Program {
	var (
		kPriv     = []TagKind{TagPrivilege}
		kSudoLike = &Program{Flags: flags(shorts("AbEeHiKklnPSsVv")+" --preserve-env --login --shell --non-interactive --stdin --background --reset-timestamp --remove-timestamp --list --validate", fBool,
			"-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role -t --type -T --command-timeout -U --other-user", fVal),
			Args: []Role{RoleCommand}, Tags: kPriv, Check: checkSudo}
		kUserMod = &Program{Flags: flags(shorts("aDlLmMNoUrf")+" --append --move-home --lock --unlock --create-home --system --no-create-home --non-unique", fBool,
			"-c --comment -d --home -e --expiredate -f --inactive -g --gid -G --groups -l --login -p --password -s --shell -u --uid -k --skel -K --key -R --root -Z", fVal),
			Tags: []TagKind{TagSystemChange}, Check: checkUsermod}
		kFirewall = &Program{Check: checkIptables}
		kCredHunt = &Program{Rest: RoleRead, Tags: []TagKind{TagCredentialSearch}}
	)

	var kReadOnlyAdmin = &Program{}

	var kbAdmin = map[string]*Program{
		"sudo":   kSudoLike,
		"doas":   {Flags: flags("-n -s -L", fBool, "-u -C", fVal), Args: []Role{RoleCommand}, Tags: kPriv},
		"pkexec": {Flags: flags("--disable-internal-agent", fBool, "--user", fVal), Args: []Role{RoleCommand}, Tags: kPriv},
		"su": {Flags: flags(shorts("lmpfP")+" --login --preserve-environment --pty", fBool, "-g --group -G --supp-group -w --whitelist-environment", fVal,
			"-c --command --session-command", fShell, "-s --shell", fVal), Tags: kPriv},
		"runuser": {Flags: flags(shorts("lmp")+" --login", fBool, "-u --user -g -G", fVal, "-c --command", fShell), Args: []Role{RoleNone, RoleCommand}, Tags: kPriv},
		"sg":      {Flags: flags("-c", fShell), Tags: kPriv},
		"newgrp":  {Tags: kPriv},
		"setpriv": {Flags: flags("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set", fVal), Args: []Role{RoleCommand}, Tags: kPriv},
		"capsh":   {Tags: kPriv, Check: checkCapsh},
		"setcap":  {Flags: flags("-q -r -v -n", fBool), Args: []Role{RoleNone}, Rest: RoleWrite, Tags: kPriv},
		"getcap":  readAll(flags("-r -v -n", fBool)),
		"useradd": kUserMod, "adduser": kUserMod, "usermod": kUserMod, "userdel": kUserMod, "deluser": kUserMod,
		"groupadd": kUserMod, "groupdel": kUserMod, "groupmod": kUserMod, "addgroup": kUserMod, "delgroup": kUserMod,
		"gpasswd":  {Flags: flags("-a --add -d --delete -A -M -r -R", fVal), Tags: []TagKind{TagSystemChange}, Check: checkGpasswd},
		"passwd":   {Flags: flags(shorts("adeklSu")+" --stdin --status --lock --unlock --delete --expire", fBool, "-n -x -w -i", fVal), Tags: kPriv},
		"chpasswd": {Flags: flags("-e -m -c", fBool), Tags: kPriv},
		"chage":    {Flags: flags("-l", fBool, "-d -E -I -m -M -W", fVal), Tags: []TagKind{TagSystemChange}},
		"vipw":     {Tags: kPriv}, "vigr": {Tags: kPriv},
		"visudo":   {Flags: flags("-c -q -s -x", fBool, "-f", fRW), Tags: kPriv},
		"dscl":     {Tags: kPriv},
		"iptables": kFirewall, "ip6tables": kFirewall, "iptables-legacy": kFirewall, "iptables-nft": kFirewall,
		"iptables-restore": {Args: []Role{RoleRead}, Tags: []TagKind{TagSystemChange}},
		"iptables-save":    kReadOnlyAdmin,
		"nft":              {Check: checkNft},
		"ufw":              {Check: checkUfw},
		"firewall-cmd":     {Check: checkFirewallCmd},
		"pfctl":            {Check: checkPfctl},
		"setenforce":       {Check: checkSetenforce},
		"getenforce":       kReadOnlyAdmin, "sestatus": kReadOnlyAdmin, "aa-status": kReadOnlyAdmin,
		"setsebool":  {Tags: []TagKind{TagSecurityOff}},
		"aa-disable": {Tags: []TagKind{TagSecurityOff}}, "aa-complain": {Tags: []TagKind{TagSecurityOff}}, "aa-teardown": {Tags: []TagKind{TagSecurityOff}},
		"apparmor_parser": {Flags: flags("-R --remove", tagged(fBool, TagSecurityOff), "-r -a -q", fBool), Rest: RoleRead},
		"auditctl":        {Flags: flags("-l -s", fBool, "-e", fVal, "-D", tagged(fBool, TagLogTamper), "-a -A -d -w -W -k -p -F -R -b -f -r", fVal), Check: checkAuditctl},
		"spctl":           {Flags: flags("--master-disable --global-disable --disable", tagged(fBool, TagSecurityOff), "--status --assess -a -v --master-enable", fBool)},
		"csrutil": {Check: func(c *Call) {
			if posIs(c, 0, "disable") || hasPos(c, "disable") {
				c.Tag(TagSecurityOff, "csrutil disable")
			}
		}},
		"defaults": {Check: checkDefaults},
		"security": {Check: checkMacSecurity},
		"wevtutil": {Check: func(c *Call) {
			if posIs(c, 0, "cl", "clear-log") {
				c.Tag(TagLogTamper, "wevtutil cl")
			}
		}},
		"trufflehog": kCredHunt, "mimikatz": kCredHunt, "lazagne": kCredHunt, "LaZagne": kCredHunt,
		"secretsdump.py": kCredHunt, "impacket-secretsdump": kCredHunt, "secretsdump": kCredHunt,
		"gitleaks":       {Rest: RoleRead, Check: checkGitleaks},
		"detect-secrets": {Rest: RoleRead},
		"john":           {Rest: RoleRead, Tags: []TagKind{TagCredentialSearch}},
		"hashcat":        {Rest: RoleRead, Tags: []TagKind{TagCredentialSearch}},
		"unshadow":       {Rest: RoleRead, Tags: []TagKind{TagCredentialSearch}},
		"secret-tool": {Check: func(c *Call) {
			if posIs(c, 0, "lookup", "search") {
				c.Tag(TagCredentialSearch, "secret-tool "+c.Positional[0].Value)
			}
		}},
		"gnome-keyring-daemon": {Tags: []TagKind{TagCredentialSearch}},
		"keyctl": {Check: func(c *Call) {
			if posIs(c, 0, "print", "read", "pipe") {
				c.Tag(TagCredentialSearch, "keyctl "+c.Positional[0].Value)
			}
		}},
		"pass": {Check: func(c *Call) {
			if len(c.Positional) > 0 && !posIs(c, 0, "ls", "list", "find", "init", "git", "generate", "insert", "edit", "rm", "mv", "cp") || posIs(c, 0, "show") {
				c.Tag(TagCredentialSearch, "pass show")
			}
		}},
		"gpg": {Flags: flags("-d --decrypt -e --encrypt -c --symmetric -s --sign -a --armor --batch --yes -q --quiet --verify --list-keys -k --list-secret-keys -K --import --fingerprint --clearsign -b --detach-sign --no-tty", fBool,
			"-r --recipient -u --local-user --passphrase --pinentry-mode --keyserver --recv-keys --homedir --default-key --trust-model --cipher-algo", fVal,
			"-o --output", fWrite, "--passphrase-file", fRead,
			"--export-secret-keys --export-secret-subkeys", tagged(fBool, TagCredentialSearch)), Rest: RoleRead},
		"gpg2":                   {Flags: flags("-d --decrypt -e --encrypt -a --armor --batch --yes", fBool, "-r --recipient -u", fVal, "-o --output", fWrite), Rest: RoleRead},
		"openvpn":                {Flags: flags("--config", fRead, "--up --down --route-up --ipchange --client-connect --learn-address --tls-verify --auth-user-pass-verify", tagged(fShell, TagCodeEscape), "--script-security", fVal), Network: true, Tags: []TagKind{TagSystemChange}},
		"wg":                     {Tags: []TagKind{TagSystemChange}},
		"wg-quick":               {Tags: []TagKind{TagSystemChange}},
		"tor":                    {Network: true},
		"update-ca-certificates": {Tags: []TagKind{TagSystemChange}},
	}
	return kbAdmin
}

// checkSudo: sudo -s/-i without a command opens a root shell; sudoedit
// style -e edits files.
func checkSudo(c *Call) {
	if _, ok := c.Flag("-e", "--edit"); ok {
		for _, w := range c.Positional {
			c.Use(w, accRW)
		}
	}
}

// checkUsermod tags group grants that give root-equivalent power.
func checkUsermod(c *Call) {
	w, ok := c.Flag("-G", "--groups", "-g", "--gid")
	if ok {
		for _, g := range strings.Split(w.Value, ",") {
			if privGroups[g] {
				c.Tag(TagPrivilege, c.Name+" -G "+g)
				return
			}
		}
	}
	if flagValIs(c, []string{"-u", "--uid"}, "0") || hasArg(c, "-o", "--non-unique") && flagValIs(c, []string{"-u", "--uid"}, "0") {
		c.Tag(TagPrivilege, c.Name+" -u 0")
	}
	// adduser USER GROUP (Debian) adds to a group.
	if (c.Name == "adduser" || c.Name == "addgroup") && len(c.Positional) == 2 && privGroups[c.Positional[1].Value] {
		c.Tag(TagPrivilege, c.Name+" "+c.Positional[1].Value)
	}
}

// privGroups are groups whose membership is root-equivalent.
var privGroups = map[string]bool{"sudo": true, "wheel": true, "root": true, "docker": true, "admin": true,
	"adm": true, "lxd": true, "disk": true, "shadow": true, "libvirt": true, "kvm": true, "0": true}

// checkGpasswd: gpasswd -a USER sudo.
func checkGpasswd(c *Call) {
	for _, w := range c.Positional {
		if privGroups[w.Value] {
			if _, ok := c.Flag("-a", "--add", "-M", "-A"); ok {
				c.Tag(TagPrivilege, "gpasswd "+w.Value)
			}
		}
	}
}

// checkCapsh: --gid=0/--uid=0 or "--" with a shell.
func checkCapsh(c *Call) {
	for _, w := range c.Args {
		if w.Value == "--" {
			c.Tag(TagCodeEscape, "capsh --")
			return
		}
	}
}

// checkIptables: flushes and ACCEPT policies turn the firewall off; other
// rule changes are system changes; listing is nothing.
func checkIptables(c *Call) {
	for i, w := range c.Args {
		v := w.Value
		switch {
		case v == "-F" || v == "--flush" || v == "-X" || v == "--delete-chain" || v == "-Z":
			c.Tag(TagSecurityOff, c.Name+" "+v)
			return
		case v == "-P" || v == "--policy":
			if i+2 < len(c.Args) && strings.EqualFold(c.Args[i+2].Value, "ACCEPT") {
				c.Tag(TagSecurityOff, c.Name+" -P ACCEPT")
			} else {
				c.Tag(TagSystemChange, c.Name+" -P")
			}
			return
		case v == "-A" || v == "-I" || v == "-D" || v == "-R" || v == "-N" || v == "-E" ||
			v == "--append" || v == "--insert" || v == "--delete" || v == "--replace" || v == "--new-chain":
			c.Tag(TagSystemChange, c.Name+" "+v)
			return
		}
	}
}

// checkNft: flush ruleset / delete table.
func checkNft(c *Call) {
	if hasPos(c, "flush", "delete") {
		c.Tag(TagSecurityOff, "nft flush")
	} else if hasPos(c, "add", "insert", "replace", "create") || hasArg(c, "-f") {
		c.Tag(TagSystemChange, "nft")
	}
}

// checkUfw: disable/reset turn it off; allow/deny rules change it.
func checkUfw(c *Call) {
	switch {
	case posIs(c, 0, "disable", "reset"):
		c.Tag(TagSecurityOff, "ufw "+c.Positional[0].Value)
	case posIs(c, 0, "default") && hasPos(c, "allow"):
		c.Tag(TagSecurityOff, "ufw default allow")
	case posIs(c, 0, "allow", "deny", "reject", "limit", "delete", "insert", "route", "enable", "default", "logging"):
		c.Tag(TagSystemChange, "ufw "+c.Positional[0].Value)
	}
}

// checkFirewallCmd: panic-off, zone target ACCEPT, permanent changes.
func checkFirewallCmd(c *Call) {
	for _, w := range c.Args {
		v := w.Value
		switch {
		case v == "--panic-off", strings.HasPrefix(v, "--set-target=ACCEPT"), strings.HasPrefix(v, "--set-default-zone=trusted"):
			c.Tag(TagSecurityOff, "firewall-cmd "+v)
			return
		case strings.HasPrefix(v, "--add-") || strings.HasPrefix(v, "--remove-") || v == "--reload" || strings.HasPrefix(v, "--set-") || strings.HasPrefix(v, "--change-"):
			c.Tag(TagSystemChange, "firewall-cmd "+v)
			return
		}
	}
}

// checkPfctl: -d disables pf; -F flushes.
func checkPfctl(c *Call) {
	if hasArg(c, "-d") || hasArg(c, "-F") {
		c.Tag(TagSecurityOff, "pfctl")
	} else if hasArg(c, "-f", "-e") {
		c.Tag(TagSystemChange, "pfctl")
	}
}

// checkSetenforce: 0/Permissive turns SELinux enforcement off.
func checkSetenforce(c *Call) {
	if posIs(c, 0, "0", "Permissive", "permissive") {
		c.Tag(TagSecurityOff, "setenforce 0")
	} else {
		c.Tag(TagSystemChange, "setenforce")
	}
}

// checkAuditctl: -e 0 disables auditing.
func checkAuditctl(c *Call) {
	if flagValIs(c, []string{"-e"}, "0") {
		c.Tag(TagSecurityOff, "auditctl -e 0")
	} else if _, ok := c.Flag("-a", "-A", "-d", "-w", "-W", "-e", "-R", "-b", "-f", "-r"); ok {
		c.Tag(TagSystemChange, "auditctl")
	}
}

// checkDefaults (macOS): writing launch/security domains.
func checkDefaults(c *Call) {
	if !posIs(c, 0, "write", "delete") || len(c.Positional) < 2 {
		return
	}
	d := c.Positional[1].Value
	switch {
	case strings.Contains(d, "com.apple.loginwindow") && hasPos(c, "LoginHook", "LogoutHook"):
		c.Tag(TagPersistence, "defaults loginwindow hook")
	case strings.Contains(d, "com.apple.alf") || strings.Contains(d, "LSQuarantine") || strings.Contains(d, "com.apple.security") ||
		hasPos(c, "LSQuarantine", "globalstate", "GKAutoRearm"):
		c.Tag(TagSecurityOff, "defaults write "+d)
	default:
		c.Tag(TagSystemChange, "defaults write")
	}
}

// checkMacSecurity: keychain secret dumps.
func checkMacSecurity(c *Call) {
	if w, ok := pos(c, 0); ok {
		switch w.Value {
		case "find-generic-password", "find-internet-password", "dump-keychain", "export", "find-certificate", "find-identity":
			c.Tag(TagCredentialSearch, "security "+w.Value)
		case "add-trusted-cert", "authorizationdb", "delete-keychain", "unlock-keychain":
			c.Tag(TagSystemChange, "security "+w.Value)
		}
	}
}

// checkGitleaks: "gitleaks protect" guards commits; other modes hunt.
func checkGitleaks(c *Call) {
	if !posIs(c, 0, "protect", "version", "help") {
		c.Tag(TagCredentialSearch, "gitleaks")
	}
}
