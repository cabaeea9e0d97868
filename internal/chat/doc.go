// Package chat is the terminal chat of Parallax's own agent (parallax
// chat): a client of the engine's event stream, drawn with bubbletea.
//
// What it guarantees:
//   - Everything shown that the model, a tool or a file produced is
//     cleaned of terminal control sequences first (termtext.Clean): a file that
//     prints escape codes cannot redraw the screen, fake an approval
//     prompt or retitle the terminal.
//   - Tool calls are folded to one line each with their verdict; a
//     BLOCK shows its rule and reason.
//   - An approval the engine asks for (tier 3) is shown inline and
//     answered with y (allow once) or n (deny); any other key leaves it
//     pending, and Enter never answers it.
//   - Off-the-record sessions are marked on the status line at all times.
package chat
