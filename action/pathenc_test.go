package action

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckPathEncoding(t *testing.T) {
	cases := []struct {
		path    string
		refused bool
	}{
		{"%7E/.ssh/id_rsa", true},
		{"/home/dev/.ss%68/id_rsa", true},
		{"/home/dev/.ss%2568/id_rsa", true}, // double encoding: %25 is "%"
		{"/home/dev/project/%2e%2e/.aws/config", true},
		{"/home/dev/project/..%2F..%2F.aws/config", true},
		{"/home/dev/project/a%00b", true},
		{"/home/dev/project/%C3%A9", true},
		{"&#126;/.ssh/id_rsa", true},
		{"/home/dev/&#x2e;ssh/id_rsa", true},
		{"/home/dev/&period;ssh/id_rsa", true},
		{"/home/dev/\\x2e\\x73\\x73\\x68/id_rsa", true},
		{"/home/dev/\\u002essh/id_rsa", true},
		{"/home/dev/\\056ssh/id_rsa", true},
		{"/home/dev/.ѕsh/id_rsa", true},          // Cyrillic ѕ beside ASCII letters
		{"/home/dev/.ѕѕһ/config", true},          // every letter folds to ASCII
		{"/home/dev/．ssh/id_rsa", true},          // fullwidth full stop
		{"/home/dev/.ssh∕id_rsa", true},          // division slash
		{"/home/dev/.s\u200bsh/id_rsa", true},    // zero-width space
		{"/home/dev/project/\u202etxt.sh", true}, // bidi override

		{"/home/dev/project/report%20final.txt", false},
		{"/home/dev/project/100%.txt", false},
		{"/home/dev/project/%zz", false},
		{"/home/dev/project/R&D/notes.md", false},
		{"/home/dev/project/a&b;c", false},
		{"/home/dev/project/café.txt", false},
		{"/home/dev/project/文档.md", false},
		{"/home/dev/project/отчёт.txt", false},
		{"/home/dev/project/αρχείο.md", false},
		{"/home/dev/project/dir\\name", false},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			err := CheckPathEncoding(tc.path)
			if got := err != nil; got != tc.refused {
				t.Fatalf("refused %v (%v), want %v", got, err, tc.refused)
			}
			if err != nil && !errors.Is(err, ErrEncodedPath) {
				t.Errorf("got %v, want ErrEncodedPath", err)
			}
			if _, nerr := NormalizePath(tc.path, Env{Home: "/home/dev"}); tc.refused && !errors.Is(nerr, ErrEncodedPath) {
				t.Errorf("NormalizePath: got %v, want ErrEncodedPath", nerr)
			}
		})
	}
}

// FuzzCheckPathEncoding: no panic, and a path of plain ASCII without
// %, & or \ is never refused.
func FuzzCheckPathEncoding(f *testing.F) {
	for _, s := range []string{"/a/%68", "&#126;/x", `/a/\x2e`, "/home/.ѕsh", "/ｘ", "/a%", "/a&b;", `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := CheckPathEncoding(p)
		if err != nil && !errors.Is(err, ErrEncodedPath) {
			t.Fatalf("got %v, want ErrEncodedPath", err)
		}
		if isASCII(p) && !strings.ContainsAny(p, `%&\`) && err != nil {
			t.Fatalf("plain path %q refused: %v", p, err)
		}
	})
}
