package shield

import (
	"regexp"
	"slices"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/runfile"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// Text a command writes into a runnable file is code for later, as a
// write_file of the same file would be: `printf '…' >> Makefile`,
// `cat > build.sh <<EOF`, `tee -a scripts/ci.sh`, and the text a sed or
// perl in-place edit inserts (its a/i/c text, its replacements). The file
// is judged as it will be (what is there, then the text, for an append)
// by the units the text adds: a unit the file already had is the
// repository's, judged when it runs, not again at every append. A BLOCK
// of an added unit is runfile_code; the session remembers the content,
// so the command that later runs the file is judged by it too.

// judgeWrittenText judges the text the command writes to runnable files.
func (g *Gate) judgeWrittenText(st *state) (verdict.Verdict, bool) {
	for _, w := range st.effects.Written {
		if runfile.KindOf(w.Path) == runfile.KindNone {
			continue
		}
		old := ""
		if versions, _ := g.runfileVersions(st, w.Path); len(versions) > 0 {
			old = versions[0] // what is on disk when there is a file, else what the session wrote
		}
		content := w.Text
		if w.Append {
			content = old + w.Text
		}
		st.noteWritten(w.Path, content)
		if v, done := g.judgeAdded(st, "the command", w.Path, old, content); done {
			return v, true
		}
	}
	for i, e := range st.effects.Execs {
		if i >= maxRunExecs {
			break
		}
		frag, ok := inPlaceText(e)
		if !ok {
			continue
		}
		for _, p := range writtenRunfiles(st.effects) {
			text := frag
			if runfile.KindOf(p) == runfile.KindMakefile {
				// Inserted recipe lines belong to a rule of the file;
				// one the fragment does not name is a stand-in.
				text = "parallax-inserted:\n" + frag
			}
			if v, done := g.judgeAdded(st, e.Name, p, "", text); done {
				return v, true
			}
		}
	}
	return verdict.Verdict{}, false
}

// judgeAdded judges the units content has that old had not, as the
// write of file by who.
func (g *Gate) judgeAdded(st *state, who, file, old, content string) (verdict.Verdict, bool) {
	if len(content) > runfile.MaxFileBytes {
		return verdict.Verdict{}, false // unknown code: judged when it runs
	}
	units, _ := runfile.FileUnits(file, content)
	if old != "" && len(units) > 0 {
		before, _ := runfile.FileUnits(file, old)
		units = slices.DeleteFunc(units, func(u runfile.Unit) bool {
			return slices.ContainsFunc(before, func(b runfile.Unit) bool { return b.Code == u.Code && b.Part == u.Part })
		})
	}
	v, u := g.judgeUnits(st, units)
	if v.Decision != verdict.Block {
		return verdict.Verdict{}, false
	}
	what := g.rel(file)
	if u.File != "" {
		what = g.unitName(u)
	}
	return block(v.Stage, v.Tier, RuleRunfileCode, who+" writes "+g.rel(file)+": "+what+
		" would run what is refused ("+v.Rule+": "+v.Reason+")")
}

// writtenRunfiles are the runnable files (by name) a command writes.
func writtenRunfiles(eff *shell.Effects) []string {
	var out []string
	for _, u := range eff.Paths {
		if u.Access&action.AccessWrite == 0 || u.Glob || runfile.KindOf(u.Path) == runfile.KindNone || slices.Contains(out, u.Path) {
			continue
		}
		out = append(out, u.Path)
	}
	return out
}

// inPlaceText is the text a sed -i or perl -pi/-i program may put in
// the files it edits, unescaped as the program would ("\n", "\t", "\/",
// "\$"): the program itself stands for its insertions, which is enough
// to judge what the inserted lines would run.
func inPlaceText(e shell.Exec) (string, bool) {
	var inPlace bool
	var progs []string
	switch e.Name {
	case "sed", "gsed":
		expr := false
		for i, a := range e.Args {
			switch {
			case a == "-i" || strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--") || strings.HasPrefix(a, "--in-place"):
				inPlace = true
			case a == "-e" || a == "--expression":
				if i+1 < len(e.Args) {
					progs = append(progs, e.Args[i+1])
					expr = true
				}
			case strings.HasPrefix(a, "--expression="):
				progs, expr = append(progs, a[len("--expression="):]), true
			}
		}
		if !expr {
			for i, a := range e.Args {
				if strings.HasPrefix(a, "-") || i > 0 && (e.Args[i-1] == "-e" || e.Args[i-1] == "-f") {
					continue
				}
				progs = append(progs, a) // the first operand is the program
				break
			}
		}
	case "perl":
		for i, a := range e.Args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") && a != "-e" && a != "-E" {
				inPlace = true
			}
			if (a == "-e" || a == "-E" || strings.HasSuffix(a, "e") && strings.HasPrefix(a, "-") && len(a) > 2) && i+1 < len(e.Args) {
				progs = append(progs, e.Args[i+1])
			}
		}
	default:
		return "", false
	}
	if !inPlace || len(progs) == 0 {
		return "", false
	}
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\/`, "/", `\$`, "$", `\\`, `\`, `\#`, "#", `\@`, "@")
	var b strings.Builder
	for _, p := range progs {
		text := r.Replace(p)
		b.WriteString(text)
		b.WriteByte('\n')
		if e.Name != "perl" {
			// sed's a, i and c commands: the text after them is a line
			// of its own in the file ("/^all:/a\	curl …").
			for _, line := range strings.Split(text, "\n") {
				if m := sedTextCmd.FindStringSubmatch(line); m != nil {
					b.WriteString(m[1])
					b.WriteByte('\n')
				}
			}
		}
	}
	return b.String(), true
}

// sedTextCmd is a sed a, i or c command with its text: an address (a
// line number, $, a /regex/ or a range of them) then the command letter,
// a backslash or blanks, the text.
var sedTextCmd = regexp.MustCompile(`^\s*(?:(?:[0-9]+|\$|/(?:[^/\\]|\\.)*/)(?:\s*,\s*(?:[0-9]+|\$|/(?:[^/\\]|\\.)*/))?)?\s*[aic](?:\\ ?|\s+)(.*)$`)

// noteWritten keeps what a command writes to a runnable file, for the
// session's memory of it (noteRunfiles).
func (st *state) noteWritten(p, content string) {
	if st.runTexts == nil {
		st.runTexts = map[string]string{}
	}
	st.runTexts[p] = content
}
