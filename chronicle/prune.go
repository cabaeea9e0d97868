package chronicle

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PruneResult reports what Prune removed.
type PruneResult struct {
	Snapshots int64 // snapshots deleted
	Objects   int   // object files deleted
	Bytes     int64 // bytes of object files deleted
}

// Prune applies retention: it keeps at most keep snapshots (0: no count
// limit) and none older than maxAge (0: no age limit), then deletes the
// objects no remaining snapshot references. Snapshots always go oldest
// first (a prefix of the chain), so the rest still verifies.
func (c *Chronicle) Prune(ctx context.Context, keep int, maxAge time.Duration) (PruneResult, error) {
	if keep < 0 || maxAge < 0 {
		return PruneResult{}, fmt.Errorf("prune: keep %d and max age %s must not be negative", keep, maxAge)
	}
	unlock, err := lockFile(c.lockPath(), true)
	if err != nil {
		return PruneResult{}, fmt.Errorf("prune: %w", err)
	}
	defer unlock()
	list, err := c.db.Snapshots(ctx)
	if err != nil {
		return PruneResult{}, fmt.Errorf("prune: %w", err)
	}
	now := c.opts.Now()
	var cut int64 // newest id to delete; every older one goes too
	for i, s := range list {
		tooMany := keep > 0 && i < len(list)-keep
		tooOld := maxAge > 0 && now.Sub(s.CreatedAt) > maxAge
		if tooMany || tooOld {
			cut = s.ID
		}
	}
	var res PruneResult
	if cut > 0 {
		if res.Snapshots, err = c.db.DeleteSnapshotsThrough(ctx, cut); err != nil {
			return res, fmt.Errorf("prune: %w", err)
		}
	}
	refs, err := c.db.ReferencedObjects(ctx)
	if err != nil {
		return res, fmt.Errorf("prune: %w", err)
	}
	if res.Objects, res.Bytes, err = c.objects.gc(refs); err != nil {
		return res, fmt.Errorf("prune: %w", err)
	}
	return res, nil
}

// ParseAge parses a retention age: a Go duration ("36h", "90m") or a
// whole number of days or weeks ("30d", "2w").
func ParseAge(s string) (time.Duration, error) {
	const day = 24 * time.Hour
	unit := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		unit = day
	case strings.HasSuffix(s, "w"):
		unit = 7 * day
	}
	if unit == 0 {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("age %q: want a duration like 36h, 30d or 2w", s)
		}
		return d, nil
	}
	n, err := strconv.ParseUint(s[:len(s)-1], 10, 32)
	if err != nil || time.Duration(n) > (1<<62)/unit {
		return 0, fmt.Errorf("age %q: want a duration like 36h, 30d or 2w", s)
	}
	return time.Duration(n) * unit, nil
}

// VerifyError locates the first integrity problem Verify found.
type VerifyError struct {
	ID   int64  // snapshot
	Path string // entry, when the problem is an object
	Err  error
}

func (e *VerifyError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("verify snapshot #%d: %s: %v", e.ID, e.Path, e.Err)
	}
	return fmt.Sprintf("verify snapshot #%d: %v", e.ID, e.Err)
}

func (e *VerifyError) Unwrap() error { return e.Err }

// Verify checks the whole index: each record's hash, its manifest hash,
// the links of the chain from the anchor, and that every object exists.
// With deep, every object is also re-hashed. The first problem comes back
// as a *VerifyError wrapping ErrTampered. Truncation of the newest
// snapshots is only visible against a head recorded elsewhere (ChainHead).
func (c *Chronicle) Verify(ctx context.Context, deep bool) error {
	unlock, err := lockFile(c.lockPath(), false)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer unlock()
	list, err := c.db.Snapshots(ctx)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	prev, err := c.db.ChainAnchor(ctx)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	checked := map[string]bool{}
	for _, rec := range list {
		files, err := c.db.SnapshotFiles(ctx, rec.ID)
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		if err := checkRecord(rec, files, prev); err != nil {
			return &VerifyError{ID: rec.ID, Err: err}
		}
		for _, f := range files {
			if f.Object == "" || checked[f.Object] {
				continue
			}
			checked[f.Object] = true
			if err := c.checkObject(f.Object, deep); err != nil {
				return &VerifyError{ID: rec.ID, Path: f.Path, Err: fmt.Errorf("%w: %w", ErrTampered, err)}
			}
		}
		prev = rec.Hash
	}
	return nil
}

func (c *Chronicle) checkObject(h string, deep bool) error {
	if deep {
		return c.objects.check(h)
	}
	if !c.objects.has(h) {
		return fmt.Errorf("object %s missing", short(h))
	}
	return nil
}
