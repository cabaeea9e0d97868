package runfile

import (
	"path"
	"strings"
)

// A tox.ini runs, for each environment, the lines of its commands_pre,
// commands and commands_post (each line one command, split into words as
// a shell would and run without one: judging it as shell code
// over-approximates). An environment's keys come from [testenv:NAME]
// and, for what it does not set, from [testenv].

// toxKeys are the keys whose lines are commands.
var toxKeys = map[string]bool{
	"commands": true, "commands_pre": true, "commands_post": true,
	"commands-pre": true, "commands-post": true,
}

// toxUnits reads a tox.ini and returns the commands of every
// [testenv...] section (which environments run is not narrowed: tox -e
// X runs [testenv]'s commands too, and an env list can name any).
func toxUnits(file, dir, content string) ([]Unit, string) {
	var units []Unit
	unknown := ""
	section, key := "", ""
	var lines []string
	flush := func() {
		if key == "" || len(lines) == 0 {
			key, lines = "", nil
			return
		}
		if len(units) >= MaxUnits {
			if unknown == "" {
				unknown = file + " has more than " + itoa(MaxUnits) + " command lists"
			}
			key, lines = "", nil
			return
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString("(\n")
			b.WriteString(toxSubst(strings.TrimLeft(l, "-! \t"), dir))
			b.WriteString("\n)\n")
		}
		units = append(units, Unit{File: file, Part: "[" + section + "] " + key, Lang: "sh", Code: b.String(), Dir: dir})
		key, lines = "", nil
	}
	all := strings.Split(content, "\n")
	for i := 0; i < len(all); i++ {
		raw := strings.TrimSuffix(all[i], "\r")
		text := strings.TrimSpace(raw)
		if text == "" || text[0] == '#' || text[0] == ';' {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' { // a continuation of the key's value
			if key != "" {
				lines = append(lines, toxJoin(text, all, &i))
			}
			continue
		}
		flush()
		if text[0] == '[' {
			section = strings.TrimSpace(strings.Trim(text, "[]"))
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		if !ok || !toxSection(section) {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if !toxKeys[k] {
			continue
		}
		key = k
		if v = strings.TrimSpace(v); v != "" {
			lines = append(lines, toxJoin(v, all, &i))
		}
	}
	flush()
	return units, unknown
}

// toxSection reports whether a section configures test environments.
func toxSection(s string) bool {
	return s == "testenv" || strings.HasPrefix(s, "testenv:") || s == "tox:tox" || strings.HasPrefix(s, "env:") || s == "env_run_base"
}

// toxJoin joins a line ending in a backslash with the next ones.
func toxJoin(text string, all []string, i *int) string {
	for strings.HasSuffix(text, "\\") && *i+1 < len(all) {
		*i++
		text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(strings.TrimSuffix(all[*i], "\r"))
	}
	return text
}

// toxSubst replaces tox's {substitutions}: the ones that name the
// project's directories and interpreter by what they stand for,
// {posargs:DEFAULT} by its default, anything else (a {env:X} read, a
// reference to another section) by an unknown word.
func toxSubst(s, dir string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		expr := s[i+1 : i+end]
		name, def, _ := strings.Cut(expr, ":")
		switch name {
		case "envpython":
			b.WriteString("python")
		case "toxinidir", "tox_root":
			b.WriteString(dir)
		case "posargs":
			b.WriteString(def)
		case "envdir", "envbindir", "envsitepackagesdir", "envtmpdir", "envlogdir", "toxworkdir", "work_dir", "temp_dir":
			b.WriteString(path.Join(dir, ".tox", "env"))
		case "/":
			b.WriteString("/")
		default:
			b.WriteString("${PARALLAX_TOX_UNKNOWN}")
		}
		s = s[i+end+1:]
	}
}

// toxRuns: tox [run|-e ENV|-c FILE|...] runs the commands of tox.ini
// (tox -c FILE names another; --help, --version, list and config run
// none).
func toxRuns(args []string, cwd string, fs FS) []Target {
	file := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-c" || a == "--conf") && i+1 < len(args):
			i++
			file = args[i]
		case strings.HasPrefix(a, "--conf="):
			file = a[len("--conf="):]
		case a == "--help" || a == "-h" || a == "--version" || a == "list" || a == "l" || a == "config" ||
			a == "c" || a == "-l" || a == "-a" || a == "--showconfig" || a == "--listenvs" || a == "--listenvs-all" ||
			a == "quickstart" || a == "schema":
			return nil
		}
	}
	p := path.Join(cwd, "tox.ini")
	if file != "" {
		p = abs(cwd, file)
		if !strings.HasSuffix(p, ".ini") {
			return nil // pyproject.toml, setup.cfg: not read
		}
	}
	if !fs.Exists(p) {
		return nil
	}
	return []Target{{File: p, Kind: KindTox, Dir: path.Dir(p)}}
}
