// Command parallax is the Parallax CLI: one static binary for the gate,
// its policy tools and the corpus runner.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/parallax/parallax/internal/tools/files"
	"github.com/parallax/parallax/sandbox"

	"github.com/spf13/cobra"
)

func main() {
	// A command's sandbox wrapper runs before anything else: it applies
	// the sandbox and execs the command, and nothing of the CLI may run
	// unconfined on its way there.
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		os.Exit(sandbox.ExecMain(os.Args[2:]))
	}
	// So does a file operation's confined helper: it confines itself
	// before it opens anything.
	if len(os.Args) > 1 && os.Args[1] == files.ConfinedArg {
		os.Exit(files.ConfinedMain(os.Stdin, os.Stdout))
	}
	if isHookCall(os.Args[1:]) { // every tool call of Claude Code: skip building the command tree
		if err := runHook(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "parallax:", err)
			os.Exit(exitCode(err))
		}
		return
	}
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "parallax:", err)
		os.Exit(exitCode(err))
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "parallax",
		Short: "Parallax: a gate between an LLM agent and the machine it works on",
		Long: `Parallax evaluates every action an agent proposes through Shield
(guard, policy, heuristics, information flow, judge, human) and runs only
what passes.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// One constructor per command group, one file each.
	for _, c := range commandGroups {
		root.AddCommand(c())
	}
	return root
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if e, ok := err.(*exitError); ok { //nolint:errorlint // direct type from our own commands
		return e.code
	}
	return 1
}

// version is the module version and VCS revision this binary was built
// from, as the Go toolchain recorded them: "v1.2.3" for a released
// module, "devel 0123abcd4567 2026-11-29" for a build from a checkout
// (with "modified" when the tree had uncommitted changes). A build made
// with -buildvcs=false has no revision and says so.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	return describeBuild(bi.Main.Version, bi.Settings)
}

// describeBuild formats a module version and the build's settings.
func describeBuild(mod string, settings []debug.BuildSetting) string {
	v := mod
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, when, modified string
	for _, st := range settings {
		switch st.Key {
		case "vcs.revision":
			rev = st.Value
		case "vcs.time":
			when = st.Value
		case "vcs.modified":
			if st.Value == "true" {
				modified = " modified"
			}
		}
	}
	if rev == "" {
		if v == "devel" {
			v += " (no commit recorded: built with -buildvcs=false or outside a git checkout)"
		}
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if strings.Contains(v, rev) {
		return v // a pseudo-version already names the commit (and +dirty)
	}
	if len(when) >= 10 {
		when = " " + when[:10]
	}
	return v + " " + rev + when + modified
}
