package engine

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// TokenMetadata is the gRPC metadata key every ClientService call carries
// its credential in (the workspace's client.token).
const TokenMetadata = "parallax-client-token"

// Permission is what a client may do; an actor holds a set of them.
type Permission uint8

// The permissions of the ClientService, one per kind of method.
const (
	// PermRead: the event stream, the sessions, the status.
	PermRead Permission = 1 << iota
	// PermSend: messages to the agent, the sessions' slash commands.
	PermSend
	// PermApprove: answers to tier 3 escalations.
	PermApprove
	// PermAdmin: stopping and restarting the engine.
	PermAdmin

	permAll = PermRead | PermSend | PermApprove | PermAdmin
)

func (p Permission) String() string {
	var names []string
	for _, n := range []struct {
		p    Permission
		name string
	}{{PermRead, "read"}, {PermSend, "send"}, {PermApprove, "approve"}, {PermAdmin, "administer"}} {
		if p&n.p != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// Actor is who a connection authenticated as. Local actors are the
// user's own clients on this machine: only they see off-the-record
// sessions.
type Actor struct {
	Name  string
	Perms Permission
	Local bool
}

// ActorLocalUser is the actor of the workspace's client token.
const ActorLocalUser = "local-user"

// methodPerms is the one table of what each ClientService method needs.
// A method missing here is refused (fail closed); RunCommand's need
// depends on the command (commandPerm).
var methodPerms = map[string]Permission{
	pb.ClientService_SendMessage_FullMethodName:    PermSend,
	pb.ClientService_Subscribe_FullMethodName:      PermRead,
	pb.ClientService_AnswerApproval_FullMethodName: PermApprove,
	pb.ClientService_ListSessions_FullMethodName:   PermRead,
	pb.ClientService_Status_FullMethodName:         PermRead,
	pb.ClientService_RunCommand_FullMethodName:     PermSend,
	pb.ClientService_Shutdown_FullMethodName:       PermAdmin,
}

// commandPerms are the RunCommand names that need more or less than
// PermSend: a restart administers the engine; status only reads.
var commandPerms = map[string]Permission{
	"restart": PermAdmin,
	"status":  PermRead,
	"usage":   PermRead,
}

// required is the permission a call of method with request req needs;
// false for a method the table does not know.
func required(method string, req any) (Permission, bool) {
	p, ok := methodPerms[method]
	if !ok {
		return 0, false
	}
	if c, isCmd := req.(*pb.CommandRequest); isCmd && method == pb.ClientService_RunCommand_FullMethodName {
		if cp, ok := commandPerms[c.GetName()]; ok {
			p = cp
		}
	}
	return p, true
}

// authorizer holds the credentials the ClientService accepts, by the
// SHA-256 of the token, and checks every call: the credential, then the
// method's permission.
type authorizer struct {
	mu    sync.RWMutex
	creds []credential
}

type credential struct {
	sum   [sha256.Size]byte
	actor Actor
}

func (a *authorizer) add(token string, actor Actor) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.creds = append(a.creds, credential{sum: sha256.Sum256([]byte(token)), actor: actor})
}

// authenticate finds the actor of the call's token, comparing it with
// every credential in constant time.
func (a *authorizer) authenticate(ctx context.Context) (Actor, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	toks := md.Get(TokenMetadata)
	if len(toks) != 1 || toks[0] == "" {
		return Actor{}, status.Error(codes.Unauthenticated, "no client token: clients send .parallax/client.token")
	}
	sum := sha256.Sum256([]byte(toks[0]))
	a.mu.RLock()
	defer a.mu.RUnlock()
	var found Actor
	ok := 0
	for _, c := range a.creds {
		if subtle.ConstantTimeCompare(sum[:], c.sum[:]) == 1 {
			found, ok = c.actor, 1
		}
	}
	if ok == 0 {
		return Actor{}, status.Error(codes.Unauthenticated, "wrong client token")
	}
	return found, nil
}

// authorize authenticates the call and checks the permission its method
// needs; the actor is returned for the handler.
func (a *authorizer) authorize(ctx context.Context, method string, req any) (Actor, error) {
	actor, err := a.authenticate(ctx)
	if err != nil {
		return Actor{}, err
	}
	need, ok := required(method, req)
	if !ok {
		return Actor{}, status.Errorf(codes.PermissionDenied, "method %s is not served to clients", method)
	}
	if actor.Perms&need != need {
		return Actor{}, status.Errorf(codes.PermissionDenied, "%s may not %s (has %s)", actor.Name, need, actor.Perms)
	}
	return actor, nil
}

type actorKey struct{}

// actorOf is the authenticated actor of a call (zero outside one).
func actorOf(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

func (a *authorizer) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	actor, err := a.authorize(ctx, info.FullMethod, req)
	if err != nil {
		return nil, err
	}
	return h(context.WithValue(ctx, actorKey{}, actor), req)
}

// stream checks a streaming call before its handler reads anything; the
// only stream (Subscribe) needs PermRead whatever it asks for.
func (a *authorizer) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	actor, err := a.authorize(ss.Context(), info.FullMethod, nil)
	if err != nil {
		return err
	}
	return h(srv, actorStream{ServerStream: ss, ctx: context.WithValue(ss.Context(), actorKey{}, actor)})
}

type actorStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s actorStream) Context() context.Context { return s.ctx }

// tokenCreds puts the client token on every call of a client.
type tokenCreds string

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{TokenMetadata: string(t)}, nil
}

// RequireTransportSecurity is false: the token travels over the engine's
// 0600 Unix socket, checked with SO_PEERCRED, never over a network.
func (tokenCreds) RequireTransportSecurity() bool { return false }
