package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/dlp"
)

// exitDLPBlock is the exit status of `dlp scan` when a finding blocks.
const exitDLPBlock = 2

// maxDLPInput bounds what `dlp scan` reads.
const maxDLPInput = 64 << 20

func newDLPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dlp",
		Short: "Classify text for secrets, personal, health and payment data",
	}
	cmd.AddCommand(newDLPScanCmd(), newDLPScannersCmd())
	return cmd
}

func newDLPScanCmd() *cobra.Command {
	var redact, asJSON bool
	var overrides []string
	cmd := &cobra.Command{
		Use:   "scan [FILE|-]",
		Short: "Scan a file (or stdin) and report its class and findings",
		Long: `Scans FILE, or stdin when FILE is "-" or missing, with the DLP scanners and
prints the class of the text (PUBLIC, NORMAL, SENSITIVE, SECRET) and one line
per finding: line:column, scanner, class, action and a masked preview. The
matched values themselves are never printed.

--redact prints the text instead, with every finding whose action is redact
or block replaced by [REDACTED:<scanner>]. --action ID=ACTION (repeatable)
overrides a scanner's default action (monitor, redact, block); an unknown
scanner or action is an error.

Exits 2 when a finding's action is block, 0 otherwise.`,
		Example: `  parallax dlp scan .env
  kubectl logs web-1 | parallax dlp scan --redact
  parallax dlp scan --json --action email=redact notes.txt`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := dlpOverrides(overrides)
			if err != nil {
				return err
			}
			d, err := dlp.New(opts...)
			if err != nil {
				return err
			}
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			text, err := readDLPInput(cmd.InOrStdin(), name)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			var res dlp.Result
			if redact {
				var out string
				out, res = d.Redact(text)
				_, err = io.WriteString(w, out)
			} else {
				res = d.Scan(text)
				err = writeDLPReport(w, text, res, asJSON)
			}
			if err != nil {
				return fmt.Errorf("dlp scan: write: %w", err)
			}
			if res.Block {
				return &exitError{code: exitDLPBlock, err: fmt.Errorf("dlp scan %s: %s, blocked by %s", name, res.Class, dlpBlockers(res))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&redact, "redact", false, "print the text with redact and block findings masked")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the report as JSON")
	cmd.Flags().StringArrayVar(&overrides, "action", nil, "override a scanner's action: ID=monitor|redact|block (repeatable)")
	return cmd
}

func newDLPScannersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "scanners",
		Short: "List the scanners with their class and default action",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, s := range dlp.Scanners() {
				if _, err := fmt.Fprintf(w, "%-28s %-10s %-9s %-7s %s\n", s.ID, s.Category, s.Class, s.Action, s.Description); err != nil {
					return fmt.Errorf("dlp scanners: write: %w", err)
				}
			}
			return nil
		},
	}
}

// dlpOverrides parses ID=ACTION flags.
func dlpOverrides(flags []string) ([]dlp.Option, error) {
	m := map[string]dlp.Action{}
	for _, f := range flags {
		id, act, ok := strings.Cut(f, "=")
		if !ok || id == "" {
			return nil, fmt.Errorf("dlp --action %q: want ID=ACTION", f)
		}
		a, err := dlp.ParseAction(act)
		if err != nil {
			return nil, fmt.Errorf("dlp --action %s: %w", id, err)
		}
		m[id] = a
	}
	return []dlp.Option{dlp.WithActions(m)}, nil
}

// readDLPInput reads the file (or stdin for "-") up to maxDLPInput.
func readDLPInput(stdin io.Reader, name string) (string, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("dlp scan: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxDLPInput+1))
	if err != nil {
		return "", fmt.Errorf("dlp scan %s: read: %w", name, err)
	}
	if len(b) > maxDLPInput {
		return "", fmt.Errorf("dlp scan %s: input larger than %d MiB", name, maxDLPInput>>20)
	}
	return string(b), nil
}

// dlpFinding is a finding as reported: position and masked preview.
type dlpFinding struct {
	dlp.Finding
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Preview string `json:"preview"`
}

func writeDLPReport(w io.Writer, text string, res dlp.Result, asJSON bool) error {
	fs := make([]dlpFinding, len(res.Findings))
	lc := newDLPLineIndex(text)
	for i, f := range res.Findings {
		line, col := lc.at(f.Start)
		fs[i] = dlpFinding{Finding: f, Line: line, Column: col, Preview: f.Preview(text)}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Class    dlp.Class    `json:"class"`
			Block    bool         `json:"block"`
			Findings []dlpFinding `json:"findings"`
		}{res.Class, res.Block, fs})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "class %s, %d finding(s)", res.Class, len(fs))
	if res.Block {
		b.WriteString(", blocked")
	}
	b.WriteByte('\n')
	for _, f := range fs {
		fmt.Fprintf(&b, "%d:%d\t%-28s %-9s %-7s %s\n", f.Line, f.Column, f.Scanner, f.Class, f.Action, f.Preview)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// dlpLineIndex maps byte offsets to 1-based line and byte column.
type dlpLineIndex []int

func newDLPLineIndex(text string) dlpLineIndex {
	idx := dlpLineIndex{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l dlpLineIndex) at(off int) (line, col int) {
	lo, hi := 0, len(l)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - l[lo] + 1
}

// dlpBlockers names the scanners whose findings block.
func dlpBlockers(res dlp.Result) string {
	var ids []string
	for _, f := range res.Findings {
		if f.Action == dlp.Block && !slices.Contains(ids, f.Scanner) {
			ids = append(ids, f.Scanner)
		}
	}
	return strings.Join(ids, ", ")
}
