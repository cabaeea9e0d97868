// Package egress is the engine-side egress proxy of sandboxed commands.
// A sandboxed command runs in a network namespace with loopback only; the
// engine serves a Proxy on a listener whose socket lives in that
// namespace, and the command reaches the network only through it
// (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, set by the wiring).
//
//	p, err := egress.New(egress.Config{Hosts: verdictHosts, Registries: ws.Registries, Audit: record})
//	go p.Serve(ln) // ln accepts inside the command's namespace
//	…
//	p.Close()      // ends live tunnels too, and waits for them
//
// Each connection's first byte picks its protocol: 0x05 is SOCKS5 (the
// no-auth method, the CONNECT command, IPv4, domain and IPv6 addresses);
// anything else is HTTP/1.1, where CONNECT host:port opens a tunnel and
// an absolute-form http:// request is forwarded to the origin (one
// request per connection, hop-by-hop and Proxy-* headers removed, the
// Host header taken from the URL). Origin-form requests, other schemes,
// BIND and UDP ASSOCIATE are refused.
//
// Relay serves a listener of its own as a plain stream to one target the
// rules allow (a loopback registry the workspace configured, for clients
// that never use a proxy for loopback): the stream is carried as a
// CONNECT tunnel is, with the same limits and one record (ProtoForward).
//
// Defenses (security code fails closed: every refusal is answered in the
// client's protocol and audited with a stable reason code; reasonTable
// is the one place the answers are decided — a policy refusal is 403 for
// CONNECT and HTTP and SOCKS reply 0x02, BIND and UDP ASSOCIATE get 0x07,
// an unknown address type 0x08, a malformed request 400 / 0x01, a name
// that does not resolve or an origin that does not answer 502 / 0x04 or
// 0x05; a panic while serving is recovered as internal_error, refused):
//   - Allow list: a host is reached only when it is in Config.Hosts (the
//     gate's verdict for this command) or Config.Registries, matched
//     exactly and case-insensitively after dropping one trailing dot; an
//     entry with a port allows that port only, without one any port. A
//     literal IP in a request matches only the same literal entry.
//   - Public addresses only: the proxy resolves names itself and refuses
//     when any address is loopback, private, link-local (cloud metadata),
//     unspecified, multicast, CGNAT, documentation, benchmarking,
//     reserved, unique-local or site-local IPv6, or an IPv6 form that
//     embeds IPv4 (mapped — checked unmapped —, compatible, translated,
//     NAT64, 6to4, Teredo): the nonPublic table. The only exception is a
//     registry entry written as a literal IP (how tests and a local
//     mirror are configured), and only for requests naming that literal.
//   - Pinning: the addresses checked are the addresses dialled, as
//     "ip:port"; nothing is resolved twice, so DNS rebinding between the
//     check and the dial has nothing to act on.
//   - No loops or chains: a target that is one of the proxy's own
//     listening addresses is refused (proxy_loop); a tunnel whose client
//     bytes start with a SOCKS4/5 greeting or "CONNECT " is closed
//     (nested_proxy). TLS, SSH and plain HTTP start otherwise.
//   - DLP: host names, request targets (CONNECT) and URLs, the headers
//     and the whole body of plain HTTP requests go through Config.Inspect
//     before anything is dialled; by default the dlp package's detector,
//     refusing a finding of class SECRET. A body is read completely
//     (Content-Length or chunked) up to Limits.MaxBody and forwarded with
//     a Content-Length; a larger one is refused (body_too_large), never
//     forwarded half-inspected. A host name DLP refuses is recorded as
//     Withheld; reasons name scanners, never the text.
//   - Bounds: MaxConns connections at once (the next are answered
//     too_many_connections by at most 16 goroutines, then closed);
//     MaxHeaderBytes and HeaderTimeout for a request header, a SOCKS
//     handshake and an origin's response header; DialTimeout for resolve
//     and connect; IdleTimeout for a tunnel neither side uses. Close ends
//     every connection and returns when their goroutines have.
//   - Audit: one Conn per connection attempt, when it ends: protocol,
//     host, port, the address dialled, decision, reason, bytes sent to
//     and received from the origin, start and duration.
//
// Limits, honestly:
//   - Inside a CONNECT or SOCKS tunnel the proxy sees ciphertext: it
//     checks where the bytes go, not what they say. A command allowed to
//     reach a host can send it anything over TLS, including secrets it
//     read; DLP covers plain HTTP only. There is no TLS interception and
//     no credential injection into tunnels.
//   - Allowing a host allows every service behind its addresses (a CDN
//     front, any virtual host on a shared IP reached through TLS SNI or
//     a Host header inside a tunnel).
//   - DNS itself is the proxy's resolver: the names a command asks for
//     are looked up only when they are on the allow list, but the lookup
//     of an allowed name is visible to its DNS servers.
//   - NAT64 and 6to4 addresses are refused outright, so an IPv6-only
//     engine behind DNS64 cannot reach IPv4-only hosts through the proxy.
//   - A host entry without a port allows every port of that host.
//   - Plain HTTP is one request per connection, no Upgrade (WebSocket
//     over http:// is refused by omission); UDP (QUIC, DNS) is not
//     proxied at all.
package egress
