package shield

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// MaxLineBytes bounds one JSONL request line. Longer lines are refused
// without being held in memory.
const MaxLineBytes = action.MaxPayloadBytes + 64<<10

// Reason codes of the JSONL interface.
const (
	RuleBadRequest = "bad_request"
	RuleTooLarge   = "request_too_large"
)

// ParseRequest decodes one JSONL line strictly: unknown or duplicated
// top-level keys are errors.
func ParseRequest(line []byte) (Request, error) {
	var r Request
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return r, errors.New("empty line")
	}
	if line[0] != '{' {
		return r, errors.New("a request line must be a JSON object")
	}
	if err := action.CheckDuplicateKeys(line); err != nil {
		return r, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("bad request line: %w", err)
	}
	if dec.More() {
		return r, errors.New("trailing data after the request object")
	}
	if r.Type == "" {
		return r, errors.New(`request has no "type"`)
	}
	return r, nil
}

// Evaluator is what Stream needs from a gate.
type Evaluator interface {
	Evaluate(ctx context.Context, r Request) verdict.Verdict
}

// Refuser is an Evaluator that also records a refusal made before any
// request could be decoded (a malformed or oversized line), so that the
// audit chain holds every verdict Stream writes. *Gate is one.
type Refuser interface {
	Refuse(ctx context.Context, v verdict.Verdict) verdict.Verdict
}

var _ Refuser = (*Gate)(nil)

// Stream reads JSONL requests from in and writes one verdict line per
// input line to out, in order, flushing each. A malformed line yields a
// BLOCK verdict and the stream goes on. It returns on EOF, on a read or
// write error, or when ctx ends.
func Stream(ctx context.Context, ev Evaluator, in io.Reader, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := readLine(br, MaxLineBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read request: %w", err)
		}
		if errors.Is(err, io.EOF) && len(line) == 0 && !tooLong {
			return nil
		}
		v := evaluateLine(ctx, ev, line, tooLong)
		if werr := enc.Encode(v); werr != nil {
			return fmt.Errorf("write verdict: %w", werr)
		}
		if werr := bw.Flush(); werr != nil {
			return fmt.Errorf("write verdict: %w", werr)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

func evaluateLine(ctx context.Context, ev Evaluator, line []byte, tooLong bool) verdict.Verdict {
	if tooLong {
		return refuse(ctx, ev, verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageDecode, Rule: RuleTooLarge,
			Reason: fmt.Sprintf("request line is over the %d-byte limit; refused unread", MaxLineBytes)})
	}
	r, err := ParseRequest(line)
	if err != nil {
		return refuse(ctx, ev, verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageDecode, Rule: RuleBadRequest,
			Reason: clip(err.Error())})
	}
	return ev.Evaluate(ctx, r)
}

// refuse records a refusal with ev when it can. The chain gets a reason
// that never carries the line: the refusal's own words when they come
// from the bounds check (which names no input), a fixed one otherwise.
func refuse(ctx context.Context, ev Evaluator, v verdict.Verdict) verdict.Verdict {
	rf, ok := ev.(Refuser)
	if !ok {
		return v
	}
	logged := v
	if v.Rule == RuleBadRequest {
		logged.Reason = "malformed request line (not one strict JSON request object); refused"
		if safe := boundsReason(v.Reason); safe != "" {
			logged.Reason = safe
		}
	}
	out := rf.Refuse(ctx, logged)
	if out.Rule != logged.Rule {
		return out // the refusal could not be recorded: say so
	}
	return v
}

// boundsReason returns reason when it is CheckBounds' own (input-free)
// wording, else "".
func boundsReason(reason string) string {
	for _, e := range []error{action.ErrTooDeep, action.ErrInvalidUTF8} {
		if strings.HasPrefix(reason, e.Error()) {
			return reason
		}
	}
	return ""
}

// readLine returns the next line without its newline. A line longer than
// max is consumed and dropped (tooLong=true) holding at most one buffer.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return buf, tooLong, err
		}
		if !tooLong {
			if len(buf)+len(chunk) > max {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if !isPrefix {
			return buf, tooLong, nil
		}
	}
}
