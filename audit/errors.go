package audit

import (
	"errors"
	"fmt"
)

// Code is a stable reason code for what is wrong with a log. Codes are a
// public contract: the CLI, the UI and tests use them.
type Code string

// The reason codes Verify, Open and Append report.
const (
	CodeBadJSON        Code = "bad_json"        // the line is not one JSON object
	CodeBadField       Code = "bad_field"       // a field is missing, unknown or out of range
	CodeNotCanonical   Code = "not_canonical"   // valid, but not the canonical spelling
	CodeHashMismatch   Code = "hash_mismatch"   // the content does not hash to the entry's hash
	CodePrevMismatch   Code = "prev_mismatch"   // prev is not the previous entry's hash
	CodeSeqGap         Code = "seq_gap"         // seq is not the previous seq + 1
	CodeLineTooLong    Code = "line_too_long"   // a line exceeds MaxLine
	CodeTornTail       Code = "torn_tail"       // bytes after the last newline
	CodeHeadMismatch   Code = "head_mismatch"   // the head file disagrees with the log
	CodeHeadMissing    Code = "head_missing"    // a non-empty log without a head file
	CodeHeadUnreadable Code = "head_unreadable" // the head file is malformed
	CodeAnchorMismatch Code = "anchor_mismatch" // an external anchor disagrees with the log
)

// ChainError locates the first problem in a log: the 1-based line (0 when
// unknown), the seq found there or, when the line cannot be read, the seq
// expected there, the byte offset where the line starts, a reason code and
// an explanation that never quotes entry contents beyond hashes and numbers.
type ChainError struct {
	Path   string
	Line   int
	Seq    uint64
	Offset int64
	Code   Code
	Msg    string
}

func (e *ChainError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("audit log %s: byte %d: %s: %s", e.Path, e.Offset, e.Code, e.Msg)
	}
	return fmt.Sprintf("audit log %s: line %d (seq %d, byte %d): %s: %s",
		e.Path, e.Line, e.Seq, e.Offset, e.Code, e.Msg)
}

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit log closed")

// AsChainError returns the ChainError inside err, if any.
func AsChainError(err error) (*ChainError, bool) {
	var ce *ChainError
	ok := errors.As(err, &ce)
	return ce, ok
}
