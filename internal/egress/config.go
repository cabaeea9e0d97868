package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// DefaultRegistries returns the hosts a workspace allows every command by
// default: the Go module proxy and checksum database, npm, PyPI, crates.io
// and Debian. It returns a fresh slice each call.
func DefaultRegistries() []string {
	return []string{
		"proxy.golang.org",
		"sum.golang.org",
		"registry.npmjs.org",
		"pypi.org",
		"files.pythonhosted.org",
		"crates.io",
		"index.crates.io",
		"static.crates.io",
		"deb.debian.org",
	}
}

// Config says what one proxy lets through and how it reports.
type Config struct {
	// Hosts are the host names (or host:port) the gate's verdict named
	// for this command: exact, case-insensitive, no wildcards. A literal
	// IP here is allowed only when it is a public address.
	Hosts []string
	// Registries are always-allowed hosts from the workspace config (see
	// DefaultRegistries). An entry may be a literal IP or IP:port; only
	// such literal registry entries may name private or loopback
	// addresses, and they are dialled exactly as written.
	Registries []string
	// Resolve looks a host name up; nil uses net.DefaultResolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address the proxy checked ("ip:port", never a
	// name); nil uses a net.Dialer with Limits.DialTimeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Inspect is the DLP hook. It is called with where ("host", "url",
	// "header", "body") and the text; a non-nil error refuses the
	// request. Its error is recorded in Conn.Detail, so it must name what
	// was found, never quote it. Nil scans with the dlp package and
	// refuses a finding of class SECRET.
	Inspect func(where, text string) error
	// Audit receives one record per connection attempt, when it ends
	// (at once for refusals). It is called from the connection's
	// goroutine; nil records nothing.
	Audit func(Conn)
	// Now is the clock for Conn.Start and Conn.Duration (default
	// time.Now). Socket deadlines use the kernel's clock.
	Now func() time.Time
	// Limits bound the proxy; zero fields take the defaults.
	Limits Limits
}

// Limits bound what one proxy spends. Zero fields take the defaults
// (DefaultLimits()); negative values are an error.
type Limits struct {
	// MaxConns bounds the connections served at once; the next ones are
	// answered with too_many_connections.
	MaxConns int
	// MaxHeaderBytes bounds a request's (or an origin response's) header
	// and a SOCKS handshake.
	MaxHeaderBytes int
	// HeaderTimeout bounds the time to read a request header or a SOCKS
	// handshake.
	HeaderTimeout time.Duration
	// DialTimeout bounds resolving and connecting to the origin.
	DialTimeout time.Duration
	// IdleTimeout ends a connection when neither side has sent anything
	// for this long.
	IdleTimeout time.Duration
	// MaxBody bounds a plain HTTP request body: the whole body is read
	// and inspected before anything is sent, and a larger one is refused
	// (body_too_large).
	MaxBody int
}

// defaultLimits are the limits a zero Limits field takes (see DefaultLimits).
var defaultLimits = Limits{
	MaxConns:       64,
	MaxHeaderBytes: 32 << 10,
	HeaderTimeout:  10 * time.Second,
	DialTimeout:    10 * time.Second,
	IdleTimeout:    5 * time.Minute,
	MaxBody:        1 << 20,
}

// withDefaults fills zero fields and rejects negative ones.
func (l Limits) withDefaults() (Limits, error) {
	if l.MaxConns < 0 || l.MaxHeaderBytes < 0 || l.HeaderTimeout < 0 ||
		l.DialTimeout < 0 || l.IdleTimeout < 0 || l.MaxBody < 0 {
		return l, errors.New("negative limit")
	}
	d := defaultLimits
	if l.MaxConns == 0 {
		l.MaxConns = d.MaxConns
	}
	if l.MaxHeaderBytes == 0 {
		l.MaxHeaderBytes = d.MaxHeaderBytes
	}
	if l.HeaderTimeout == 0 {
		l.HeaderTimeout = d.HeaderTimeout
	}
	if l.DialTimeout == 0 {
		l.DialTimeout = d.DialTimeout
	}
	if l.IdleTimeout == 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxBody == 0 {
		l.MaxBody = d.MaxBody
	}
	return l, nil
}

// Protocol is how a client asked for a connection.
type Protocol string

// Client protocols.
const (
	ProtoConnect Protocol = "connect" // HTTP CONNECT tunnel
	ProtoHTTP    Protocol = "http"    // absolute-form plain HTTP request
	ProtoSOCKS5  Protocol = "socks5"  // SOCKS5 CONNECT
	ProtoForward Protocol = "forward" // a plain stream to a relayed address (Proxy.Relay)
)

// Decision is whether a connection was relayed.
type Decision string

// Decisions.
const (
	Allowed Decision = "allowed"
	Refused Decision = "refused"
)

// Conn is the audit record of one connection attempt.
type Conn struct {
	Protocol Protocol // empty when the client never said
	// Host is the requested host, lowercased, or Withheld when DLP
	// refused the name itself.
	Host     string
	Port     uint16
	Addr     netip.AddrPort // the address dialled (or refused); zero if none
	Decision Decision
	Reason   Reason
	// Detail says more about the reason (Inspect's error, a dial error);
	// never the request text.
	Detail   string
	Up, Down int64 // bytes sent to and received from the origin
	Start    time.Time
	Duration time.Duration
}

// Withheld stands for a host name DLP refused, in Conn.Host.
const Withheld = "[withheld]"

// Reason is a stable reason code: audit, UI and tests use it.
type Reason string

// Reason codes. The first two say why a connection was allowed; every
// other one is a refusal, answered as reasonTable says.
const (
	ReasonVerdictHost    Reason = "verdict_host"         // allowed: named by the verdict
	ReasonRegistry       Reason = "registry"             // allowed: a configured registry
	ReasonHostNotAllowed Reason = "host_not_allowed"     // not in Hosts or Registries
	ReasonNotPublic      Reason = "address_not_public"   // resolves to a private, loopback, … address
	ReasonResolve        Reason = "resolve_failed"       // the name did not resolve
	ReasonDial           Reason = "dial_failed"          // no checked address answered
	ReasonDLP            Reason = "dlp_refused"          // Inspect refused a host, URL, header or body
	ReasonBodyTooLarge   Reason = "body_too_large"       // a body over Limits.MaxBody cannot be inspected
	ReasonNestedProxy    Reason = "nested_proxy"         // a proxy handshake inside a tunnel
	ReasonProxyLoop      Reason = "proxy_loop"           // the target is the proxy itself
	ReasonOriginForm     Reason = "origin_form"          // a plain request without an absolute URL
	ReasonScheme         Reason = "scheme_not_allowed"   // an absolute URL other than http://
	ReasonBadRequest     Reason = "bad_request"          // unreadable request or handshake
	ReasonHeaderTooLarge Reason = "header_too_large"     // over Limits.MaxHeaderBytes
	ReasonTimeout        Reason = "timeout"              // header or handshake not read in time
	ReasonSOCKSAuth      Reason = "socks_auth_required"  // the client offered no no-auth method
	ReasonSOCKSCommand   Reason = "socks_command"        // BIND or UDP ASSOCIATE
	ReasonSOCKSAddrType  Reason = "socks_address_type"   // an unknown address type
	ReasonTooManyConns   Reason = "too_many_connections" // over Limits.MaxConns
	ReasonUpstream       Reason = "upstream_error"       // the origin's response was unreadable
	ReasonClosed         Reason = "proxy_closed"         // Close ended the connection before a decision
	ReasonInternal       Reason = "internal_error"       // a recovered panic: refused
)

// answer is how a refusal is told to the client.
type answer struct {
	status int  // HTTP status
	socks  byte // SOCKS5 reply code
}

// reasonTable is the one place a refusal's answer is decided. Policy
// refusals are 403 / 0x02 (not allowed by ruleset).
var reasonTable = map[Reason]answer{
	ReasonHostNotAllowed: {403, 0x02},
	ReasonNotPublic:      {403, 0x02},
	ReasonDLP:            {403, 0x02},
	ReasonBodyTooLarge:   {403, 0x02},
	ReasonNestedProxy:    {403, 0x02},
	ReasonProxyLoop:      {403, 0x02},
	ReasonOriginForm:     {403, 0x02},
	ReasonScheme:         {403, 0x02},
	ReasonSOCKSCommand:   {403, 0x07},
	ReasonSOCKSAddrType:  {403, 0x08},
	ReasonSOCKSAuth:      {403, 0x02},
	ReasonBadRequest:     {400, 0x01},
	ReasonHeaderTooLarge: {431, 0x01},
	ReasonTimeout:        {408, 0x01},
	ReasonResolve:        {502, 0x04},
	ReasonDial:           {502, 0x05},
	ReasonUpstream:       {502, 0x01},
	ReasonTooManyConns:   {503, 0x01},
	ReasonClosed:         {503, 0x01},
	ReasonInternal:       {500, 0x01},
}

// answerFor returns the answer for a refusal; an unknown reason is a 403.
func answerFor(r Reason) answer {
	if a, ok := reasonTable[r]; ok {
		return a
	}
	return answer{403, 0x02}
}

func (r Reason) String() string { return string(r) }

var errClosed = fmt.Errorf("egress proxy closed: %w", net.ErrClosed)

// DefaultLimits returns the limits a zero Limits field takes.
func DefaultLimits() Limits { return defaultLimits }
