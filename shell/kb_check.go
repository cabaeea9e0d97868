package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// Helpers shared by the Check functions of the knowledge base. They only
// look at words already resolved by the core and record through Call.

const (
	accR   = action.AccessRead
	accW   = action.AccessWrite
	accD   = action.AccessDelete
	accRW  = action.AccessRead | action.AccessWrite
	accRD  = action.AccessRead | action.AccessDelete
	accWD  = action.AccessWrite | action.AccessDelete
	accAll = action.AccessRead | action.AccessWrite | action.AccessDelete
)

// unknownWord stands for a value only known at run time (find's {}, an
// xargs input item); prefix is what is known of it.
func unknownWord(prefix string) Word { return Word{Value: prefix} }

// lit makes a known word.
func lit(s string) Word { return Word{Value: s, Known: true} }

// pos returns the i-th positional word, if any.
func pos(c *Call, i int) (Word, bool) {
	if i < len(c.Positional) {
		return c.Positional[i], true
	}
	return Word{}, false
}

// posIs reports whether the i-th positional is known and one of vals.
func posIs(c *Call, i int, vals ...string) bool {
	w, ok := pos(c, i)
	if !ok || !w.Known {
		return false
	}
	for _, v := range vals {
		if w.Value == v {
			return true
		}
	}
	return false
}

// hasPos reports whether any positional is known and equal to one of vals.
func hasPos(c *Call, vals ...string) bool {
	for i := range c.Positional {
		if posIs(c, i, vals...) {
			return true
		}
	}
	return false
}

// hasArg reports whether any raw argument is known and equal to one of vals.
func hasArg(c *Call, vals ...string) bool {
	for _, w := range c.Args {
		if !w.Known {
			continue
		}
		for _, v := range vals {
			if w.Value == v {
				return true
			}
		}
	}
	return false
}

// flagValIs reports whether one of the flags was given with a known
// value equal (case-insensitively) to one of vals.
func flagValIs(c *Call, names []string, vals ...string) bool {
	w, ok := c.Flag(names...)
	if !ok || !w.Known {
		return false
	}
	for _, v := range vals {
		if strings.EqualFold(w.Value, v) {
			return true
		}
	}
	return false
}

// copyLike records the sources with src access and the destination with
// dst access: "-t DIR" names the destination (the table records it);
// otherwise the last operand does, when there are two or more.
func copyLike(src, dst action.Access) func(c *Call) {
	return func(c *Call) {
		p := c.Positional
		if _, ok := c.Flag("-t", "--target-directory"); ok || len(p) < 2 {
			for _, w := range p {
				c.Use(w, src)
			}
			return
		}
		for _, w := range p[:len(p)-1] {
			c.Use(w, src)
		}
		c.Use(p[len(p)-1], dst)
	}
}

// runFrom runs the positional words from index i on as a nested command.
func runFrom(c *Call, i int) {
	if i < len(c.Positional) {
		c.Run(c.Positional[i:])
	}
}

// joinWords joins words with spaces into one word (for programs that
// hand their arguments to sh -c: watch, ssh).
func joinWords(ws []Word) Word {
	if len(ws) == 1 {
		return ws[0]
	}
	var b strings.Builder
	known := true
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Value)
		known = known && w.Known
	}
	return Word{Value: b.String(), Known: known}
}

// historyFiles are base names of shell history files.
var historyFiles = map[string]bool{
	".bash_history": true, ".zsh_history": true, ".history": true, ".sh_history": true,
	".python_history": true, ".mysql_history": true, ".psql_history": true,
	".node_repl_history": true, ".lesshst": true, ".viminfo": true, "fish_history": true,
}

// isHistoryPath reports whether a path names a shell history file.
func isHistoryPath(p string) bool {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return historyFiles[p]
}

// isLogPath reports whether an absolute path is under a system log dir.
func isLogPath(p string) bool {
	return strings.HasPrefix(p, "/var/log/") || p == "/var/log" ||
		strings.HasPrefix(p, "/var/adm/") || strings.HasPrefix(p, "/private/var/log/") ||
		strings.HasPrefix(p, "/var/account/") || strings.HasPrefix(p, "/run/log/")
}

// tagPathKinds tags history wipes and log tampering by the paths a
// destructive program (shred, truncate, rm of logs) is given.
func tagPathKinds(c *Call, ws []Word) {
	for _, w := range ws {
		p, ok := c.Abs(w)
		if !ok {
			p = w.Value
		}
		switch {
		case isHistoryPath(p):
			c.Tag(TagHistoryWipe, p)
		case isLogPath(p):
			c.Tag(TagLogTamper, p)
		}
	}
}

// isDevicePath reports whether p is a block/char device other than the
// harmless pseudo devices.
func isDevicePath(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	switch p {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin",
		"/dev/tty", "/dev/random", "/dev/urandom", "/dev/full":
		return false
	}
	return !strings.HasPrefix(p, "/dev/fd/") && !strings.HasPrefix(p, "/dev/pts/") &&
		!strings.HasPrefix(p, "/dev/shm/")
}

// setuidMode reports whether a chmod mode sets the setuid or setgid bit:
// "u+s", "+s", "g=rxs", "4755", "2755", "06755".
func setuidMode(mode string) bool {
	if mode == "" {
		return false
	}
	if mode[0] >= '0' && mode[0] <= '7' {
		if len(mode) < 4 {
			return false
		}
		d := mode[len(mode)-4]
		return d >= '0' && d <= '7' && (d-'0')&6 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+=")
		if i >= 0 && strings.ContainsRune(clause[i+1:], 's') {
			return true
		}
	}
	return false
}

// credentialWords are names and patterns that mark a search for secrets.
var credentialWords = []string{
	"password", "passwd", "secret", "api_key", "apikey", "api-key", "token",
	"private key", "private_key", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
	".pem", ".env", "credentials", "aws_access_key", "aws_secret", ".pgpass",
	".netrc", "wallet.dat", ".kdbx", "authorized_keys", "shadow", ".git-credentials",
	"htpasswd", "bearer", "client_secret",
}

// looksLikeCredentialSearch reports whether a search pattern or name
// targets secrets.
func looksLikeCredentialSearch(s string) bool {
	l := strings.ToLower(s)
	for _, k := range credentialWords {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

// baseName returns the last element of a slash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// isPort reports whether s is a decimal port number.
func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// splitHostPort splits "host:port" (IPv6 in brackets allowed).
func splitHostPort(s string) (string, string) {
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "]"); i > 0 {
			return s[1:i], strings.TrimPrefix(s[i+1:], ":")
		}
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}
