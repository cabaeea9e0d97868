package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// personaFiles returns the workspace files that make the system prompt,
// in the order they are put in it.
func personaFiles() []string { return []string{"SOUL.md", "IDENTITY.md", "USER.md", "AGENTS.md"} }

// Bounds on what the engine reads for the prompt.
const (
	maxPersonaBytes = 64 << 10 // per persona file
	maxSkillBytes   = 16 << 10 // per SKILL.md (only its front matter is used)
	maxSkills       = 200
	maxSkillDesc    = 400
)

// Bootstrap is what the engine reads for the agent: the persona files'
// contents and the skills index. The agent process cannot read them.
type Bootstrap struct {
	// Files maps a persona file name to its contents (missing files are
	// absent).
	Files map[string]string
	// Skills is the index, sorted by name.
	Skills []Skill
	// Warnings name what was skipped or cut, and why (the engine logs
	// and audits them: nothing is dropped silently).
	Warnings []string
}

// Skill is one entry of the skills index.
type Skill struct {
	Name        string
	Description string
	// Source is "workspace" or "home".
	Source string
}

var skillName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// LoadBootstrap reads the persona files at the workspace's top and the
// skills under skills/<name>/SKILL.md of the workspace and of
// home/.parallax (home may be empty). Workspace skills override home
// skills of the same name. Files are opened through an os.Root, so a
// symlink leading out of its tree is refused, never followed (a
// SOUL.md pointing at a key file must not reach the model provider).
func LoadBootstrap(workspace, home string) (Bootstrap, error) {
	b := Bootstrap{Files: map[string]string{}}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return b, fmt.Errorf("open workspace %s: %w", workspace, err)
	}
	defer root.Close()
	for _, name := range personaFiles() {
		text, warn, err := readBounded(root, name, maxPersonaBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s skipped: %v", name, err))
			continue
		}
		if warn != "" {
			b.Warnings = append(b.Warnings, name+": "+warn)
		}
		b.Files[name] = text
	}
	skills := map[string]Skill{}
	if home != "" {
		b.loadSkills(filepath.Join(home, ".parallax"), "home", skills)
	}
	b.loadSkillsRoot(root, "workspace", skills)
	for _, s := range skills {
		b.Skills = append(b.Skills, s)
	}
	sort.Slice(b.Skills, func(i, j int) bool { return b.Skills[i].Name < b.Skills[j].Name })
	return b, nil
}

func (b *Bootstrap) loadSkills(dir, source string, into map[string]Skill) {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%s skills skipped: %v", source, err))
		return
	}
	defer root.Close()
	b.loadSkillsRoot(root, source, into)
}

func (b *Bootstrap) loadSkillsRoot(root *os.Root, source string, into map[string]Skill) {
	entries, err := fs.ReadDir(root.FS(), "skills")
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%s skills: list: %v", source, err))
		return
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if n++; n > maxSkills {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s skills: more than %d; the rest are skipped", source, maxSkills))
			return
		}
		s, err := readSkill(root, e.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s skill %s skipped: %v", source, e.Name(), err))
			continue
		}
		s.Source = source
		into[s.Name] = s
	}
}

// readSkill reads skills/<dir>/SKILL.md's front matter.
func readSkill(root *os.Root, dir string) (Skill, error) {
	if !skillName.MatchString(dir) {
		return Skill{}, fmt.Errorf("directory name must match %s", skillName)
	}
	text, _, err := readBounded(root, filepath.Join("skills", dir, "SKILL.md"), maxSkillBytes)
	if err != nil {
		return Skill{}, err
	}
	fm, ok := frontMatter(text)
	if !ok {
		return Skill{}, errors.New("SKILL.md has no front matter (--- name/description ---)")
	}
	var meta struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal([]byte(fm), &meta); err != nil {
		return Skill{}, fmt.Errorf("SKILL.md front matter: %w", err)
	}
	if meta.Name != "" && meta.Name != dir {
		return Skill{}, fmt.Errorf("front matter names %q but the directory is %q", meta.Name, dir)
	}
	desc := strings.Join(strings.Fields(meta.Description), " ")
	if desc == "" {
		return Skill{}, errors.New("SKILL.md front matter has no description")
	}
	if len(desc) > maxSkillDesc {
		desc = truncateUTF8(desc, maxSkillDesc) + "…"
	}
	return Skill{Name: dir, Description: desc}, nil
}

// frontMatter returns the YAML between a leading "---" line and the next.
func frontMatter(text string) (string, bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		rest, ok = strings.CutPrefix(text, "---\r\n")
	}
	if !ok {
		return "", false
	}
	for off := 0; off < len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, "\r ") == "---" {
			return rest[:off], true
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return "", false
}

// readBounded reads a regular file through root, at most limit bytes.
// It refuses what is not a regular file and text that is not UTF-8.
func readBounded(root *os.Root, name string, limit int) (text, warn string, err error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return "", "", err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		return "", "", fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := root.Open(name) // follows a link only inside the root
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", "", errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", "", err
	}
	if len(data) > limit {
		data = data[:limit]
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0 && !utf8.Valid(data); i++ {
			data = data[:len(data)-1] // back off a rune the cut split
		}
		warn = fmt.Sprintf("cut to %d bytes", limit)
	}
	if !utf8.Valid(data) {
		return "", "", errors.New("not UTF-8 text")
	}
	return string(bytes.TrimSpace(data)), warn, nil
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
