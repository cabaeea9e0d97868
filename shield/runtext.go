package shield

import (
	"slices"

	"github.com/parallax/parallax/runfile"
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
		kind := runfile.KindOf(w.Path)
		if kind == runfile.KindNone {
			continue
		}
		if w.Insert {
			text := w.Text
			if kind == runfile.KindMakefile {
				// Inserted recipe lines belong to a rule of the file;
				// one the text does not name is a stand-in.
				text = "parallax-inserted:\n" + text
			}
			if v, done := g.judgeAdded(st, "the command", w.Path, "", text); done {
				return v, true
			}
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
	return g.refuseWritten(st, who+" writes", file, units)
}

// refuseWritten BLOCKs (runfile_code) the write of file by who when one
// of the units it puts there would be refused.
func (g *Gate) refuseWritten(st *state, who, file string, units []runfile.Unit) (verdict.Verdict, bool) {
	v, u := g.judgeUnits(st, units)
	if v.Decision != verdict.Block {
		return verdict.Verdict{}, false
	}
	what := g.rel(file)
	if u.File != "" {
		what = g.unitName(u)
	}
	return block(v.Stage, v.Tier, RuleRunfileCode, who+" "+g.rel(file)+": "+what+
		" would run what is refused ("+v.Rule+": "+v.Reason+")")
}

// noteWritten keeps what a command writes to a runnable file, for the
// session's memory of it (noteRunfiles).
func (st *state) noteWritten(p, content string) {
	if st.runTexts == nil {
		st.runTexts = map[string]string{}
	}
	st.runTexts[p] = content
}
