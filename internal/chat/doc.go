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
//   - An approval the engine asks for (tier 3), in any of its sessions,
//     is shown below the transcript with the action, why it is asked and
//     the keys that answer it: y (allow once), s (allow for this
//     session), p (allow the offered pattern), n (deny); any other key
//     leaves it pending, and Enter never answers it.
//   - Every line is wrapped to the terminal's width by display width
//     (wide and combining characters line up), at word boundaries, and
//     the screen never has more rows than the terminal: the transcript
//     gets the rows the status line and the prompt leave.
//   - Off-the-record sessions are marked on the status line at all times.
package chat
