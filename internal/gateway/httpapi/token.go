package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/internal/workspace"
)

// TokenBytes is the length of an API token: 64 hex characters (32 random
// bytes).
const TokenBytes = 64

// ErrNoToken is returned by LoadToken when the token file does not exist.
var ErrNoToken = errors.New("no API token (run parallax init to create one)")

// TokenPath is the workspace's API token file.
func TokenPath(root string) string { return filepath.Join(root, ".parallax", "api.token") }

// LoadToken reads and checks the token file at path with the workspace's
// own token reader (a regular file, mode 0600, 64 lower-case hex
// characters, not swapped while opened). Errors name the file and what
// is wrong with it, never its content.
func LoadToken(path string) ([]byte, error) {
	tok, err := workspace.ReadToken(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load api token %s: %w", path, ErrNoToken)
	}
	if err != nil {
		return nil, fmt.Errorf("load api token: %w (chmod 600 it, or run parallax init --force for a new one)", err)
	}
	return []byte(tok), nil
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
