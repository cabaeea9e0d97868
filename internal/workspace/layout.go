package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The files and directories of DIR/.parallax besides config.yaml and
// parallax.db (see ConfigPath, DBPath); the audit chain is
// audit.DefaultPath.
const (
	policyFile    = "policy.yaml"
	canaryFile    = "canary.token"
	apiTokenFile  = "api.token"
	clientFile    = "client.token"
	gitignoreFile = ".gitignore"
	chronicleDir  = "chronicle"
	backupsDir    = "backups"
	initTempGlob  = ".parallax-init-*"
	backupPrefix  = "parallax-"
	backupStamp   = "20060102T150405Z"
	tokenBytes    = 32
	tokenHexChars = 2 * tokenBytes
)

// PolicyPath is the workspace's user rules, layered over the base policy.
func PolicyPath(root string) string { return filepath.Join(StateDir(root), policyFile) }

// CanaryPath is the workspace's canary token: a random value that must
// never appear in anything an agent or a judge produces.
func CanaryPath(root string) string { return filepath.Join(StateDir(root), canaryFile) }

// APITokenPath is the bearer token of the workspace's HTTP API.
func APITokenPath(root string) string { return filepath.Join(StateDir(root), apiTokenFile) }

// ClientTokenPath is the credential of the engine's ClientService: the
// chat, parallax run, status and stop send it with every call. It lives
// in .parallax, which every sandboxed command sees as an empty directory,
// so only the user's own clients can read it.
func ClientTokenPath(root string) string { return filepath.Join(StateDir(root), clientFile) }

// EnsureClientToken returns the workspace's client token, creating it
// (from r, nil: crypto/rand) when it is missing. An existing file is never
// overwritten: a bad one is an error (ErrBadToken), not a new token.
func EnsureClientToken(root string, r io.Reader) (string, error) {
	path := ClientTokenPath(root)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if r == nil {
			r = rand.Reader
		}
		tok, err := newToken(r)
		if err != nil {
			return "", fmt.Errorf("create %s: %w", path, err)
		}
		// O_EXCL: an engine racing another one keeps the first token.
		if err := writeNew(path, []byte(tok)); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return ReadToken(path)
}

// GitignorePath keeps the workspace's tokens, database, audit chain,
// snapshots and backups out of version control.
func GitignorePath(root string) string { return filepath.Join(StateDir(root), gitignoreFile) }

// gitignore is what Init writes to .parallax/.gitignore: everything but
// the two files a team may share (the preset and its own rules).
const gitignore = `# Written by parallax init. The tokens (canary, api, client), the
# database, the audit chain, snapshots and backups must not reach version
# control; config.yaml and policy.yaml may be shared with your team.
` + gitignoreRules

// gitignoreRules are the lines of the .gitignore without its header.
const gitignoreRules = `*
!.gitignore
!config.yaml
!policy.yaml
`

// BackupsDir holds what parallax init --force moved aside.
func BackupsDir(root string) string { return filepath.Join(StateDir(root), backupsDir) }

// ErrBadToken is returned by ReadToken for a token file that is not a
// private regular file holding 64 lower-case hex characters.
var ErrBadToken = errors.New("bad token file")

// ReadToken reads a token file written by Init (canary.token, api.token,
// client.token).
// The file must be a regular file (not a symlink) with no group or other
// permission bits, holding 64 lower-case hex characters and at most a
// trailing newline. Errors name the file and what is wrong, never the
// content.
func ReadToken(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("read token %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("read token %s: %w: not a regular file (%s)", path, ErrBadToken, st.Mode().Type())
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("read token %s: %w: mode %04o lets others read it (want 0600)", path, ErrBadToken, perm)
	}
	f, err := os.Open(path) //nolint:gosec // the workspace's own token file
	if err != nil {
		return "", fmt.Errorf("read token %s: %w", path, err)
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return "", fmt.Errorf("read token %s: %w: the file was replaced while it was opened", path, ErrBadToken)
	}
	b, err := io.ReadAll(io.LimitReader(f, tokenHexChars+2))
	if err != nil {
		return "", fmt.Errorf("read token %s: %w", path, err)
	}
	tok := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if len(tok) != tokenHexChars || !isLowerHex(tok) {
		return "", fmt.Errorf("read token %s: %w: want %d lower-case hex characters, got %d bytes", path,
			ErrBadToken, tokenHexChars, len(b))
	}
	return tok, nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// newToken reads tokenBytes from r and returns them hex-encoded.
func newToken(r io.Reader) (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// renameChecked renames src to dst unless dst exists.
func renameChecked(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(src, dst)
}
