package claudecode

import (
	"errors"
	"fmt"

	"github.com/parallax/parallax/internal/workspace"
)

// ErrNoWorkspace is returned by FindWorkspace when no directory at or
// above the start holds a workspace.
var ErrNoWorkspace = workspace.ErrNoWorkspace

// FindWorkspace is workspace.Find, with the hook's consequence in the
// error: without a workspace the hook refuses every tool call.
func FindWorkspace(starts ...string) (string, error) {
	root, err := workspace.Find(starts...)
	if errors.Is(err, workspace.ErrNoWorkspace) {
		return "", fmt.Errorf("%w: run `parallax init` in the project directory; "+
			"until then the hook refuses every tool call", err)
	}
	return root, err
}
