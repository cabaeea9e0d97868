package workspace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/store"
)

const recreate = "re-create the workspace: parallax init --force (the old state is kept in .parallax/backups/)"

func (d *doctor) checkDB() Check {
	path := DBPath(d.root)
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.dbWhy = "no database"
		return failc(path+" is missing (session taint and the Chronicle index are lost)", recreate)
	case err != nil:
		d.dbWhy = "database not readable"
		return failc(fmt.Sprintf("cannot inspect %s: %v", path, err), "check the permissions of "+path)
	case !st.Mode().IsRegular():
		d.dbWhy = "database not a regular file"
		return failc(fmt.Sprintf("%s is not a regular file (%s)", path, st.Mode().Type()), "move it away, then "+recreate)
	}
	v, err := probeDB(d.ctx, path)
	if err != nil {
		d.dbWhy = "database does not open"
		return failc(err.Error(), "move the file aside and "+recreate)
	}
	cur := store.SchemaVersion()
	switch {
	case v > cur:
		d.dbWhy = "database schema is newer than this binary"
		return failc(fmt.Sprintf("schema v%d is newer than this binary knows (v%d)", v, cur),
			"use the parallax version that wrote it (or newer)")
	case v < cur:
		d.dbWhy = "database schema not current"
		return warn(fmt.Sprintf("schema v%d, this binary's is v%d", v, cur),
			"nothing to do: the next parallax command that opens the workspace (e.g. parallax ifc list) migrates it")
	}
	if d.db, err = store.Open(d.ctx, path); err != nil {
		d.dbWhy = "database does not open"
		return failc(err.Error(), "move the file aside and "+recreate)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return warn(fmt.Sprintf("schema v%d, integrity ok, but mode %04o", v, perm), "run: chmod 600 "+path)
	}
	return ok(fmt.Sprintf("schema v%d (current), integrity ok", v))
}

// probeDB opens the database read-only and returns its schema version
// after SQLite's quick integrity check.
func probeDB(ctx context.Context, path string) (int, error) {
	db, err := sql.Open("sqlite", "file:"+uriPath(path)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return 0, fmt.Errorf("open %s read-only: %w", path, err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version of %s: %w", path, err)
	}
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&res); err != nil {
		return 0, fmt.Errorf("check integrity of %s: %w", path, err)
	}
	if res != "ok" {
		return 0, fmt.Errorf("integrity check of %s failed: %.200s", path, res)
	}
	return v, nil
}

// uriPath escapes what ends or alters the path of an SQLite file: URI.
func uriPath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")
	return r.Replace(p)
}

func (d *doctor) checkAudit() Check {
	path := audit.DefaultPath(d.root)
	rep, err := audit.Verify(path, audit.VerifyOptions{})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failc(path+" is missing: the history of this workspace is gone",
			"if you kept an anchor elsewhere, this is the evidence; then "+recreate)
	case err != nil:
		// serve, mcp proxy and the hook daemon verify the chain at start
		// (VerifyChain) and refuse to start until it verifies.
		err = fmt.Errorf("%w (serve, mcp proxy and the hook daemon refuse to start until it verifies)", err)
		if ce, isChain := audit.AsChainError(err); isChain {
			switch ce.Code {
			case audit.CodeTornTail:
				return failc(err.Error(), "run: parallax audit --repair --workspace "+d.root+" (moves the torn bytes aside and records it)")
			case audit.CodeHeadMismatch, audit.CodeHeadMissing, audit.CodeHeadUnreadable:
				return failc(err.Error(), "run: parallax audit --repair --workspace "+d.root+" (if every entry verifies, "+
					"rewrites the head to the last one and records what it said; compare with an anchor kept elsewhere)")
			}
		}
		return failc(err.Error(), "the chain was altered: keep the file as evidence, compare it with an anchor kept "+
			"elsewhere (parallax audit --verify --anchor), then "+recreate)
	case rep.HeadLag > 0:
		return warn(fmt.Sprintf("%s verified; the head lags %d (a crash before it moved)",
			plural(rep.Entries, "entry", "entries"), rep.HeadLag),
			"nothing to do: the next append moves the head")
	}
	return ok(fmt.Sprintf("%s verified; anchor %s", plural(rep.Entries, "entry", "entries"), rep.Last))
}

func (d *doctor) checkChronicle() Check {
	if d.db == nil {
		return skip(d.dbWhy + " (see above)")
	}
	snaps, err := d.db.Snapshots(d.ctx)
	if err != nil {
		return failc(err.Error(), "move the database aside and "+recreate)
	}
	if len(snaps) == 0 {
		return ok("no snapshots yet")
	}
	c, err := chronicle.New(d.root, d.db, chronicle.Options{})
	if err == nil {
		err = c.Verify(d.ctx, false)
	}
	if err != nil {
		return failc(err.Error(), "parallax chronicle verify --deep shows the details; do not roll back to the "+
			"snapshots from the one named on")
	}
	return ok(plural(len(snaps), "snapshot", "snapshots") + ": index chain and objects verified")
}

// plural renders "1 entry", "2 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
