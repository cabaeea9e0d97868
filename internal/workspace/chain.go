package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/parallax/parallax/audit"
)

// ErrChainBroken is returned by VerifyChain when the workspace's audit
// chain does not verify: a long-running gate refuses to start on it.
var ErrChainBroken = errors.New("the audit chain does not verify")

// VerifyChain walks the whole audit chain of the workspace at root, as
// long-running processes (serve, mcp proxy, the hook daemon) do when they
// start: Open checks only the last entry and the head, so an entry edited
// in the middle would otherwise be noticed only by an explicit
// `parallax audit --verify` while the gate kept appending to it. No log
// and no head is an empty chain (Open starts it). A broken chain, or a
// log that is missing while its head is not, is an error wrapping ErrChainBroken that says what to
// run; the caller refuses to start (fail closed). The cost is a sequential
// read and one SHA-256 per entry (about 0.2 s for 100k entries).
func VerifyChain(root string) (audit.Report, error) {
	path := audit.DefaultPath(root)
	rep, err := audit.Verify(path, audit.VerifyOptions{})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, herr := os.Lstat(audit.HeadPath(path)); errors.Is(herr, fs.ErrNotExist) {
			return audit.Report{Path: path}, nil // no chain yet: Open starts one
		}
		return rep, fmt.Errorf("%w: %s is missing but its head file is not (the history of this workspace is gone); "+
			"refusing to start a gate that would begin a new one unnoticed: run `parallax doctor`", ErrChainBroken, path)
	case err != nil:
		if _, ok := audit.AsChainError(err); !ok {
			return rep, fmt.Errorf("verify the audit chain %s: %w", path, err)
		}
		return rep, fmt.Errorf("%w: %w; refusing to start a gate that would extend a history that cannot be trusted: "+
			"run `parallax doctor --workspace %s` (parallax audit --repair fixes a torn tail or a head that disagrees)",
			ErrChainBroken, err, root)
	}
	return rep, nil
}

// ChainStatus is the one-line account of a verified chain that health
// and status outputs give.
func ChainStatus(rep audit.Report) string {
	return fmt.Sprintf("verified at start: %d entries, last seq %d", rep.Entries, rep.Last.Seq)
}
