package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/shield"
	"github.com/spf13/cobra"
)

func newShieldBenchCmd() *cobra.Command {
	var workspace, home, policy string
	var list, fastestOf int
	var internals string
	var stalls time.Duration
	cmd := &cobra.Command{
		Use:   "bench FILE",
		Short: "Run a file of raw shell commands through the gate and report decisions and latency",
		Long: `Reads one shell command per line from FILE (e.g. the nl2bash corpus),
evaluates each in the workspace, as an agent would send it, on one goroutine, and
prints the share decided without ESCALATE, the latency percentiles from the
verdicts' ns field, the throughput, the rules behind the decisions and the
programs behind the BLOCKs. Nothing is executed.`,
		Example: `  parallax shield bench ../shared/corpora/nl2bash/all.cm --workspace /home/dev/project --home /home/dev`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			shield.LongRunning()
			cmds, err := readCommands(args[0])
			if err != nil {
				return err
			}
			ws, err := dirOrCwd(workspace) // a measurement: the current directory, never a workspace above
			if err != nil {
				return err
			}
			cfg, err := gateConfig(cmd.ErrOrStderr(), ws, home, policy)
			if err != nil {
				return err
			}
			switch internals {
			case "visible":
			case "hidden":
				cfg.InternalsHidden = true
			default:
				return fmt.Errorf("shield bench: --internals %q: want visible or hidden", internals)
			}
			gate, err := shield.New(cfg)
			if err != nil {
				return err
			}
			errw := cmd.ErrOrStderr()
			st := shield.RunCommands(cmd.Context(), gate, cmds, func(done int) {
				fmt.Fprintf(errw, "\r%d/%d commands", done, len(cmds))
			})
			fmt.Fprintln(errw)
			printBench(cmd.OutOrStdout(), st, list)
			if stalls > 0 {
				r := shield.Stalls(time.Now, stalls, 20*time.Microsecond, 50*time.Microsecond)
				fmt.Fprintf(cmd.OutOrStdout(), "machine stalls  a spinning thread lost the CPU for >= 20 us %.0f times/s, >= 50 us %.0f times/s (measured for %v after the pass; each stall that hits an evaluation adds to its ns)\n",
					r[0], r[1], stalls)
			}
			if fastestOf > 1 {
				q := shield.Fastest(cmd.Context(), gate, cmds, fastestOf, 0.5, 0.9, 0.99)
				fmt.Fprintf(cmd.OutOrStdout(), "fastest of %d   p50 %d  p90 %d  p99 %d (ns, per command)\n",
					fastestOf, q[0].Nanoseconds(), q[1].Nanoseconds(), q[2].Nanoseconds())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "/home/dev/project", "workspace the commands run in (need not exist)")
	cmd.Flags().StringVar(&home, "home", "/home/dev", "what ~ means")
	cmd.Flags().StringVar(&policy, "policy", "default", "policy preset or file")
	cmd.Flags().StringVar(&internals, "internals", "visible", "the workspace's .parallax visible to commands (visible: the Claude Code hook, MCP proxy, HTTP API) "+
		"or hidden by the executor (hidden: the own agent's sandboxed commands)")
	cmd.Flags().IntVar(&list, "list", 0, "also list up to N blocked and N escalated commands, each with the reason given")
	cmd.Flags().DurationVar(&stalls, "stalls", time.Second, "after the pass, measure for this long how often the machine stalls a running thread (0: skip)")
	cmd.Flags().IntVar(&fastestOf, "fastest-of", 0, "also evaluate each command N times and report percentiles of each one's fastest run (the gate's own cost without a shared machine's interruptions)")
	return cmd
}

func readCommands(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("open commands: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return out, nil
}

func printBench(w io.Writer, st shield.Stats, list int) {
	fmt.Fprintf(w, "commands        %d\n", st.N)
	fmt.Fprintf(w, "ALLOW           %d (%.1f%%)\n", st.Allow, pctOf(st.Allow, st.N))
	fmt.Fprintf(w, "ESCALATE        %d (%.1f%%)\n", st.Escalate, pctOf(st.Escalate, st.N))
	fmt.Fprintf(w, "BLOCK           %d (%.1f%%)\n", st.Block, pctOf(st.Block, st.N))
	fmt.Fprintf(w, "decided         %.1f%% without ESCALATE\n", 100*st.DecidedShare)
	fmt.Fprintf(w, "latency (ns)    p50 %d  p90 %d  p99 %d  max %d\n",
		st.P50.Nanoseconds(), st.P90.Nanoseconds(), st.P99.Nanoseconds(), st.Max.Nanoseconds())
	fmt.Fprintf(w, "throughput      %.0f actions/s on one goroutine\n", st.PerSecond)
	fmt.Fprintln(w, "\nrules:")
	for _, kv := range sortedCounts(st.ByRule) {
		fmt.Fprintf(w, "  %6d  %s\n", kv.n, kv.k)
	}
	progs := map[string]int{}
	for _, s := range st.Blocked {
		progs[programsOf(s.Command)]++
	}
	fmt.Fprintln(w, "\nprograms behind BLOCKs:")
	for _, kv := range sortedCounts(progs) {
		fmt.Fprintf(w, "  %6d  %s\n", kv.n, kv.k)
	}
	fmt.Fprintln(w, "\nslowest:")
	for _, s := range st.Slowest {
		fmt.Fprintf(w, "  %8d ns  %s\n", s.Verdict.NS, s.Command)
	}
	for i := 0; i < list && i < len(st.Blocked); i++ {
		printListed(w, "BLOCK", st.Blocked[i])
	}
	for i := 0; i < list && i < len(st.Escalated); i++ {
		printListed(w, "ESCALATE", st.Escalated[i])
	}
}

// printListed writes one listed command and, indented under it, the reason
// the gate gave (the part of a rule a reviewer needs to judge the decision).
func printListed(w io.Writer, decision string, s shield.Sample) {
	fmt.Fprintf(w, "%-8s %-28s %s\n", decision, s.Verdict.Rule, s.Command)
	if r := strings.TrimSpace(s.Verdict.Reason); r != "" {
		fmt.Fprintf(w, "         %s\n", strings.ReplaceAll(r, "\n", " "))
	}
}

// programsOf names the programs a command runs, for the BLOCK listing.
func programsOf(cmd string) string {
	eff := shell.Analyze(cmd, shell.Options{Cwd: "/home/dev/project", Home: "/home/dev"})
	seen := map[string]bool{}
	var names []string
	for _, e := range eff.Execs {
		n := e.Name
		if n == "" {
			n = path.Base(e.Path)
		}
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ",")
}

type kv struct {
	k string
	n int
}

func sortedCounts(m map[string]int) []kv {
	out := make([]kv, 0, len(m))
	for k, n := range m {
		out = append(out, kv{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].k < out[j].k
	})
	return out
}

func pctOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
