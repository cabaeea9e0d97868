package httpapi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadToken(t *testing.T) {
	const secretish = "deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeeZ"
	cases := []struct {
		name    string
		setup   func(t *testing.T, path string)
		want    string // token, when it loads
		wantErr string // part of the error, when it does not
		noEcho  string // must not appear in the error
	}{
		{"plain", writeToken(testToken, 0o600), testToken, "", ""},
		{"trailing newline", writeToken(testToken+"\n", 0o600), testToken, "", ""},
		{"crlf", writeToken(testToken+"\r\n", 0o600), testToken, "", ""},
		{"owner read only", writeToken(testToken, 0o400), testToken, "", ""},
		{"missing", func(*testing.T, string) {}, "", "run parallax init", ""},
		{"group readable", writeToken(testToken, 0o640), "", "mode 0640", testToken},
		{"world readable", writeToken(testToken, 0o604), "", "chmod 600", testToken},
		{"short", writeToken(testToken[:63], 0o600), "", "want 64 lower-case hex characters", testToken[:63]},
		{"long", writeToken(testToken+"0", 0o600), "", "want 64 lower-case hex characters", testToken},
		{"not hex", writeToken(secretish, 0o600), "", "want 64 lower-case hex characters", secretish},
		{"upper case", writeToken(strings.ToUpper(testToken), 0o600), "", "want 64 lower-case hex characters", strings.ToUpper(testToken)},
		{"two lines", writeToken(testToken+"\n\n", 0o600), "", "want 64 lower-case hex characters", testToken},
		{"empty", writeToken("", 0o600), "", "want 64 lower-case hex characters", ""},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "", "not a regular file", ""},
		{"symlink", func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "elsewhere")
			writeToken(testToken, 0o600)(t, target)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, "", "not a regular file", testToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "api.token")
			tc.setup(t, path)
			got, err := LoadToken(path)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want the token", err)
				}
				if string(got) != tc.want {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("got a token, want an error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("got %v, want it to name %s and say %q", err, path, tc.wantErr)
			}
			if tc.noEcho != "" && strings.Contains(err.Error(), tc.noEcho) {
				t.Errorf("the error echoes the file's content: %v", err)
			}
		})
	}
	t.Run("missing is ErrNoToken", func(t *testing.T) {
		_, err := LoadToken(filepath.Join(t.TempDir(), "api.token"))
		if !errors.Is(err, ErrNoToken) {
			t.Errorf("got %v, want ErrNoToken", err)
		}
	})
}

func writeToken(content string, mode os.FileMode) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuthenticator(t *testing.T) {
	a, err := newAuthenticator([]byte(testToken))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		header string
		want   authResult
	}{
		{"Bearer " + testToken, authOK},
		{"bearer " + testToken, authOK},
		{"BEARER  " + testToken + " ", authOK},
		{"", authMissing},
		{"Bearer", authInvalid},
		{"Bearer ", authInvalid},
		{"Basic " + testToken, authInvalid},
		{"Bearer " + testToken[:63], authInvalid},
		{"Bearer " + testToken + "0", authInvalid},
		{"Bearer " + strings.ToUpper(testToken), authInvalid},
		{testToken, authInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.header, func(t *testing.T) {
			if got := a.check(tc.header); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "abc", strings.ToUpper(testToken)} {
		if _, err := newAuthenticator([]byte(bad)); err == nil {
			t.Errorf("newAuthenticator(%q): got no error", bad)
		}
	}
}

func BenchmarkAuthCheck(b *testing.B) {
	a, err := newAuthenticator([]byte(testToken))
	if err != nil {
		b.Fatal(err)
	}
	h := "Bearer " + testToken
	for b.Loop() {
		if a.check(h) != authOK {
			b.Fatal("rejected")
		}
	}
}
