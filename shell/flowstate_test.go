package shell

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/e2e"
)

// flowCases are commands whose real effect depends on control flow. Each
// creates a file named "mark" somewhere; bash decides where. sound rows
// are attacks on a walk that lets the last-walked branch win (the decoy is
// the workspace's build/); precise rows must stay resolved.
var flowCases = []struct {
	cmd     string
	precise bool // the analysis must name the file bash creates, not fall back to unknown
}{
	// if / elif / else, case, && and ||: a branch that did not run.
	{cmd: `d=~; if false; then d=build; fi; touch "$d/mark"`, precise: true},
	{cmd: `d=~; if false; then d=build; elif false; then d=build; else :; fi; touch "$d/mark"`},
	{cmd: `d=~; case x in y) d=build;; esac; touch "$d/mark"`, precise: true},
	// After ;& or ;;& the next item starts where the last one ended.
	{cmd: `d=~; case x in x) d=build;& y) touch "$d/mark";; esac`, precise: true},
	{cmd: `case x in x) cd build;;& x) touch mark;; esac`},
	{cmd: `d=~; false && d=build; touch "$d/mark"`, precise: true},
	{cmd: `d=~; true || d=build; touch "$d/mark"`},
	{cmd: `d=~; [ -e nope ] && d=build; touch "$d/mark"`, precise: true},
	// Loops: no round, or a later round that sees what an earlier one left.
	{cmd: `d=~; while false; do d=build; done; touch "$d/mark"`},
	{cmd: `d=build; while read x; do touch "$d/mark"; d=~; done < list`},
	{cmd: `d=build; for x in a b; do touch "$d/mark"; d=~; [ -e list ] && continue; d=build; done`},
	{cmd: `d=build; for x in ~ build; do d=$x; break; done; touch "$d/mark"`},
	{cmd: `d=build; for x in $(cat list); do touch "$d/mark"; d=~; done`},
	// A pipeline's stages run in subshells.
	{cmd: `d=~; echo | d=build; touch "$d/mark"`, precise: true},
	// Functions run in this shell; return leaves early.
	{cmd: `d=build; f() { d=~; }; f; touch "$d/mark"`},
	{cmd: `d=build; f() { d=~; return; d=build; }; f; touch "$d/mark"`},
	{cmd: `f() { cd ~; }; f; touch mark`},
	{cmd: `d=build; f() { local d=~; }; f; touch "$d/mark"`, precise: true},
	{cmd: `d=build; f() { d=~; local d=x; }; f; touch "$d/mark"`},
	{cmd: `d=~; f() { eval 'd=build'; local d=x; }; f; touch "$d/mark"`},
	{cmd: `d=~; f() { ( local d=x ); d=build; }; f; touch "$d/mark"`},
	{cmd: `d=~; f() { if false; then local d; fi; d=build; }; f; touch "$d/mark"`},
	{cmd: `d=~; f() { d=build; }; g() { f; local d=x; }; g; touch "$d/mark"`},
	{cmd: `rm() { command touch "$@"; }; rm build/mark ~/mark`, precise: true},
	// A function defined in a subshell, on one branch or unset is not
	// (or may not be) what the name runs.
	{cmd: `d=build; ( f() { d=~; } ); f 2>/dev/null; touch "$d/mark"`, precise: true},
	{cmd: `d=build; [ -e nope ] && f() { d=~; }; f 2>/dev/null; touch "$d/mark"`, precise: true},
	{cmd: `d=build; f() { d=~; }; unset -f f; f 2>/dev/null; touch "$d/mark"`, precise: true},
	{cmd: `d=build; f() { d=~; }; unset f; f 2>/dev/null; touch "$d/mark"`, precise: true},
	{cmd: `d=build; f() { local d=build; declare -g d=~; }; f; touch "$d/mark"`},
	// Shell code another program runs is another process.
	{cmd: `d=~; flock . -c 'd=build'; touch "$d/mark"`, precise: true},
	{cmd: `script -qec 'cd build' /dev/null >/dev/null; touch mark`, precise: true},
	{cmd: `env sh -c 'cd build && touch mark'`, precise: true},
	// Code a variable names runs in the program it is for, or (a prompt
	// command) later in this shell.
	{cmd: `d=~; EDITOR='d=build'; touch "$d/mark"`, precise: true},
	{cmd: `PAGER='cd build'; touch mark`, precise: true},
	{cmd: `d=build; PROMPT_COMMAND='d=~'; touch "$d/mark"`},
	// A command ended by & runs in a subshell.
	{cmd: `d=~; d=build & touch "$d/mark"; wait`},
	// An EXIT trap runs with the state at exit.
	{cmd: `d=build; trap 'touch "$d/mark"' EXIT; d=~`},
	// Builtins that assign.
	{cmd: `d=build; printf -vd %s ~; touch "$d/mark"`},
	{cmd: `d=build; printf -v d %s ~; touch "$d/mark"`},
	{cmd: `d=build; declare -n d=HOME; touch "$d/mark"`},
	// A readonly variable keeps its value: local, read, printf -v fail.
	{cmd: `d=~; readonly d; f() { local d=build; touch "$d/mark"; }; f 2>/dev/null`, precise: true},
	{cmd: `d=~; readonly d; read d <<< build 2>/dev/null; touch "$d/mark"`},
	{cmd: `declare -r d=~; printf -v d %s build 2>/dev/null; touch "$d/mark"`, precise: true},
	{cmd: `unset d; : ${d=~}; touch "$d/mark"`},
	{cmd: `HOME=$PWD/build; touch ~/mark`},
	// shift moves the parameters; hash -p renames a program.
	{cmd: `set -- build ~; shift; touch "$1/mark"`},
	{cmd: `hash -p "$(command -v touch)" ls; ls mark`},
	{cmd: `hash -p /usr/bin/touch ls; ls build/mark`},
	// An alias expands on the lines after it (hosts that run commands in a
	// snapshot of the user's shell turn expand_aliases on).
	{cmd: "shopt -s expand_aliases\nalias ls='touch'\nls ~/mark"},
	{cmd: "shopt -s expand_aliases\nalias mk='touch build/mark'\nmk", precise: true},
	// An alias defined in a subshell or on a branch that did not run.
	{cmd: "d=build; shopt -s expand_aliases\nalias mk='d=~'\n( alias mk='d=sub' )\nmk; touch \"$d/mark\"", precise: true},
	{cmd: "d=build; shopt -s expand_aliases\nalias mk='d=~'\n[ -e nope ] && alias mk='d=sub'\nmk; touch \"$d/mark\"", precise: true},
	// Without expand_aliases (bash -c) the alias is not expanded.
	{cmd: "d=build; alias mk='d=~'\nmk 2>/dev/null; touch \"$d/mark\"", precise: true},
	// A function named as a builtin runs instead of it (unless unset).
	{cmd: `d=~; printf() { :; }; printf -v d %s build; touch "$d/mark"`, precise: true},
	// A trap runs before every command; a key binding whenever the key
	// is pressed.
	{cmd: `d=build; bind -x '"\C-x": d=~' 2>/dev/null; touch "$d/mark"`},
	{cmd: `d=build; trap 'd=~' DEBUG; d=build; touch "$d/mark"`},
	// cd may fail; eval runs in this shell.
	{cmd: `cd ~; cd nonexistent 2>/dev/null; touch mark`},
	{cmd: `cd ~; false && cd build; touch mark`},
	{cmd: `cd ~; if cd nonexistent 2>/dev/null; then :; else touch mark; fi`},
	{cmd: `eval "cd ~"; touch mark`},
	{cmd: `command cd build; touch mark`},
	// CDPATH: cd looks for a relative name there first.
	{cmd: `mkdir -p ~/build; CDPATH=~; cd build >/dev/null && touch mark`},
	{cmd: `mkdir -p ~/build; export CDPATH=~; pushd build >/dev/null && touch mark`},
	{cmd: `CDPATH=; cd build && touch mark`, precise: true},
	{cmd: `d=build; builtin printf -v d %s ~; touch "$d/mark"`, precise: true},
	// A branch or a round that ends with a cd: it may have failed too.
	{cmd: `f() { cd nope; }; if true; then f; else :; fi 2>/dev/null; touch mark`},
	{cmd: `for x in a mark; do touch "$x"; cd nope 2>/dev/null; done`},
	{cmd: `d=build; eval 'cd nope' 2>/dev/null; touch "$d/mark"`},
	// A redirection that fails skips the command (not the assignments
	// of a command without one).
	{cmd: `d=build; printf -v d %s ~ < nope; touch "$d/mark"`, precise: true},
	{cmd: `d=build; { d=~; } < nope; touch "$d/mark"`, precise: true},
	{cmd: `d=build; f() { d=~; }; f < nope; touch "$d/mark"`, precise: true},
	{cmd: `d=build; d=~ < nope; touch "$d/mark"`, precise: true},
	// Look-alikes the analysis keeps exact.
	{cmd: `mkdir -p build && cd build && touch mark`, precise: true},
	{cmd: `cd build || exit 1; touch mark`, precise: true},
	{cmd: `d=build; if [ -e list ]; then d=build; fi; touch "$d/mark"`, precise: true},
	{cmd: `d=build; touch "$d/mark"`, precise: true},
	{cmd: `for x in build; do touch "$x/mark"; done`, precise: true},
	{cmd: `d=build; for f in *.txt; do touch "$d/mark"; d=~; done`},
	{cmd: `for f in build/*; do touch "$f.mark"; done; touch build/mark`, precise: true},
	{cmd: `[ -d build ] || mkdir build; touch build/mark`, precise: true},
}

// TestFlowStateAgainstBash runs each command in bash, in a throw-away
// workspace and home, finds the file it created, and holds the analysis
// to it: the path it names is that file, or what it names is unknown.
// Never a known path bash did not touch: that is how "rm -rf ~" passed as
// "rm -rf build".
func TestFlowStateAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	e2e.Need(t, err, "bash")
	for _, tc := range flowCases {
		t.Run(tc.cmd, func(t *testing.T) {
			root := t.TempDir()
			ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
			for _, d := range []string{filepath.Join(ws, "build"), home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"list", "a.txt", "b.txt"} {
				if err := os.WriteFile(filepath.Join(ws, f), []byte("a\nb\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bash, "--noprofile", "--norc", "-c", tc.cmd)
			cmd.Dir, cmd.Env = ws, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
			if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(tc.cmd, "exit") {
				t.Logf("bash: %v: %s", err, out)
			}
			var made []string
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && d.Name() == "mark" {
					made = append(made, p)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(made) == 0 {
				t.Fatalf("bash created no mark: the case is wrong")
			}
			eff := Analyze(tc.cmd, Options{Cwd: ws, Home: home})
			unknown := eff.Has(TagOpaque) || eff.Has(TagDynamicCommand)
			for _, f := range made {
				if !namesWrite(eff, f) && !unknown {
					t.Errorf("bash wrote %s; the analysis names %v and is not unknown", f, writes(eff))
				}
			}
			if tc.precise && unknown {
				t.Errorf("a look-alike became unknown: tags %v", eff.Tags)
			}
		})
	}
}

// namesWrite reports whether the effects record a write of f.
func namesWrite(eff *Effects, f string) bool {
	for _, u := range eff.Paths {
		if u.Access&action.AccessWrite == 0 {
			continue
		}
		if u.Path == f {
			return true
		}
		if ok, _ := path.Match(u.Path, f); u.Glob && ok {
			return true
		}
	}
	return false
}

func writes(eff *Effects) []string {
	var out []string
	for _, u := range eff.Paths {
		if u.Access&action.AccessWrite != 0 {
			out = append(out, u.Path)
		}
	}
	return out
}
