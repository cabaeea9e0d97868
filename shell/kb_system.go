package shell

import "strings"

// System administration: processes, services, scheduling, mounts,
// kernel, disks, network configuration.

// kbSystemTable builds the kbSystem table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbSystemTable() map[string]*Program {
	var (
		kSysChange2 = &Program{Tags: []TagKind{TagSystemChange}}
		kFormat     = &Program{Flags: flags(shorts("fFqvcnKS"), fBool, "-t -L -b -i -I -m -N -O -E -U -T -j -J -G -C -o", fVal),
			Args: []Role{RoleWrite}, Rest: RoleNone, Tags: []TagKind{TagFilesystemFormat, TagDestructive}}
		kPartition = &Program{Flags: flags(shorts("lsSbcuLx")+" --list --script", fBool, "-a -o -t -w", fVal),
			Args: []Role{RoleReadWrite}, Check: checkPartition}
		kKill     = &Program{Flags: flags(shorts("lLasv"), fBool, "-s -n --signal -q", fVal), Check: checkKill}
		kPkill    = &Program{Flags: flags(shorts("cefilnovxAI")+" --count --full --exact --newest --oldest --inverse", fBool, "-u -U -g -G -P -s -t --signal --ns -F", fVal), Check: checkPkill}
		kReadOnly = &Program{}
		kSvc      = &Program{Check: checkService}
		kCrontab  = &Program{Flags: flags(shorts("lerin"), fBool, "-u -s", fVal), Args: []Role{RoleRead}, Check: checkCrontab}
		kAt       = &Program{Flags: flags(shorts("lmMdrvVcq"), fBool, "-f", fRead, "-q -t", fVal), Tags: []TagKind{TagPersistence}, StdinCode: true, Lang: "sh"}
	)

	var kbSystem = map[string]*Program{
		"ps":   plain(flags(shorts("aAcdefFHjlLmMNrSTuvwxXyZ")+" -ef -aux -eo --forest --sort --no-headers", fBool, "-o -O -p -u -U -g -G -t -C --pid --ppid --sort --format", fVal)),
		"top":  plain(flags(shorts("bcHiSs1"), fBool, "-d -n -p -u -U -o -w -E -e", fVal)),
		"htop": plain(flags("-C -t -H", fBool, "-d -u -p -s", fVal)),
		"btop": kReadOnly, "atop": kReadOnly, "glances": kReadOnly, "iotop": kReadOnly, "iftop": kReadOnly, "nethogs": kReadOnly,
		"pstree":   plain(flags(shorts("aAcghlnpsSuUZ"), fBool)),
		"pgrep":    plain(flags(shorts("cdfilnovxwaA")+" --count --full --list-name --exact", fBool, "-d -u -U -g -G -P -s -t -F", fVal)),
		"pidof":    plain(flags(shorts("sxzcnq"), fBool, "-o -S", fVal)),
		"kill":     kKill,
		"pkill":    kPkill,
		"killall":  {Flags: flags(shorts("eIgiqrvwZ")+" --exact --ignore-case --process-group --interactive --quiet --regexp --verbose --wait", fBool, "-s --signal -u --user -o -y --older-than --younger-than", fVal), Check: checkPkill},
		"killall5": {Check: checkKillall5},
		"skill":    kPkill, "snice": kPkill,
		"renice": plain(flags("-n -g -p -u", fVal)),
		"free":   plain(flags(shorts("bkmghltwv")+" --human --total --wide --si", fBool, "-s -c", fVal)),
		"vmstat": kReadOnly, "iostat": kReadOnly, "mpstat": kReadOnly, "sar": kReadOnly, "nproc": kReadOnly, "lscpu": kReadOnly,
		"lsblk": kReadOnly, "blkid": kReadOnly, "lsusb": kReadOnly, "lspci": kReadOnly, "lshw": kReadOnly, "dmidecode": kReadOnly,
		"lsmod": kReadOnly, "smartctl": kReadOnly, "hwinfo": kReadOnly, "inxi": kReadOnly, "sensors": kReadOnly,
		"uname": plain(flags(shorts("asnrvmpio")+" --all", fBool)),
		"arch":  kReadOnly, "getconf": kReadOnly, "locale": kReadOnly, "tty": kReadOnly, "whoami": kReadOnly, "logname": kReadOnly,
		"users": kReadOnly, "finger": kReadOnly, "pinky": kReadOnly, "uptime": kReadOnly, "who": kReadOnly, "w": kReadOnly,
		"id": kReadOnly, "groups": kReadOnly, "last": {Flags: flags("-n -f -s -t", fVal)}, "lastb": kReadOnly, "lastlog": kReadOnly,
		"ipcs": kReadOnly, "printenv": kReadOnly, "cal": kReadOnly, "ncal": kReadOnly, "sleep": kReadOnly, "usleep": kReadOnly,
		"nice":        {Flags: flags("-n --adjustment", fVal), Args: []Role{RoleCommand}},
		"hostname":    {Flags: flags(shorts("AbdfFiIsyav")+" --fqdn --short --all-ip-addresses", fBool, "-F --file", fRead), Check: checkHostname},
		"hostnamectl": {Check: checkCtlSet},
		"timedatectl": {Check: checkCtlSet},
		"localectl":   {Check: checkCtlSet},
		"date":        {Flags: flags(shorts("uR")+" --utc --rfc-2822 --rfc-3339 --iso-8601 --debug", fBool, "-d --date -I", fVal, "-f --file -r --reference", fRead, "-s --set", tagged(fVal, TagSystemChange))},
		"dmesg":       {Flags: flags(shorts("HTkuwxrtLSe")+" --human --ctime --follow", fBool, "-l --level -f --facility -n -s -F", fVal, "-c -C --clear --read-clear", tagged(fBool, TagLogTamper))},
		"ss":          plain(flags(shorts("atulnpsrexiwomZz46")+" -tulpn -tlnp -tunlp -antp", fBool, "-f -A -F -N", fVal)),
		"netstat":     plain(flags(shorts("atulnpsrexiwcgvWeoM")+" -tulpn -tlnp -antp -nr", fBool, "-A", fVal)),
		"ip":          {Flags: flags(shorts("46sdrcaoj")+" -br -brief -details -color -json -pretty", fBool, "-n -netns -f -family -b -batch", fVal), Check: checkIP},
		"ifconfig":    {Check: checkIfconfig},
		"route":       {Check: checkRoute},
		"arp":         {Flags: flags(shorts("anev"), fBool, "-i -H", fVal), Check: checkArp},
		"iw":          kReadOnly, "iwconfig": kReadOnly, "nmcli": {Check: checkNmcli}, "ethtool": kReadOnly, "brctl": kSysChange2,
		"resolvectl":  kReadOnly,
		"systemctl":   {Flags: flags("--user --system --now --no-pager -q --quiet --all -a --failed --force --runtime --global", fBool, "-t --type --state -H --host -M --machine -n --lines -o --output -p --property", fVal), Check: checkSystemctl},
		"service":     kSvc,
		"rc-service":  kSvc,
		"rc-update":   {Tags: []TagKind{TagPersistence}},
		"update-rc.d": {Tags: []TagKind{TagPersistence}},
		"chkconfig":   {Tags: []TagKind{TagPersistence}},
		"launchctl":   {Check: checkLaunchctl},
		"journalctl": {Flags: flags(shorts("abefklmNqrxF")+" --boot --follow --no-pager --reverse --utc --list-boots --disk-usage --verify --flush --sync --merge", fBool,
			"-u --unit -n --lines -p --priority -o --output --since --until -t --identifier -g --grep -M --machine --user-unit", fVal,
			"-D --directory --file", fRead,
			"--vacuum-size --vacuum-time --vacuum-files", tagged(fVal, TagLogTamper),
			"--rotate", tagged(fBool, TagLogTamper))},
		"logger":    plain(flags(shorts("iseST"), fBool, "-t --tag -p --priority -n --server -P --port -u --socket --id", fVal, "-f --file", fRead)),
		"logrotate": {Flags: flags(shorts("dvfm")+" --debug --verbose --force", fBool, "-s --state -l --log", fVal), Rest: RoleRead, Check: checkLogrotate},
		"crontab":   kCrontab,
		"at":        kAt, "batch": kAt,
		"atq": kReadOnly, "atrm": kReadOnly,
		"systemd-run": {Flags: flags("--user --scope --wait -t --pty -q --quiet --no-block -G --collect", fBool, "--unit -u -p --property --on-calendar --on-active --on-boot --on-unit-active --timer-property -E --setenv --uid --gid -M --machine --slice -d --working-directory", fVal),
			Args: []Role{RoleCommand}, Check: checkSystemdRun},
		"mount":    {Flags: flags(shorts("afFlnrvwBMR")+" --all --fake --read-only --bind --rbind --move --verbose", fBool, "-t --types -o --options -L -U -O --source --target", fVal), Check: checkMount},
		"umount":   {Flags: flags(shorts("afflnrvdRcq")+" --all --force --lazy --recursive", fBool, "-t -O", fVal), Rest: RoleNone, Tags: []TagKind{TagSystemChange}},
		"swapon":   {Flags: flags(shorts("aefsv")+" --all --show --summary", fBool, "-p -o --show", fVal), Check: checkSwap},
		"swapoff":  {Flags: flags(shorts("av")+" --all", fBool), Tags: []TagKind{TagSystemChange}},
		"sysctl":   {Flags: flags(shorts("abeNnqrA")+" --all --system", fBool, "-p --load", fRead, "-w --write", fBool), Check: checkSysctl},
		"modprobe": {Flags: flags(shorts("acfinqrsvCDV")+" --show-depends --dry-run --remove --quiet --verbose --all", fBool, "-d -o -S -C", fVal), Check: checkModprobe},
		"insmod":   {Args: []Role{RoleRead}, Tags: []TagKind{TagSystemChange}},
		"rmmod":    {Tags: []TagKind{TagSystemChange}},
		"depmod":   kSysChange2,
		"shutdown": {Tags: []TagKind{TagSystemChange}}, "reboot": {Tags: []TagKind{TagSystemChange}},
		"halt": {Tags: []TagKind{TagSystemChange}}, "poweroff": {Tags: []TagKind{TagSystemChange}},
		"init": {Check: checkInit}, "telinit": {Check: checkInit},
		"pm-suspend": kSysChange2, "rtcwake": kSysChange2,
		"mkfs": kFormat, "mkfs.ext2": kFormat, "mkfs.ext3": kFormat, "mkfs.ext4": kFormat, "mkfs.xfs": kFormat,
		"mkfs.btrfs": kFormat, "mkfs.vfat": kFormat, "mkfs.fat": kFormat, "mkfs.ntfs": kFormat, "mkfs.exfat": kFormat,
		"mke2fs": kFormat, "mkswap": kFormat, "mkdosfs": kFormat, "newfs": kFormat, "mkntfs": kFormat,
		"wipefs": {Flags: flags(shorts("afnqQtbpJ")+" --all --force --no-act --noheadings --backup", fBool, "-o --offset -t --types -O --output", fVal), Rest: RoleWrite, Check: checkWipefs},
		"fdisk":  kPartition, "sfdisk": kPartition, "cfdisk": kPartition, "gdisk": kPartition,
		"sgdisk":    {Check: checkSgdisk, Args: []Role{RoleReadWrite}},
		"parted":    {Flags: flags("-s --script -l --list -m --machine -a --align -f --fix", fBool), Args: []Role{RoleReadWrite}, Check: checkParted},
		"diskutil":  {Check: checkDiskutil},
		"fsck":      {Flags: flags(shorts("AaCfMNnPRrsTVypy"), fBool, "-t", fVal), Args: []Role{RoleReadWrite}, Tags: []TagKind{TagSystemChange}},
		"e2fsck":    {Flags: flags(shorts("pnyfvcDEbBjlL"), fBool), Args: []Role{RoleReadWrite}, Tags: []TagKind{TagSystemChange}},
		"tune2fs":   {Args: []Role{RoleReadWrite}, Tags: []TagKind{TagSystemChange}},
		"resize2fs": {Args: []Role{RoleReadWrite}, Tags: []TagKind{TagSystemChange}},
		"losetup":   kSysChange2, "cryptsetup": kSysChange2, "blockdev": kSysChange2, "hdparm": kSysChange2,
		"lvremove": {Tags: []TagKind{TagDestructive, TagSystemChange}}, "vgremove": {Tags: []TagKind{TagDestructive, TagSystemChange}},
		"pvremove": {Tags: []TagKind{TagDestructive, TagSystemChange}}, "lvcreate": kSysChange2, "vgcreate": kSysChange2, "pvcreate": kSysChange2,
		"mdadm": kSysChange2,
		"ipcrm": kSysChange2,
		"wall":  kReadOnly, "write": kReadOnly, "mesg": kReadOnly,
		"screen": {Check: checkScreen}, // parses its own options (kb_screen.go)
		"tmux":   {Flags: flags(shorts("2CDluNvV"), fBool, "-c -f -L -S -T", fVal), Check: checkTmux},
		"clear":  kReadOnly, "reset": kReadOnly, "tput": kReadOnly, "stty": kReadOnly, "setterm": kReadOnly,
		"chsh":    {Flags: flags("-s --shell -u", fVal), Tags: []TagKind{TagPersistence}},
		"chfn":    kReadOnly,
		"uuidgen": kReadOnly, "uuid": kReadOnly,
		"quota": kReadOnly, "qstat": kReadOnly, "qsub": {Args: []Role{RoleScript}, Lang: "sh"},
		"sbatch": {Args: []Role{RoleScript}, Lang: "sh"}, "squeue": kReadOnly, "scancel": kReadOnly, "srun": {Args: []Role{RoleCommand}},
	}
	return kbSystem
}

// checkHostname: "hostname NAME" sets it.
func checkHostname(c *Call) {
	if len(c.Positional) > 0 {
		c.Tag(TagSystemChange, "hostname "+c.Positional[0].Value)
	}
}

// checkCtlSet: hostnamectl/timedatectl/localectl set-* change the system.
func checkCtlSet(c *Call) {
	if w, ok := pos(c, 0); ok && (strings.HasPrefix(w.Value, "set-") || w.Value == "hostname" && len(c.Positional) > 1) {
		c.Tag(TagSystemChange, c.Name+" "+w.Value)
	}
}

// checkIP: ip link/addr/route/rule/neigh/netns changes.
func checkIP(c *Call) {
	if len(c.Positional) < 2 {
		return
	}
	switch c.Positional[1].Value {
	case "add", "del", "delete", "set", "change", "replace", "flush", "append", "exec":
		c.Tag(TagSystemChange, "ip "+c.Positional[0].Value+" "+c.Positional[1].Value)
		if c.Positional[0].Value == "netns" && c.Positional[1].Value == "exec" && len(c.Positional) > 3 {
			c.Run(c.Positional[3:])
		}
	}
}

// checkIfconfig: "ifconfig IF ADDR|up|down" changes an interface.
func checkIfconfig(c *Call) {
	if len(c.Positional) > 1 {
		c.Tag(TagSystemChange, "ifconfig "+c.Positional[0].Value)
	}
}

// checkRoute: route add/del.
func checkRoute(c *Call) {
	if hasPos(c, "add", "del", "delete", "flush", "change") {
		c.Tag(TagSystemChange, "route")
	}
}

// checkArp: arp -s/-d.
func checkArp(c *Call) {
	if hasArg(c, "-s", "-d", "-f") {
		c.Tag(TagSystemChange, "arp")
	}
}

// checkNmcli: connection/device changes.
func checkNmcli(c *Call) {
	if hasPos(c, "add", "delete", "modify", "down", "up", "off", "disconnect") {
		c.Tag(TagSystemChange, "nmcli")
	}
}

// securityUnits are services whose stop or disable turns protection off.
var securityUnits = []string{"firewalld", "ufw", "apparmor", "auditd", "iptables", "ip6tables", "nftables",
	"selinux", "fail2ban", "clamav", "clamd", "falcon-sensor", "osqueryd", "wazuh", "ossec", "crowdstrike",
	"sysmon", "rsyslog", "syslog", "systemd-journald", "aide", "tripwire", "sshguard", "csf", "lfd", "snort", "suricata"}

// isSecurityUnit reports whether a unit name is a protection service.
func isSecurityUnit(u string) bool {
	u = strings.TrimSuffix(strings.TrimSuffix(u, ".service"), ".socket")
	for _, s := range securityUnits {
		if u == s || strings.HasPrefix(u, s+"@") || strings.HasPrefix(u, s+"-") {
			return true
		}
	}
	return false
}

// checkSystemctl: enabling is persistence; stopping protection is
// security off; power verbs and unit changes are system changes.
func checkSystemctl(c *Call) {
	verb, ok := pos(c, 0)
	if !ok {
		return
	}
	units := c.Positional[1:]
	_, user := c.Flag("--user")
	_, now := c.Flag("--now")
	if verb.Value != "disable" && verb.Value != "mask" || now {
		c.an.signalUnits(c, verb.Value, units, user)
	}
	switch verb.Value {
	case "enable", "reenable", "preset", "link", "add-wants", "add-requires", "daemon-reload", "edit", "set-default", "revert":
		c.Tag(TagPersistence, "systemctl "+verb.Value)
	case "stop", "disable", "mask", "kill":
		for _, u := range units {
			if isSecurityUnit(u.Value) {
				c.Tag(TagSecurityOff, "systemctl "+verb.Value+" "+u.Value)
				return
			}
		}
		c.Tag(TagSystemChange, "systemctl "+verb.Value)
	case "start", "restart", "reload", "try-restart", "reload-or-restart", "isolate", "unmask", "set-property", "set-environment":
		c.Tag(TagSystemChange, "systemctl "+verb.Value)
	case "poweroff", "reboot", "halt", "suspend", "hibernate", "kexec", "rescue", "emergency", "default":
		c.Tag(TagSystemChange, "systemctl "+verb.Value)
	}
}

// checkService: "service NAME stop|start|restart".
func checkService(c *Call) {
	if len(c.Positional) < 2 {
		return
	}
	unit, verb := c.Positional[0].Value, c.Positional[1].Value
	c.an.signalUnits(c, verb, c.Positional[:1], false)
	switch {
	case (verb == "stop" || verb == "disable") && isSecurityUnit(unit):
		c.Tag(TagSecurityOff, "service "+unit+" "+verb)
	case verb == "stop" || verb == "start" || verb == "restart" || verb == "reload" || verb == "disable" || verb == "enable":
		c.Tag(TagSystemChange, "service "+unit+" "+verb)
	}
}

// checkLaunchctl: load/bootstrap/enable persist; unload of protection.
func checkLaunchctl(c *Call) {
	switch {
	case posIs(c, 0, "load", "bootstrap", "enable", "submit", "setenv"):
		c.Tag(TagPersistence, "launchctl "+c.Positional[0].Value)
		for _, w := range c.Positional[1:] {
			if strings.HasSuffix(w.Value, ".plist") {
				c.Use(w, accR)
			}
		}
	case posIs(c, 0, "unload", "bootout", "disable", "remove", "kill", "stop"):
		c.Tag(TagSystemChange, "launchctl "+c.Positional[0].Value)
	}
}

// checkLogrotate: -f forces a rotation (logs moved away now).
func checkLogrotate(c *Call) {
	if _, ok := c.Flag("-f", "--force"); ok {
		c.Tag(TagLogTamper, "logrotate -f")
	}
}

// checkCrontab installs a crontab unless it only lists it.
func checkCrontab(c *Call) {
	if _, ok := c.Flag("-l"); ok {
		return
	}
	if _, ok := c.Flag("-r"); ok {
		c.Tag(TagSystemChange, "crontab -r")
		return
	}
	c.Tag(TagPersistence, "crontab")
}

// checkSystemdRun: timers (--on-*) persist.
func checkSystemdRun(c *Call) {
	for name := range c.Flags {
		if strings.HasPrefix(name, "--on-") || name == "--timer-property" || name == "--unit" {
			c.Tag(TagPersistence, "systemd-run "+name)
			return
		}
	}
}

// checkMount: listing is harmless; mounting is a system change.
func checkMount(c *Call) {
	if len(c.Positional) == 0 {
		if _, ok := c.Flag("-a", "--all"); !ok {
			return
		}
	}
	c.Tag(TagSystemChange, "mount")
	if len(c.Positional) == 2 {
		c.Use(c.Positional[1], accW)
	}
}

// checkSwap: swapon with a device (not --show) is a change.
func checkSwap(c *Call) {
	if _, ok := c.Flag("-s", "--summary", "--show"); !ok && (len(c.Positional) > 0 || hasArg(c, "-a", "--all")) {
		c.Tag(TagSystemChange, "swapon")
	}
}

// sysctlSecurity are kernel knobs whose lowering weakens protection.
var sysctlSecurity = []string{"kernel.randomize_va_space", "kernel.kptr_restrict", "kernel.dmesg_restrict",
	"kernel.yama.ptrace_scope", "kernel.modules_disabled", "fs.protected_symlinks", "fs.protected_hardlinks",
	"kernel.unprivileged_bpf_disabled", "fs.suid_dumpable", "kernel.perf_event_paranoid", "net.ipv4.ip_forward"}

// checkSysctl: writes (-w or key=value) are system changes; some are
// security off.
func checkSysctl(c *Call) {
	_, p := c.Flag("-p", "--load", "--system")
	for _, w := range c.Positional {
		key, _, set := strings.Cut(w.Value, "=")
		if !set {
			continue
		}
		p = true
		for _, s := range sysctlSecurity {
			if strings.ReplaceAll(key, "/", ".") == s {
				c.Tag(TagSecurityOff, "sysctl "+w.Value)
			}
		}
	}
	if p {
		c.Tag(TagSystemChange, "sysctl -w")
	}
}

// checkModprobe: loading or removing kernel modules (not --show-depends).
func checkModprobe(c *Call) {
	if _, ok := c.Flag("-n", "--dry-run", "--show-depends", "-c", "-D"); ok {
		return
	}
	c.Tag(TagSystemChange, "modprobe")
}

// checkInit: "init 0/6" power off or reboot; other levels change mode.
func checkInit(c *Call) {
	if len(c.Positional) > 0 {
		c.Tag(TagSystemChange, c.Name+" "+c.Positional[0].Value)
	}
}

// checkPartition: fdisk -l lists; anything else may rewrite the table.
func checkPartition(c *Call) {
	if _, ok := c.Flag("-l", "--list", "-s"); ok {
		return
	}
	c.Tag(TagFilesystemFormat, c.Name)
	c.Tag(TagDeviceWrite, c.Name)
}

// checkSgdisk: -p/-v/-i print; other options write the disk.
func checkSgdisk(c *Call) {
	for _, w := range c.Args {
		if w.Value == "-p" || w.Value == "--print" || w.Value == "-v" || w.Value == "--verify" || strings.HasPrefix(w.Value, "-i") {
			return
		}
	}
	c.Tag(TagFilesystemFormat, "sgdisk")
	c.Tag(TagDeviceWrite, "sgdisk")
}

// checkParted: "print" and -l read; mklabel/mkpart/rm write.
func checkParted(c *Call) {
	for _, w := range c.Positional {
		switch w.Value {
		case "mklabel", "mkpart", "rm", "resizepart", "mkfs", "rescue", "name", "set":
			c.Tag(TagFilesystemFormat, "parted "+w.Value)
			c.Tag(TagDeviceWrite, "parted")
			return
		}
	}
}

// checkDiskutil (macOS): erase and partition verbs.
func checkDiskutil(c *Call) {
	if w, ok := pos(c, 0); ok && (strings.HasPrefix(w.Value, "erase") || strings.HasPrefix(w.Value, "partition") ||
		w.Value == "zeroDisk" || w.Value == "randomDisk" || w.Value == "secureErase" || w.Value == "reformat") {
		c.Tag(TagFilesystemFormat, "diskutil "+w.Value)
		c.Tag(TagDestructive, "diskutil "+w.Value)
	}
}

// checkWipefs: without -n, wipefs erases signatures.
func checkWipefs(c *Call) {
	if _, ok := c.Flag("-n", "--no-act"); ok || len(c.Flags) == 0 {
		return
	}
	c.Tag(TagDestructive, "wipefs")
	c.Tag(TagFilesystemFormat, "wipefs")
}
