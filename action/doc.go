// Package action is the catalog of actions an agent may propose, and the
// boundary where untrusted JSON becomes a typed value.
//
// Guarantees and defenses:
//   - Strict decode: an unknown action type, an unknown payload field, a
//     duplicated key, a wrong JSON type, trailing data or a missing required
//     field is an error (the gate turns it into BLOCK).
//   - Bounded work on any input: CheckBounds, one pass over the raw bytes
//     that every boundary (shield evaluate, the hook, the HTTP API, the
//     MCP proxy, approval webhooks, through CheckDuplicateKeys) runs before
//     a decoder, refuses JSON nested past MaxJSONDepth (64) levels and
//     strings that are not UTF-8, in microseconds whatever the depth.
//     Payloads also refuse lone-surrogate escapes (CheckPayloadBounds): a
//     decoder would turn those bytes into U+FFFD, so two inputs would be
//     judged and hashed alike.
//   - Normalisation: "~" expands from the caller's HOME, every path must be
//     absolute, and paths carrying NUL or control characters are refused,
//     as are paths spelled with escapes or look-alikes (CheckPathEncoding:
//     %68, &#126;, \x2e, fullwidth and Cyrillic/Greek homoglyphs), which
//     the tool that runs the action might decode to a restricted path.
//   - One reading of file URLs (ParseFileURL), for the gate's URL fields
//     and the MCP proxy's arguments and resource URIs: spellings every URL
//     parser reads alike are normalised as a WHATWG parser does (spaces
//     and controls before it, tabs and newlines anywhere, the scheme's
//     case, file:/x, localhost, escapes); spellings parsers read
//     differently (a backslash, . or .., a query, trailing spaces, another
//     host, escaped slashes or controls) are refused.
//   - Canonical hash: SHA-256 over {type, payload} re-encoded canonically,
//     so key order, white space and number spelling (1, 1.0, 1e0) do not
//     change it. The Verifier refuses execution when the hash at execution
//     differs from the hash at proposal (TOCTOU).
//
// The package is a leaf: it imports nothing of ours.
package action
