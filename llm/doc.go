// Package llm is the provider layer: one interface for chat completion
// with streaming and tool calls, over Anthropic (the official
// anthropic-sdk-go), OpenAI and every OpenAI-compatible server — Ollama,
// vLLM, others — (the official openai-go with a base URL), and Google
// Gemini (its REST protocol over net/http).
//
// A Config holds a pool of models (name, provider, model, the *name* of
// the environment variable holding the API key, base URL, purpose,
// timeout) and roles (chat, shield, embedding, sub_agent) mapping to
// pool entries. A Pool built from it hands out a Provider per role.
// Every call reports its token usage (Response.Usage, the Done event).
// FakeProvider plays scripted answers for other packages' tests.
//
// The provider-neutral vocabulary (Message, Part, Tool, Request,
// Response, Event, Provider, Stream, Collect, request validation) is
// defined in package llm/chat, which links no SDK and no net/http, and
// aliased here under the same names. The sandboxed agent imports llm/chat
// alone; the convention tests fail if it imports this package.
//
// Scripted models: provider kind `scripted` replays a file (YAML, or
// JSON) instead of calling a network; tests and the demo name it in
// config.yaml like any model (`llm.roles.chat: demo`):
//
//	models:
//	  - {name: demo, provider: scripted, model: injected-agent, script: /abs/path/exfiltrate.yaml}
//
// The file is a list of turns; each call plays the next one:
//
//	turns:
//	  - text: "I will read the key."   # the answer's text
//	    chunk: 16                      # stream it in 16-byte pieces (0: one piece)
//	    tool_calls:                    # calls the model makes (stop reason tool_use)
//	      - {name: read_file, input: {path: ~/.ssh/id_rsa}, id: optional}
//	  - expect: {tool_result_contains: "Blocked"}   # assert: else the call fails
//	    when: {tool_result_error: true}             # branch: else the turn is skipped
//	    usage: {input_tokens: 100, output_tokens: 20}  # default: bytes / 4
//	    text: "Blocked; stopping."
//
// Conditions (when, expect) look at the tool results of the request's
// last message: tool_result_contains, tool_result_not_contains,
// tool_result_error (some result is, or none is, an error). Decoding is
// strict: an unknown key is an error naming the file and the turn, as is
// a turn without text or tool calls. A call after the last turn fails
// with ErrScriptEnd; an unmet expect with ErrScriptExpectation.
//
// Defenses:
//   - Keys never leave the process except in the provider's auth header.
//     Configuration names the environment variable, not the key; an
//     api_key_env that does not look like a variable name is refused
//     without being echoed. The key is read when a role is used; a
//     missing one is an error naming the variable. Error details are
//     built from the server's answer with the key removed, control
//     characters dropped and the length bounded; a 401/403 names the
//     variable to check. Providers print as their entry name only.
//   - The SDKs' environment defaults are bypassed: services are built
//     from explicit options, so OPENAI_API_KEY, ANTHROPIC_BASE_URL,
//     profiles and the like can neither add a key to a request nor
//     redirect one.
//   - A model without a key (Ollama, vLLM, a local compatible server)
//     must have a loopback base URL (127.0.0.0/8, ::1, localhost), and
//     its connections are checked at dial time, after name resolution,
//     to really reach loopback (no proxy is used for them). A key is
//     sent to a remote host only over https. Base URLs may not carry
//     user info, a query or a fragment.
//   - Redirects are never followed (a key must not follow one to
//     another host); a 3xx is a rejected call.
//   - Bodies are bounded: 32 MiB per response (Options.MaxResponseBytes),
//     64 KiB kept of an error body, 8 MiB per server-sent event.
//   - Fail closed on answers: a response that does not decode, lacks its
//     stop reason, holds tool arguments that are not a JSON object, or a
//     stream that ends before its final event (message_stop, a
//     finish_reason) is an error, never a partial success.
//
// Timeouts and retries: each attempt is bounded by the entry's timeout
// (for streams: the wait for each event). Failures are classified from
// what the transport saw (status, Retry-After, error body) into stable
// kinds (Kind). 429, 408, 5xx (529 included), attempt timeouts and
// transport errors before an answer are retried with exponential
// backoff and jitter (Clock and Jitter are injectable), honouring
// Retry-After, retry-after-ms and Gemini's RetryInfo, within
// RetryPolicy's attempts (4) and total time (2 min) and the caller's
// deadline. The SDKs' own retries are disabled so the two never stack.
// A stream is retried only until its first event has been read; after
// that a failure ends it (stream_broken, timeout, …). A malformed 2xx
// answer is not retried: the call was made and billed; an endpoint that
// sends broken JSON does not heal in a second. Context cancellation
// ends a call at once, pauses included.
//
// Dependencies, measured (stripped static binaries, CGO_ENABLED=0, a
// minimal program making one call; net/http alone: 6.0 MB):
//
//   - github.com/openai/openai-go v1.12.0, the module path DESIGN names,
//     not its /v3 successor: a Chat Completions call links 8.3 MB with
//     v1.12.0 and 24.6 MB with v3.95.0. Only openai.go touches the SDK;
//     moving to v3 is a change of that file, checked by the wire tests.
//   - google.golang.org/genai resolves through the proxy, but next to the
//     two SDKs (13.5 MB, 279 packages) it brings 210 more packages (gRPC,
//     protobuf, Cloud auth, OpenCensus) and 11.0 MB (24.5 MB). Two
//     endpoints (generateContent, streamGenerateContent?alt=sse) and a
//     dozen JSON fields do not justify that: they are implemented here
//     (about 0.4 MB: this package in such a program is 13.9 MB) and
//     tested against a server speaking the same wire format.
package llm
