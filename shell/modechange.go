package shell

import "strings"

// ModeChange is a permission change a command makes: chmod, mkdir -m,
// install -m, setfacl on "other", or a umask that lets every later file
// be created writable by others (ATT&CK T1222 File and Directory
// Permissions Modification).
type ModeChange struct {
	Program       string   // chmod, mkdir, install, setfacl, umask
	Mode          string   // the mode as written
	WorldWritable bool     // the change grants write to others
	Recursive     bool     // -R, or applied by find -exec to what it finds
	Targets       []string // operands as resolved ("" when unresolvable); none for umask
}

// ModeChanges returns the permission changes of the command.
func (fx *Effects) ModeChanges() []ModeChange {
	if fx == nil {
		return nil
	}
	var out []ModeChange
	for _, e := range fx.Execs {
		if m, ok := modeChange(e); ok {
			out = append(out, m)
		}
	}
	return out
}

func modeChange(e Exec) (ModeChange, bool) {
	m := ModeChange{Program: e.Name}
	switch e.Name {
	case "chmod":
		for _, a := range e.Args {
			switch {
			case a == "-R" || a == "--recursive":
				m.Recursive = true
			case len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXst") != "" && m.Mode == "":
				// an option (-v, -f, --quiet); "-w" is a mode
			case m.Mode == "":
				m.Mode = a
			default:
				m.Targets = append(m.Targets, a)
			}
		}
		m.WorldWritable = OthersWrite(m.Mode)
	case "mkdir", "install":
		for i := 0; i < len(e.Args); i++ {
			a := e.Args[i]
			switch {
			case (a == "-m" || a == "--mode") && i+1 < len(e.Args):
				m.Mode = e.Args[i+1]
				i++
			case strings.HasPrefix(a, "--mode="):
				m.Mode = a[len("--mode="):]
			case strings.HasPrefix(a, "-m") && len(a) > 2:
				m.Mode = a[2:]
			case len(a) > 1 && a[0] == '-':
			default:
				m.Targets = append(m.Targets, a)
			}
		}
		if m.Mode == "" {
			return m, false
		}
		m.WorldWritable = OthersWrite(m.Mode)
	case "setfacl":
		for _, a := range e.Args {
			l := strings.ToLower(a)
			if strings.HasPrefix(l, "o::") && strings.Contains(l[3:], "w") ||
				strings.HasPrefix(l, "other::") && strings.Contains(l[7:], "w") ||
				strings.HasPrefix(l, "o:") && strings.Contains(l[2:], "w") && !strings.HasPrefix(l, "o::") {
				m.Mode, m.WorldWritable = a, true
			}
			if a == "-R" || a == "--recursive" {
				m.Recursive = true
			}
		}
		if !m.WorldWritable {
			return m, false
		}
	case "umask":
		if len(e.Args) != 1 || strings.Trim(e.Args[0], "01234567") != "" {
			return m, false
		}
		u := e.Args[0]
		m.Mode = u
		o := u[len(u)-1] - '0'
		m.WorldWritable = o&2 == 0
	default:
		return m, false
	}
	return m, true
}

// OthersWrite reports whether a chmod mode, octal or symbolic, grants
// write permission to others. A bare "+w" follows the umask (which keeps
// others out by default) and does not count; "a+w", "o+w", "=rw" with no
// who and "ugo=rwx" do.
func OthersWrite(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		return (mode[len(mode)-1]-'0')&2 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		i := 0
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			i++
		}
		who := clause[:i]
		others := strings.ContainsAny(who, "oa")
		for i < len(clause) {
			op := clause[i]
			j := i + 1
			for j < len(clause) && strings.IndexByte("+-=", clause[j]) < 0 {
				j++
			}
			perms := clause[i+1 : j]
			if (op == '+' || op == '=') && strings.ContainsRune(perms, 'w') && others {
				return true
			}
			i = j
		}
	}
	return false
}
