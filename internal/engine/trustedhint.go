package engine

import (
	"strings"

	"github.com/parallax/parallax/guard"
)

// trustedRefusals are what a program prints when it could not change a
// file the command sandbox keeps read-only (git renames its config.lock
// over .git/config: a read-only mount answers EBUSY).
var trustedRefusals = [...]string{"Device or resource busy", "Read-only file system", "Permission denied", "could not lock config file"}

// hostTrustedHint tells the model, when a command could not change one
// of the workspace's host-trusted files (.git/config, .git/hooks,
// .claude, …), that Parallax keeps them read-only to commands and what to
// do instead, so it does not retry the same write or take it for a broken
// repository. Whatever the exit status: git push -u pushes, fails to
// record the upstream and exits 0.
func hostTrustedHint(res *Result) string {
	refused := false
	for _, m := range trustedRefusals {
		refused = refused || strings.Contains(res.Output, m)
	}
	if !refused {
		return ""
	}
	for _, rel := range guard.HostTrusted() {
		if strings.Contains(res.Output, rel) {
			return "Parallax's sandbox keeps " + rel + " read-only to commands (with .git/config, .git/hooks and the editors' and " +
				"agents' settings: the user's own tools obey them): git config, git remote add and git push -u cannot change a " +
				"repository's config once it exists. Pass settings with the command instead (git -c user.name=N -c user.email=E " +
				"commit, git push URL BRANCH), set them in the same command as git init, or ask the user to change the file"
		}
	}
	return ""
}
