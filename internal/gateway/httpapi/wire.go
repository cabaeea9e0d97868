package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// EvaluateRequest is one action in a /v1/evaluate body: the fields of a
// `shield evaluate` line plus the client's id, echoed in the verdict.
type EvaluateRequest struct {
	ID      string          `json:"id,omitempty"`
	Session string          `json:"session,omitempty"`
	Parent  string          `json:"parent,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	// Result is what the tool returned when the action already ran; it
	// taints the session like /v1/observe.
	Result string `json:"result,omitempty"`
}

func (q EvaluateRequest) shield() shield.Request {
	return shield.Request{Session: q.Session, Parent: q.Parent, Type: q.Type, Payload: q.Payload, Result: q.Result}
}

// BatchRequest is a /v1/evaluate body with several actions, judged in
// order (a result in one taints the session for the next).
type BatchRequest struct {
	Requests []EvaluateRequest `json:"requests"`
}

// Verdict is the answer to one action: a `shield evaluate` verdict line
// plus the request's id.
type Verdict struct {
	ID string `json:"id,omitempty"`
	verdict.Verdict
}

// BatchResponse answers a BatchRequest, verdicts in request order.
type BatchResponse struct {
	Verdicts []Verdict `json:"verdicts"`
}

// ObserveRequest is a /v1/observe body: what an action that already ran
// returned.
type ObserveRequest struct {
	Session string          `json:"session"`
	Parent  string          `json:"parent,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Result  string          `json:"result"`
}

func (q ObserveRequest) shield() shield.Request {
	return shield.Request{Session: q.Session, Parent: q.Parent, Type: q.Type, Payload: q.Payload, Result: q.Result}
}

// ObserveResponse is the answer of /v1/observe when the result reads as
// instructions to the agent (prompt injection); a result that does not is
// answered 204 with no body. Injection names the rules it matches (ids of
// package inject); Taint is the level the session was raised to.
type ObserveResponse struct {
	Level     string   `json:"level"`
	Taint     string   `json:"taint"`
	Injection []string `json:"injection"`
}

// SessionInfo is the answer of /v1/sessions/{id}. Known is false for a
// session the store has no record of: nothing tainted it and it has no
// parent, so the gate judges it as clean.
type SessionInfo struct {
	ID        string     `json:"id"`
	Known     bool       `json:"known"`
	Parent    string     `json:"parent,omitempty"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	// Taint is the highest level the session (or a sub-agent) has seen,
	// Source what carried it ("path:…", "content:…").
	Taint  string        `json:"taint"`
	Source string        `json:"source,omitempty"`
	Taints []TaintRecord `json:"taints"`
}

// TaintRecord is one reason the session is tainted; Origin is the
// session that saw the data (a sub-agent's id for propagated taint).
type TaintRecord struct {
	Level  string    `json:"level"`
	Source string    `json:"source"`
	Origin string    `json:"origin"`
	At     time.Time `json:"at"`
}

// decodeEvaluate reads a /v1/evaluate body strictly: one request object,
// or {"requests":[…]} with 1..maxBatch objects.
func decodeEvaluate(body []byte, maxBatch int) (reqs []EvaluateRequest, batch bool, err error) {
	var env struct {
		EvaluateRequest
		Requests *[]json.RawMessage `json:"requests"`
	}
	if err := decodeStrict(body, &env); err != nil {
		return nil, false, err
	}
	if env.Requests == nil {
		if err := checkEvaluate(env.EvaluateRequest); err != nil {
			return nil, false, err
		}
		return []EvaluateRequest{env.EvaluateRequest}, false, nil
	}
	e := env.EvaluateRequest
	if e.ID != "" || e.Session != "" || e.Parent != "" || e.Type != "" || e.Payload != nil || e.Result != "" {
		return nil, true, errors.New(`a batch body holds only "requests"; put session, type and payload in each request`)
	}
	raw := *env.Requests
	switch {
	case len(raw) == 0:
		return nil, true, errors.New(`"requests" is empty`)
	case len(raw) > maxBatch:
		return nil, true, &batchTooLarge{n: len(raw), max: maxBatch}
	}
	reqs = make([]EvaluateRequest, len(raw))
	for i, b := range raw {
		if err := decodeFields(bytes.TrimSpace(b), &reqs[i]); err != nil {
			return nil, true, fmt.Errorf("requests[%d]: %w", i, err)
		}
		if err := checkEvaluate(reqs[i]); err != nil {
			return nil, true, fmt.Errorf("requests[%d]: %w", i, err)
		}
	}
	return reqs, true, nil
}

type batchTooLarge struct{ n, max int }

func (e *batchTooLarge) Error() string {
	return fmt.Sprintf("a batch of %d requests is over the limit of %d", e.n, e.max)
}

func checkEvaluate(q EvaluateRequest) error {
	if q.Type == "" {
		return errors.New(`request has no "type"`)
	}
	if len(q.ID) > maxIDBytes {
		return fmt.Errorf(`"id" is %d bytes, over the limit of %d`, len(q.ID), maxIDBytes)
	}
	return nil
}

// decodeObserve reads a /v1/observe body strictly. A body that does not
// decode still yields the session it names, when one can be read, so
// that the caller can mark it.
func decodeObserve(body []byte) (ObserveRequest, error) {
	var q ObserveRequest
	if err := decodeStrict(body, &q); err != nil {
		var loose struct {
			Session string `json:"session"`
		}
		switch {
		case errors.Is(err, action.ErrTooDeep):
			// No second decode of it: one pass over its top level.
			q = ObserveRequest{Session: action.TopLevelString(body, "session")}
		case json.Unmarshal(body, &loose) == nil:
			q = ObserveRequest{Session: loose.Session}
		default:
			q = ObserveRequest{}
		}
		return q, err
	}
	switch {
	case q.Session == "":
		return q, errors.New(`observe needs a "session": taint is kept per session`)
	case q.Type == "":
		return q, errors.New(`request has no "type"`)
	}
	return q, nil
}

// decodeStrict decodes one JSON object into v: duplicated keys (at any
// depth), unknown fields and trailing data are errors.
func decodeStrict(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return errors.New("the body must be a JSON object")
	}
	if err := action.CheckDuplicateKeys(b); err != nil {
		return err
	}
	return decodeFields(b, v)
}

// decodeFields decodes b (a trimmed JSON object whose keys were checked)
// into v, refusing unknown fields and trailing data.
func decodeFields(b []byte, v any) error {
	if len(b) == 0 || b[0] != '{' {
		return errors.New("want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(b[dec.InputOffset():])) != 0 {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}
