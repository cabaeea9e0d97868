package heuristic

import (
	"github.com/parallax/parallax/internal/glob"
	"strings"
	"testing"
)

func TestPathSets(t *testing.T) {
	const home = "/home/dev"
	cred := []string{"/home/dev/.netrc", "/root/.git-credentials", "/home/alice/.aws/credentials",
		"/Users/bob/.kube/config", "/proc/1/environ", "/home/dev/project/infra/prod.tfstate",
		"/home/dev/.config/google-chrome/Default/Login Data", "/home/dev/.ssh/id_rsa", "/etc/shadow"}
	notCred := []string{"/home/dev/.ssh/id_rsa.pub", "/home/dev/.ssh/known_hosts", "/home/dev/project/main.go",
		"/etc/hosts", "/proc/cpuinfo", "/home/dev/.bashrc"}
	for _, p := range cred {
		if !isCredential(p, false, home) {
			t.Errorf("isCredential(%q) = false", p)
		}
	}
	for _, p := range notCred {
		if isCredential(p, false, home) {
			t.Errorf("isCredential(%q) = true", p)
		}
	}
	if !isCredential("/home/dev/.ssh/*", true, home) || isCredential("/home/dev/project/*", true, home) {
		t.Errorf("glob credential matching is wrong")
	}
	crit := []string{"/", "/etc", "/usr/lib", "/home/dev", "/home", "/home/dev/project", "/var"}
	notCrit := []string{"/home/dev/project/build", "/tmp/x", "/usr/lib/python3/site-packages", "/home/dev/Downloads"}
	for _, p := range crit {
		if !isCriticalDir(p, home, "/home/dev/project") {
			t.Errorf("isCriticalDir(%q) = false", p)
		}
	}
	for _, p := range notCrit {
		if isCriticalDir(p, home, "/home/dev/project") {
			t.Errorf("isCriticalDir(%q) = true", p)
		}
	}
	for g, want := range map[string]bool{"/*": true, "/home/dev/*": true, "/home/dev/.*": true,
		"/usr/*": true, "/home/dev/*.log": false, "/home/dev/project/build/*": false, "/tmp/*": false} {
		if got := isCriticalGlob(g, home, "/home/dev/project"); got != want {
			t.Errorf("isCriticalGlob(%q) = %v, want %v", g, got, want)
		}
	}
}

// TestPrefixIndexIsSound: the prefix index leaves out only rules a glob
// cannot meet, for every path set and a spread of globs.
func TestPrefixIndexIsSound(t *testing.T) {
	globs := []string{"/home/dev/project/*/*.rm", "/home/dev/*", "/home/*/.ssh/*", "/*/*/.bashrc", "/etc/cron.d/*",
		"/home/dev/.aws/cred*", "/*", "/tmp/*", "/home/dev/project/.env*", "/root/.*", "/var/log/*.log",
		"/home/dev/.config/*/autostart/*", "/home/dev/project/.git/hooks/*", "/Users/x/Library/*/*"}
	sets := []*pathSet{credentialPaths, exfilSources, persistencePaths, systemPaths, logPaths, historyPaths, privilegePaths}
	for _, set := range sets {
		v := set.view("/home/dev")
		for _, g := range globs {
			in := map[int]bool{}
			for _, i := range v.candidates(glob.LiteralPrefix(g), nil) {
				in[i] = true
			}
			for i, r := range v.rules {
				if !in[i] && glob.Intersect(g, r.pat) {
					t.Errorf("%s: the index leaves out %s, which it meets", g, r.pat)
				}
			}
		}
		for _, dir := range []string{"/home/dev/project", "/", "/home", "/etc", "/home/dev"} {
			in := map[int]bool{}
			for _, i := range v.candidates(dir, nil) {
				in[i] = true
			}
			for i, r := range v.rules {
				if !in[i] && (r.pat == dir || reaches(dir, r.pat)) {
					t.Errorf("dir %s: the index leaves out %s, which reaches it", dir, r.pat)
				}
			}
		}
	}
}

// TestMatchGlobEndFilterIsSound: a glob ending in a bracket set is the
// union of the globs ending in each member; whenever one of those meets
// a rule, matchGlob and matchScope must say so.
func TestMatchGlobEndFilterIsSound(t *testing.T) {
	cases := []struct {
		glob    string
		members []string
	}{
		{"/home/dev/project/**/*.[ch]", []string{"/home/dev/project/**/*.c", "/home/dev/project/**/*.h"}},
		{"/home/dev/.ssh/id_rs[a-c]", []string{"/home/dev/.ssh/id_rsa", "/home/dev/.ssh/id_rsb", "/home/dev/.ssh/id_rsc"}},
		{"/home/dev/*/.env.loca[l]", []string{"/home/dev/*/.env.local"}},
		{"/home/dev/project/*.p[em]", []string{"/home/dev/project/*.pe", "/home/dev/project/*.pm"}},
		{"/etc/ssh/ssh_host_*_ke[xy]", []string{"/etc/ssh/ssh_host_*_kex", "/etc/ssh/ssh_host_*_key"}},
		{"/home/*/.bash_histor[y]", []string{"/home/*/.bash_history"}},
	}
	sets := []*pathSet{credentialPaths, exfilSources, persistencePaths, systemPaths, logPaths, historyPaths, privilegePaths}
	for _, set := range sets {
		for _, c := range cases {
			want := false
			for _, m := range c.members {
				for _, r := range set.view("/home/dev").rules {
					want = want || glob.Intersect(m, r.pat)
				}
			}
			if want && !set.matchGlob(c.glob, "/home/dev") {
				t.Errorf("%s: one of %v meets the set, matchGlob says no", c.glob, c.members)
			}
		}
	}
	if !credentialPaths.matchGlob("/home/dev/.ssh/id_rs[a-c]", "/home/dev") {
		t.Errorf("id_rs[a-c] must meet ~/.ssh/id_*")
	}
	if credentialPaths.matchGlob("/home/dev/project/**/*.[ch]", "/home/dev") {
		t.Errorf("C sources are not credentials")
	}
}

// TestMemoKeepsHomesApart: the answers remembered for one home are never
// given for another. "/opt/dev/.ssh/*" is a credential glob only when
// /opt/dev is the home; asked first under /opt/dev, then under
// /home/dev, then again, each answer is the one its own home gives.
func TestMemoKeepsHomesApart(t *testing.T) {
	const g = "/opt/dev/.ssh/*"
	for i := 0; i < 2; i++ {
		if !credentialPaths.matchGlob(g, "/opt/dev") {
			t.Fatalf("pass %d: %s is not a credential glob with home /opt/dev", i, g)
		}
		if credentialPaths.matchGlob(g, "/home/dev") {
			t.Fatalf("pass %d: %s is a credential glob with home /home/dev", i, g)
		}
	}
	if !credentialPaths.matchScope("/opt/dev/.ssh", "*.key", "/opt/dev") || credentialPaths.matchScope("/opt/dev/.ssh", "*.key", "/home/dev") {
		t.Fatal("matchScope answers for one home leak into the other")
	}
	// Arguments that differ only in how they split between dir and name
	// are different questions.
	if credentialPaths.matchScope("/opt/dev/.ssh", "x", "/opt/dev") != credentialPaths.view("/opt/dev").matchScope("/opt/dev/.ssh", "x") {
		t.Fatal("matchScope memo disagrees with the computation")
	}
}

// TestMemoAgrees: over many globs, the memoised answer (asked twice) is
// the computed one, in every set.
func TestMemoAgrees(t *testing.T) {
	globs := []string{"/home/dev/project/**", "/home/dev/project/**.jpg", "/home/dev/*", "/home/dev/.*", "/etc/*",
		"/home/*/.ssh/*", "/tmp/*", "/var/log/*.log", "/home/dev/.config/**", "/root/*", "/etc/cron.d/*", "/**/id_rsa*",
		"/home/dev/project/*.[ch]", "/home/dev/.bash_*", "/etc/sudoers.d/*", "/home/dev/project/**/*.pem"}
	sets := []*pathSet{credentialPaths, exfilSources, persistencePaths, systemPaths, logPaths, historyPaths, privilegePaths, packageSourceLists}
	for _, set := range sets {
		v := set.view("/home/dev")
		for _, g := range globs {
			want := v.matchGlob(g)
			for i := 0; i < 2; i++ {
				if got := set.matchGlob(g, "/home/dev"); got != want {
					t.Errorf("ask %d of %s: memo says %v, computation %v", i, g, got, want)
				}
			}
		}
	}
}

// TestParallaxGlobMemo: the remembered answer for a glob is the one for
// its own workspace and home, and agrees with concrete paths.
func TestParallaxGlobMemo(t *testing.T) {
	cases := []struct {
		p        string
		glob     bool
		ws, home string
		want     bool
	}{
		{"/w1/.par*/x", true, "/w1", "/h", true},
		{"/w1/.par*/x", true, "/w2", "/h", false},
		{"/w1/.par*/x", true, "/w1", "/h", true},
		{"/h/.parallax/*", true, "/w2", "/h", true},
		{"/h/.parallax/*", true, "/w2", "/h2", false},
		{"/w1/*.log", true, "/w1", "/h", false},
		{"/w1/.parallax", false, "/w1", "/h", true},
		{"/w1/.parallax/policy.yaml", false, "/w1", "/h", true},
		{"/w1/.parallaxx", false, "/w1", "/h", false},
		{"/w1/x/.parallax", false, "/w1", "/h", false},
		{"/tmp/audit.jsonl", false, "/w1", "/h", true},
		{"/.parallax/x", false, "/w1", "/", true},
	}
	for i := 0; i < 2; i++ { // the second time from the memo
		for _, c := range cases {
			if got := isParallaxPath(c.p, c.glob, c.ws, c.home); got != c.want {
				t.Errorf("pass %d: isParallaxPath(%s, glob %v, ws %s, home %s) = %v, want %v", i, c.p, c.glob, c.ws, c.home, got, c.want)
			}
		}
	}
}

// TestListPatNeedIsSound: a pattern's literal run is in every name it
// matches, so the filter in matchList never drops a match. Names are
// the set patterns themselves with their wildcards filled in several
// ways, so every pattern is tried against names it matches.
func TestListPatNeedIsSound(t *testing.T) {
	sets := []*pathSet{credentialPaths, exfilSources, persistencePaths, systemPaths, logPaths, historyPaths, privilegePaths, packageSourceLists}
	fills := []struct{ dstar, star, q string }{{"", "", "x"}, {"a/b", "xy", "q"}, {"a", "*", "?"}, {".git/hooks", "hooks", "/"}}
	var names []string
	var pats []listPat
	for _, s := range sets {
		lists := [][]listPat{s.absStar, s.homeStar, s.baseG}
		for _, l := range s.abs {
			lists = append(lists, l)
		}
		for _, l := range s.home {
			lists = append(lists, l)
		}
		for _, l := range lists {
			for _, lp := range l {
				pats = append(pats, lp)
				for _, f := range fills {
					n := strings.ReplaceAll(lp.pat, "**", "\x00")
					n = strings.ReplaceAll(n, "*", f.star)
					n = strings.ReplaceAll(n, "?", f.q)
					names = append(names, strings.ReplaceAll(n, "\x00", f.dstar))
				}
			}
		}
	}
	matched := 0
	for _, lp := range pats {
		for _, n := range names {
			if !glob.Match(lp.pat, n) {
				continue
			}
			matched++
			if !strings.Contains(n, lp.need) {
				t.Errorf("%q matches %q but lacks its literal run %q", lp.pat, n, lp.need)
			}
			if !matchList([]listPat{lp}, n) {
				t.Errorf("matchList drops %q for %q", n, lp.pat)
			}
		}
	}
	if matched < len(pats) {
		t.Fatalf("only %d matches over %d patterns: the names do not exercise the filter", matched, len(pats))
	}
}

// TestMemoKeysWithNUL: questions whose parts hold NUL are answered
// afresh. Each pair below joins to one key with NUL between the parts,
// and the two answers differ; the second asked must still get its own.
func TestMemoKeysWithNUL(t *testing.T) {
	v := credentialPaths.view("/home/dev")
	type scope struct{ dir, name string }
	for _, pair := range [][2]scope{{{"/home/dev/.ssh\x00a", "_rsa"}, {"/home/dev/.ssh", "a\x00_rsa"}}} {
		if v.matchScope(pair[0].dir, pair[0].name) == v.matchScope(pair[1].dir, pair[1].name) {
			t.Fatalf("the pair %q does not tell sharing apart", pair)
		}
		for _, q := range pair {
			if got := credentialPaths.matchScope(q.dir, q.name, "/home/dev"); got != v.matchScope(q.dir, q.name) {
				t.Errorf("matchScope(%q, %q) = %v from the memo", q.dir, q.name, got)
			}
		}
	}
	type own struct{ p, ws, home string }
	pair := [2]own{{"/w/.par*", "/w\x00/h", "x"}, {"/w/.par*", "/w", "/h\x00x"}}
	if parallaxGlob(pair[0].p, pair[0].ws, pair[0].home) == parallaxGlob(pair[1].p, pair[1].ws, pair[1].home) {
		t.Fatalf("the pair %q does not tell sharing apart", pair)
	}
	for _, q := range pair {
		if got := isParallaxPath(q.p, true, q.ws, q.home); got != parallaxGlob(q.p, q.ws, q.home) {
			t.Errorf("isParallaxPath(%q, %q, %q) = %v from the memo", q.p, q.ws, q.home, got)
		}
	}
}
