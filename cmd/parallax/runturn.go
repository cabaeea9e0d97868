package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/engine"
	"github.com/parallax/parallax/internal/termtext"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

func newRunCmd() *cobra.Command {
	var dir, home, session string
	var asJSON bool
	var maxRounds int
	cmd := &cobra.Command{
		Use:   "run [--json] MESSAGE",
		Short: "Run one turn of the agent without a terminal (scripts, CI)",
		Long: `Sends MESSAGE to the agent of the workspace's running engine, or of an
engine started for this one turn, and prints the reply. With --json every
event of the turn is printed as one JSON object per line (message_received,
text_delta, tool_proposed, verdict, tool_result, response_complete, error).
A tool_result's "ok" is true when the call ran and, for a command, exited
0; response_complete's "stop" says why the turn ended ("end", or
"tool_round_limit" when it used up agent.max_tool_rounds and the task may
not be done). The exit status is 1 when the turn ended in an error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, h, err := runtimePaths(cmd, dir, home)
			if err != nil {
				return err
			}
			if maxRounds < 0 || maxRounds > engine.MaxTurnToolRounds {
				return fmt.Errorf("--max-rounds %d: give 1 to %d (0: agent.max_tool_rounds)", maxRounds, engine.MaxTurnToolRounds)
			}
			return runTurn(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), root, h, session, strings.Join(args, " "), asJSON, maxRounds)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&home, "home", "", "what ~ means (default: $HOME)")
	cmd.Flags().StringVar(&session, "session", "", "continue this session (default: a new one)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the turn's events as JSON Lines")
	cmd.Flags().IntVar(&maxRounds, "max-rounds", 0, "this turn's limit of tool rounds (0: agent.max_tool_rounds, 25 by default); a long task may need more")
	return cmd
}

// runTurn runs one turn on the running engine, or on one started here
// for the turn and stopped afterwards.
func runTurn(ctx context.Context, stdout, stderr io.Writer, root, home, session, text string, asJSON bool, maxRounds int) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, derr := engine.DialClient(ctx, root)
	if derr != nil {
		rt, oerr := engine.OpenRuntime(ctx, engine.RuntimeOptions{Root: root, Home: home, NoApprovals: true, Version: version(),
			Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if oerr != nil {
			return oerr
		}
		if rt.Settings().SandboxOff {
			fmt.Fprintln(stderr, sandboxOffBanner)
		}
		runErr := make(chan error, 1)
		go func() { runErr <- rt.Run(ctx) }()
		defer func() {
			cancel()
			err = errors.Join(err, <-runErr, rt.Close())
		}()
		if c, err = engine.DialClient(ctx, root); err != nil {
			return err
		}
	}
	defer c.Close()
	sub, err := c.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		return fmt.Errorf("subscribe to the engine's events: %w", err)
	}
	if _, err := sub.Recv(); err != nil {
		return fmt.Errorf("subscribe to the engine's events: %w", err)
	}
	resp, err := c.SendMessage(ctx, &pb.SendMessageRequest{SessionId: session, Text: text, Origin: "run", MaxToolRounds: uint32(maxRounds)})
	if err != nil {
		return fmt.Errorf("send the message: %w", err)
	}
	return printTurn(sub, stdout, stderr, resp, asJSON)
}

// printTurn prints the turn's events until it completes or fails. The
// plain reply is cleaned of terminal control sequences as the chat does
// (termtext), so a model cannot write the clipboard, retitle or clear
// the terminal; --json is escaped by its encoding.
//
// An approval the turn waits for cannot be answered here: it is said on
// errw (what, why, until when, and where to answer), so a script does not
// hang silently; the engine denies it at its deadline.
func printTurn(sub pb.ClientService_SubscribeClient, w, errw io.Writer, resp *pb.SendMessageResponse, asJSON bool) error {
	enc := json.NewEncoder(w)
	var reply termtext.Stream
	for {
		ev, err := sub.Recv()
		if err != nil {
			return fmt.Errorf("the engine's event stream ended before the turn: %w", err)
		}
		if ev.GetSessionId() != resp.GetSessionId() {
			continue
		}
		if asJSON {
			if je, ok := toJSONEvent(ev); ok {
				if err := enc.Encode(je); err != nil {
					return err
				}
			}
		} else if d := ev.GetTextDelta(); d != nil {
			fmt.Fprint(w, reply.Clean(d.GetText()))
		}
		if a := ev.GetApprovalNeeded(); a != nil {
			until := "its deadline"
			if ms := a.GetDeadlineUnixMs(); ms > 0 {
				until = time.UnixMilli(ms).UTC().Format("15:04:05 UTC")
			}
			fmt.Fprintf(errw, "parallax run: approval %s needed for %s: %s\n  this client cannot answer it: answer it in a parallax chat attached to this engine before %s, or it is denied\n",
				termtext.OneLine(a.GetApprovalId()), termtext.OneLine(a.GetActionType()), termtext.OneLine(a.GetReason()), until)
		}
		if rc := ev.GetResponseComplete(); rc != nil && rc.GetTurnId() == resp.GetTurnId() {
			if !asJSON {
				fmt.Fprintln(w, reply.Flush())
			}
			return nil
		}
		if e := ev.GetError(); e != nil && e.GetTurnId() == resp.GetTurnId() {
			return fmt.Errorf("the turn failed: %s: %s", termtext.OneLine(e.GetCode()), termtext.OneLine(e.GetMessage()))
		}
	}
}
