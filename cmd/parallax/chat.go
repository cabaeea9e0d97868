package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"
	"google.golang.org/grpc/status"

	"github.com/parallax/parallax/internal/chat"
	"github.com/parallax/parallax/internal/engine"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

func newChatCmd() *cobra.Command {
	var dir, session string
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Open the terminal chat on the workspace's running engine",
		Long: `Attaches the terminal chat to the engine parallax start (--detach) runs
for the workspace. Leaving the chat (/quit) leaves the engine running.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), dir)
			if err != nil {
				return err
			}
			c, err := engine.DialClient(cmd.Context(), root)
			if err != nil {
				return err
			}
			defer c.Close()
			return runChat(cmd.Context(), c, session, nil, nil)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&session, "session", "", "the session to show (default: a new one)")
	return cmd
}

// runChat runs the bubbletea chat on an engine client, in a new session
// unless one is named; in and out replace the terminal when set (tests).
func runChat(ctx context.Context, c *engine.Client, session string, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	otr := false
	if session == "" {
		res, err := c.RunCommand(ctx, &pb.CommandRequest{Name: "new"})
		if err != nil {
			return fmt.Errorf("open a session: %w", err)
		}
		session = res.GetSwitchTo()
	}
	sub, err := c.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		return fmt.Errorf("subscribe to the engine's events: %w", err)
	}
	events := make(chan chat.Event, 256)
	go func() {
		defer close(events)
		for {
			ev, err := sub.Recv()
			if err != nil {
				return
			}
			if ce, ok := chatEvent(ev); ok {
				select {
				case events <- ce:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	m := chat.New(ctx, chatClient{c}, events, session, otr)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if in != nil {
		opts = append(opts, tea.WithInput(in), tea.WithOutput(out))
	}
	_, err = tea.NewProgram(m, opts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// chatClient is the engine's ClientService as the chat's Client.
type chatClient struct{ c *engine.Client }

var _ chat.Client = chatClient{}

func (a chatClient) Send(ctx context.Context, session, text string) error {
	_, err := a.c.SendMessage(ctx, &pb.SendMessageRequest{SessionId: session, Text: text, Origin: "tui"})
	return plainErr(err)
}

// plainErr is the engine's message without the RPC framing, for the
// screen ("rpc error: code = InvalidArgument desc = ..." tells a user
// nothing).
func plainErr(err error) error {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok {
		return errors.New(st.Message())
	}
	return err
}

func (a chatClient) Approve(ctx context.Context, id string, allow bool, grant string) error {
	res, err := a.c.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: id, Approve: allow, Grant: grant, AnsweredBy: "tui"})
	if err != nil {
		return plainErr(err)
	}
	if !res.GetAccepted() {
		return errors.New(res.GetReason())
	}
	return nil
}

func (a chatClient) Command(ctx context.Context, session, name string, args []string) (chat.CommandResult, error) {
	res, err := a.c.RunCommand(ctx, &pb.CommandRequest{SessionId: session, Name: name, Args: args})
	if err != nil {
		return chat.CommandResult{}, plainErr(err)
	}
	return chat.CommandResult{Text: res.GetText(), Switch: res.GetSwitchTo(), OTR: res.GetOtr(), Quit: res.GetQuit()}, nil
}
