package tmux

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// A program in a 20-column session: what is typed reaches it, a line
// longer than the pane is captured as rows of at most 20 cells (tmux's
// wrapping, not rejoined), and the pane's last screen stays after the
// program exits.
func TestSessionScreen(t *testing.T) {
	s := Start(t, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=xterm", "LANG=C.UTF-8"})
	s.NewSession("t", 20, 5, t.TempDir(), "sh", "-c", `read line; printf '%s%s\n' "$line" "$line"`)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s.Type("t", "0123456789KLMNO\r") // echoed on row 0, printed twice from row 1
	s.WaitFor(ctx, "t", "the program's exit", func(Screen) bool { return s.Dead("t") })
	sc, err := s.Capture("t")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(sc, "0123456789KLMNO01234"); i < 0 || i+1 >= len(sc) || sc[i+1] != "56789KLMNO" {
		t.Errorf("the 30-character line is not two rows of the 20-column pane:\n%s", sc)
	}
	if len(sc) != 5 {
		t.Errorf("the capture has %d rows, the pane 5:\n%s", len(sc), sc)
	}
}
