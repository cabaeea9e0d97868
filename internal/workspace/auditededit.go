package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/atomicfile"
)

// OpenChain opens the workspace's audit chain before a change to the gate:
// a change the chain could not record does not happen.
func OpenChain(root, what string) (*audit.Log, error) {
	log, err := audit.Open(audit.DefaultPath(root), audit.Options{})
	if err != nil {
		return nil, fmt.Errorf("nothing was changed: the audit chain of %s cannot record the %s (%w); "+
			"run `parallax doctor`", root, what, err)
	}
	return log, nil
}

// FileDigest is "sha256:HEX" of a file's content, or "none" when it does
// not exist. Only the hash is recorded, never the content.
func FileDigest(path string) (string, []byte, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the workspace's own configuration file
	if errors.Is(err, fs.ErrNotExist) {
		return "none", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), data, nil
}

// AuditedFileEdit applies edit to file and records it in the workspace's
// chain as a ConfigChanged entry: the code, the rule, the file, its hash
// after (Ref) and before and after (Message). The chain is opened first; if the entry cannot be
// appended, the file is put back as it was.
func AuditedFileEdit(ctx context.Context, root, file, code, rule string, edit func() error) (err error) {
	log, err := OpenChain(root, code)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, log.Close()) }()
	before, old, err := FileDigest(file)
	if err != nil {
		return err
	}
	if err := edit(); err != nil {
		return err
	}
	after, _, err := FileDigest(file)
	if err == nil {
		_, err = log.Append(context.WithoutCancel(ctx), audit.Event{Type: audit.ConfigChanged, Stage: "human", Rule: rule,
			Detail: audit.Detail{Code: code, Path: file, Ref: after,
				Message: fmt.Sprintf("%s: rule %q; file before %s after %s", code, rule, before, after)}})
	}
	if err != nil {
		return errors.Join(fmt.Errorf("the change to %s could not be recorded in the audit chain, so it was undone: %w", file, err),
			restoreFile(file, old))
	}
	return nil
}

// restoreFile puts back a file's old content (nil: it did not exist).
func restoreFile(file string, old []byte) error {
	if old == nil {
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("undo: remove %s: %w", file, err)
		}
		return nil
	}
	return atomicfile.Write(file, old, 0o600)
}
