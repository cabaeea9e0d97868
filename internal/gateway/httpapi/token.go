package httpapi

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenBytes is the length of an API token: 64 hex characters (32 random
// bytes).
const TokenBytes = 64

// ErrNoToken is returned by LoadToken when the token file does not exist.
var ErrNoToken = errors.New("no API token (run parallax init to create one)")

// TokenPath is the workspace's API token file.
func TokenPath(root string) string { return filepath.Join(root, ".parallax", "api.token") }

// LoadToken reads and checks the token file at path: a regular file (not
// a symlink), with no group or other permission bits, holding 64 lower-case
// hex characters and at most one trailing newline. Errors name the file and
// what is wrong with it, never its content.
func LoadToken(path string) ([]byte, error) {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load api token %s: %w", path, ErrNoToken)
	}
	if err != nil {
		return nil, fmt.Errorf("load api token %s: %w", path, err)
	}
	if err := checkTokenMode(path, lst); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load api token %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load api token %s: %w", path, err)
	}
	if !os.SameFile(lst, st) {
		return nil, fmt.Errorf("load api token %s: the file was replaced while it was opened", path)
	}
	if err := checkTokenMode(path, st); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, TokenBytes+3))
	if err != nil {
		return nil, fmt.Errorf("load api token %s: %w", path, err)
	}
	tok := bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	if !validToken(tok) {
		return nil, fmt.Errorf("load api token %s: malformed (want %d lower-case hex characters); run parallax init --force to create a new one", path, TokenBytes)
	}
	return tok, nil
}

func checkTokenMode(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("load api token %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("load api token %s: mode %04o lets group or others read or write it; run chmod 600 %s", path, perm, path)
	}
	return nil
}

func validToken(tok []byte) bool {
	if len(tok) != TokenBytes {
		return false
	}
	for _, c := range tok {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// authenticator checks bearer tokens in constant time.
type authenticator struct{ sum [sha256.Size]byte }

func newAuthenticator(token []byte) (*authenticator, error) {
	if !validToken(token) {
		return nil, fmt.Errorf("api token: want %d lower-case hex characters", TokenBytes)
	}
	return &authenticator{sum: sha256.Sum256(token)}, nil
}

// authResult says why a request is not authenticated ("" when it is).
type authResult string

const (
	authOK      authResult = ""
	authMissing authResult = "missing"
	authInvalid authResult = "invalid"
)

// check reads an Authorization header value. Both sides are hashed
// before the comparison, so its time depends on neither the length nor
// the content of what was presented.
func (a *authenticator) check(header string) authResult {
	if header == "" {
		return authMissing
	}
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return authInvalid
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	if subtle.ConstantTimeCompare(got[:], a.sum[:]) != 1 {
		return authInvalid
	}
	return authOK
}
