package ifc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// List returns the whole activity table, sorted by path (`parallax ifc
// list`).
func List(ctx context.Context, s ActivityStore) ([]Activity, error) {
	out, err := s.ActivityUnder(ctx, "/", Public)
	if err != nil {
		return nil, fmt.Errorf("list activity: %w", err)
	}
	return out, nil
}

// Exists reports whether a file is still there. FileExists is the real
// one; tests pass their own.
type Exists func(path string) (bool, error)

// FileExists asks the file system (without following a final symlink:
// a dangling link still holds its label's name).
func FileExists(p string) (bool, error) {
	_, err := os.Lstat(p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// Sweep drops the activity entries whose files are gone (`parallax ifc
// sweep`) and returns them, for the caller to audit. An entry whose
// existence cannot be checked is kept (dropping a label is the unsafe
// direction) and its error is returned with the others.
func Sweep(ctx context.Context, s ActivityStore, exists Exists) ([]Activity, error) {
	if exists == nil {
		exists = FileExists
	}
	all, err := List(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("sweep activity: %w", err)
	}
	var gone []Activity
	var errs []error
	for _, a := range all {
		ok, err := exists(a.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep activity: check %s: %w", a.Path, err))
			continue
		}
		if ok {
			continue
		}
		if err := s.DeleteActivity(ctx, a.Path); err != nil {
			errs = append(errs, fmt.Errorf("sweep activity: delete %s: %w", a.Path, err))
			continue
		}
		gone = append(gone, a)
	}
	return gone, errors.Join(errs...)
}
