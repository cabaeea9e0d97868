package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// ssh, scp, sftp and rsync: hosts, remote commands, transfer direction,
// and the options that run local commands (ProxyCommand, LocalCommand,
// scp -S, rsync -e).

// kSSHFlags and kRsyncFlags are shared by the ssh and net tables; each
// call builds them anew (only table builders call them).
func kSSHFlags() map[string]Flag {
	return flags(
		shorts("46AaCfGgKkMNnqsTtVvXxYy"), fBool,
		"-B -b -c -D -e -I -J -L -l -m -O -o -p -Q -R -S -W -w", fVal,
		"-E", fWrite,
		"-F -i", fRead,
	)
}

func kRsyncFlags() map[string]Flag {
	return flags(
		shorts("avzrlptgoDHAXEcnuPqhiWSxRbdkKLmOJUN08CyI")+" --archive --verbose --compress --recursive"+
			" --links --perms --times --group --owner --devices --specials --hard-links --acls --xattrs"+
			" --checksum --dry-run --update --partial --progress --quiet --human-readable --itemize-changes"+
			" --whole-file --sparse --one-file-system --relative --backup --dirs --copy-links --keep-dirlinks"+
			" --prune-empty-dirs --omit-dir-times --inplace --append --append-verify --stats --ignore-existing"+
			" --existing --size-only --mkpath --no-motd --safe-links --copy-unsafe-links --numeric-ids", fBool,
		"--delete --delete-before --delete-during --delete-delay --delete-after --delete-excluded"+
			" --remove-source-files --force", fBool,
		"--exclude --include -f --filter --backup-dir --suffix --chmod --chown --bwlimit --timeout"+
			" --contimeout --port --partial-dir -T --temp-dir --compare-dest --link-dest --copy-dest"+
			" --max-size --min-size --out-format --info --debug -M --remote-option --max-delete"+
			" --modify-window --iconv --usermap --groupmap --sockopts --address -B --block-size --protocol", fVal,
		"--exclude-from --include-from --files-from --password-file --read-batch", fRead,
		"--log-file --write-batch --only-write-batch", fWrite,
		"-e --rsh", fVal,
		"--rsync-path", tagged(fVal, TagRemoteExec),
	)
}

// sshValueLetters are ssh's short options taking a value.
const sshValueLetters = "BbcDEeFIiJLlmOopQRSWw"

// checkSSH parses ssh's arguments itself: options may follow the host, and
// everything after the first word past the host is the remote command.
func checkSSH(c *Call) {
	var host Word
	haveHost := false
	var opts []Word
	port := ""
	args := c.Args
	i := 0
	for ; i < len(args); i++ {
		v := args[i].Value
		if v == "--" {
			i++
			break
		}
		if len(v) > 1 && v[0] == '-' && args[i].Known {
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(sshValueLetters, v[j]) < 0 {
					continue
				}
				val := Word{Value: v[j+1:], Known: true}
				if j+1 == len(v) && i+1 < len(args) {
					i++
					val = args[i]
				}
				switch v[j] {
				case 'o':
					opts = append(opts, val)
				case 'p':
					port = val.Value
				}
				break
			}
			continue
		}
		if haveHost {
			break
		}
		host, haveHost = args[i], true
	}
	if haveHost {
		c.Host(host, port, false, false)
	}
	sshOptions(c, opts)
	if i < len(args) && haveHost {
		c.Tag(TagRemoteExec, c.Name+" "+host.Value)
		c.RunShell(joinWords(args[i:]))
	}
}

// sshOptions inspects -o options: ProxyCommand, LocalCommand and
// KnownHostsCommand run local shell commands.
func sshOptions(c *Call, opts []Word) {
	for _, o := range opts {
		key, val, ok := strings.Cut(o.Value, "=")
		if !ok {
			key, val, _ = strings.Cut(o.Value, " ")
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		switch key {
		case "proxycommand", "localcommand", "knownhostscommand":
			if strings.EqualFold(val, "none") {
				continue
			}
			c.Tag(TagCodeEscape, c.Name+" -o "+key)
			c.RunShell(Word{Value: val, Known: o.Known})
		case "permitlocalcommand":
			if strings.EqualFold(val, "yes") {
				c.Tag(TagCodeEscape, c.Name+" -o PermitLocalCommand")
			}
		case "remotecommand":
			c.Tag(TagRemoteExec, c.Name+" -o RemoteCommand")
		case "proxyjump":
			c.Host(Word{Value: val, Known: o.Known}, "", false, false)
		case "identityfile", "userknownhostsfile", "certificatefile":
			c.Use(Word{Value: val, Known: o.Known}, accR)
		}
	}
}

// rawOpts collects the values of every -o option (ssh allows many).
func rawOpts(c *Call) []Word {
	var opts []Word
	for i, a := range c.Args {
		switch {
		case a.Value == "-o" && i+1 < len(c.Args):
			opts = append(opts, c.Args[i+1])
		case strings.HasPrefix(a.Value, "-o") && len(a.Value) > 2 && a.Known:
			opts = append(opts, lit(a.Value[2:]))
		}
	}
	return opts
}

// remoteOperand splits an scp/rsync operand "[user@]host:path" or
// "rsync://host/path"; ok is false for a local path.
func remoteOperand(w Word) (host string, ok bool) {
	v := w.Value
	if rest, found := strings.CutPrefix(v, "rsync://"); found {
		h, _, _ := strings.Cut(rest, "/")
		return h, true
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~") {
		return "", false
	}
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return "", false
	}
	if j := strings.IndexByte(v, '/'); j >= 0 && j < i {
		return "", false
	}
	return v[:i], true
}

// transfer records sources and destination of a copy whose operands may
// be remote: local sources are read (and uploaded when the destination
// is remote), a local destination is written.
func transfer(c *Call, operands []Word, srcAcc, dstAcc action.Access) {
	if len(operands) == 0 {
		return
	}
	dst := operands[len(operands)-1]
	srcs := operands[:len(operands)-1]
	dstHost, dstRemote := remoteOperand(dst)
	for _, w := range srcs {
		if h, ok := remoteOperand(w); ok {
			c.Host(Word{Value: h, Known: w.Known}, "", false, false)
			continue
		}
		c.Use(w, srcAcc)
	}
	switch {
	case dstRemote:
		c.Host(Word{Value: dstHost, Known: dst.Known}, "", len(srcs) > 0, false)
	case len(srcs) > 0:
		c.Use(dst, dstAcc)
	default:
		c.Use(dst, accR)
	}
}

// checkSCP handles scp and sftp: -o options, the -S program, operands.
func checkSCP(c *Call) {
	sshOptions(c, rawOpts(c))
	if w, ok := c.Flag("-S"); ok {
		c.Run([]Word{w})
	}
	if c.Name == "scp" {
		transfer(c, c.Positional, accR, accW)
	} else if w, ok := pos(c, 0); ok {
		h, _ := remoteOperand(w)
		if h == "" {
			h = w.Value
		}
		c.Host(Word{Value: h, Known: w.Known}, "", true, false)
	}
}

// checkRsync handles rsync operands, deletion options and -e.
func checkRsync(c *Call) {
	if w, ok := c.Flag("-e", "--rsh"); ok {
		prog := strings.Fields(w.Value)
		if !w.Known || len(prog) == 0 || !rshPrograms[baseName(prog[0])] {
			c.Tag(TagCodeEscape, "rsync -e")
		}
		c.RunShell(w)
	}
	src := accR
	if _, ok := c.Flag("--remove-source-files"); ok {
		src = accRD
	}
	dst := accW
	for name := range c.Flags {
		if strings.HasPrefix(name, "--delete") {
			dst = accWD
		}
	}
	transfer(c, c.Positional, src, dst)
}

// rshPrograms are remote shells that rsync -e may name without escaping.
var rshPrograms = map[string]bool{"ssh": true, "rsh": true, "autossh": true, "sshpass": true}
