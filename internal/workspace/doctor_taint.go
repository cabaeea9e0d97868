package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// maxJournalCheck bounds what doctor reads of the taint journal: it holds
// one short line per raise a full disk kept out of the database.
const maxJournalCheck = 1 << 20

// errBadLevel stops doctor's reading at a raise with a negative level.
var errBadLevel = errors.New("negative taint level")

// checkTaintJournal reports raises waiting in the taint journal (written
// when the database could not be): while a line waits, every session of
// the workspace reads as critical, and a line that does not parse waits
// for ever. Doctor reads it and changes nothing; the next command that
// reads a taint replays it.
func (d *doctor) checkTaintJournal() Check {
	path := TaintJournalPath(d.root)
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ok("empty")
	case err != nil:
		return failc(fmt.Sprintf("cannot inspect %s: %v", path, err), "check the permissions of "+path)
	case !st.Mode().IsRegular():
		return failc(fmt.Sprintf("%s is not a regular file (%s)", path, st.Mode().Type()),
			"move it away: while it is there every session reads as critical")
	case st.Mode()&os.ModeSticky != 0:
		return failc(fmt.Sprintf("a taint raise could not be recorded at all (the disk was full; %s has its sticky bit set): "+
			"which session saw what is unknown, so every session of this workspace reads as critical", path),
			"free disk space, end the Claude Code sessions that ran while the disk was full, then run: chmod 600 "+path)
	case st.Mode().Perm()&0o077 != 0:
		return failc(fmt.Sprintf("mode %04o: others may add or remove taint raises", st.Mode().Perm()), "run: chmod 600 "+path)
	}
	f, err := os.Open(path) //nolint:gosec // the workspace's own state file
	if err != nil {
		return failc(fmt.Sprintf("cannot read %s: %v", path, err), "check the permissions of "+path)
	}
	defer f.Close()
	b := make([]byte, min(st.Size(), maxJournalCheck))
	n, _ := f.ReadAt(b, 0)
	b = b[:usedBytes(b[:n])] // the lines end at the room written ahead (zeros)
	if len(b) == 0 {
		return ok("empty")
	}
	lines, sessions := 0, map[string]bool{}
	bad, err := eachPending(b, func(p pendingTaint) error {
		lines++
		if p.Level < 0 {
			return errBadLevel
		}
		sessions[p.Session] = true
		return nil
	})
	if err != nil {
		bad = lines // the line with the negative level
	}
	if bad > 0 {
		return failc(fmt.Sprintf("line %d of %s does not parse: it can never be written to the database, and "+
			"until it is every session of this workspace reads as critical", bad, path),
			"look at the line (a crash while appending leaves a torn one) and remove it; the raises on the other lines still count")
	}
	return warn(fmt.Sprintf("%d taint raise(s) of %d session(s) wait to be written to the database (it could not be, "+
		"the disk was full): until then every session reads as critical", lines, len(sessions)),
		"free disk space; the next command that reads a taint (parallax ifc list, or the next hook call) writes them")
}
