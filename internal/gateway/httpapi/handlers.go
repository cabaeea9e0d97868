package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// SourceObserveFailed is the taint source of a session whose tool result
// could not be recorded.
const SourceObserveFailed = "observe_failed"

// maxLogField bounds client-chosen strings (session, id) in log lines.
const maxLogField = 128

func (s *Server) evaluate(w http.ResponseWriter, r *http.Request) {
	body, refused := s.readBody(w, r)
	if refused != "" {
		s.auditRefused(r.Context(), refused, "evaluate request refused unread ("+refused+")")
		return
	}
	reqs, batch, err := decodeEvaluate(body, s.cfg.MaxBatch)
	if err != nil {
		var big *batchTooLarge
		if errors.As(err, &big) {
			s.auditRefused(r.Context(), ErrCodeTooLarge, "evaluate request refused: "+err.Error())
			writeError(w, http.StatusRequestEntityTooLarge, ErrCodeTooLarge, err.Error())
			return
		}
		s.auditRefused(r.Context(), ErrCodeBadRequest, refusedReason(err))
		writeError(w, http.StatusBadRequest, ErrCodeBadRequest, "bad evaluate request: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	out := make([]Verdict, len(reqs))
	var counts [3]int // by Severity
	for i, q := range reqs {
		v := s.cfg.Gate.Evaluate(ctx, q.shield())
		s.metrics.decision(v)
		counts[v.Decision.Severity()]++
		out[i] = Verdict{ID: q.ID, Verdict: v}
	}
	if !batch {
		v := out[0]
		note(w, slog.String("session", clipLog(reqs[0].Session)), slog.String("id", clipLog(v.ID)),
			slog.String("decision", v.Decision.String()), slog.String("stage", string(v.Stage)),
			slog.String("rule", v.Rule))
		writeJSON(w, http.StatusOK, v)
		return
	}
	note(w, slog.Int("batch", len(out)), slog.Int("allow", counts[0]), slog.Int("escalate", counts[1]),
		slog.Int("block", counts[2]))
	writeJSON(w, http.StatusOK, BatchResponse{Verdicts: out})
}

func (s *Server) observe(w http.ResponseWriter, r *http.Request) {
	body, refused := s.readBody(w, r)
	if refused != "" {
		return
	}
	q, err := decodeObserve(body)
	note(w, slog.String("session", clipLog(q.Session)))
	if err != nil {
		s.observeFailed(w, r, q, http.StatusBadRequest, "bad observe request: "+err.Error())
		return
	}
	if _, err := action.Decode(q.Type, q.Payload); err != nil {
		s.observeFailed(w, r, q, http.StatusBadRequest, "cannot decode action: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	var obs shield.Observation
	if rep, ok := s.cfg.Gate.(reporter); ok {
		obs, err = rep.ObserveReport(ctx, q.shield())
	} else {
		err = s.cfg.Gate.Observe(ctx, q.shield())
	}
	if err != nil {
		s.observeFailed(w, r, q, http.StatusInternalServerError, err.Error())
		return
	}
	s.metrics.observation(true)
	if len(obs.Injection) > 0 {
		// The finding is the caller's to act on: warn the agent, stop the run.
		note(w, slog.Any("injection", obs.Injection))
		writeJSON(w, http.StatusOK, ObserveResponse{Level: obs.Level.String(), Taint: obs.Taint.String(),
			Injection: obs.Injection})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// reporter is a gate whose Observe says what it found (shield.Gate).
type reporter interface {
	ObserveReport(ctx context.Context, r shield.Request) (shield.Observation, error)
}

// observeFailed answers a result that was not recorded. The session it
// names is raised to critical taint: what its agent saw is unknown, so it
// is judged as if it were the worst.
func (s *Server) observeFailed(w http.ResponseWriter, r *http.Request, q ObserveRequest, status int, msg string) {
	s.metrics.observation(false)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.cfg.RequestTimeout)
	defer cancel()
	s.auditFailure(ctx, q.Session, q.Type, SourceObserveFailed, msg)
	switch {
	case q.Session == "":
		msg += "; the result was not recorded"
	case s.cfg.Tainter == nil:
		msg += "; the result was not recorded: treat session " + q.Session + " as holding critical data"
	default:
		if err := s.cfg.Tainter.RaiseTaint(ctx, q.Session, ifc.Critical, SourceObserveFailed); err != nil {
			s.log.Error("raise taint failed", "session", clipLog(q.Session), "error", err.Error())
			status = http.StatusInternalServerError
			msg += "; the result was not recorded and the session's taint could not be written: " + err.Error() +
				"; every action is refused until it is"
		} else {
			msg += "; the result was not recorded, so session " + q.Session + " is now tainted critical (observe_failed)"
		}
	}
	note(w, slog.String("error", ErrCodeObserve))
	writeError(w, status, ErrCodeObserve, msg)
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" || len(id) > maxIDBytes {
		writeError(w, http.StatusBadRequest, ErrCodeBadRequest, fmt.Sprintf("session id must be 1..%d bytes", maxIDBytes))
		return
	}
	note(w, slog.String("session", clipLog(id)))
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	info, err := s.sessionInfo(ctx, id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, ErrCodeInternal, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) sessionInfo(ctx context.Context, id string) (SessionInfo, error) {
	info := SessionInfo{ID: id, Taints: []TaintRecord{}}
	sess, err := s.cfg.Sessions.GetSession(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return info, fmt.Errorf("read session %s: %w", id, err)
	default:
		info.Known, info.Parent = true, sess.Parent
		started := sess.StartedAt
		info.StartedAt = &started
		if !sess.EndedAt.IsZero() {
			ended := sess.EndedAt
			info.EndedAt = &ended
		}
	}
	lvl, src, err := s.cfg.Sessions.TaintOf(ctx, id)
	if err != nil {
		return info, fmt.Errorf("read taint of session %s: %w", id, err)
	}
	info.Taint, info.Source = levelName(lvl), src
	taints, err := s.cfg.Sessions.Taints(ctx, id)
	if err != nil {
		return info, fmt.Errorf("read taint of session %s: %w", id, err)
	}
	for _, t := range taints {
		info.Taints = append(info.Taints, TaintRecord{Level: levelName(t.Level), Source: t.Source, Origin: t.Origin, At: t.At})
	}
	return info, nil
}

// levelName names a stored level; out of range reads "critical".
func levelName(l int) string {
	if l < 0 || l > int(ifc.Critical) {
		return ifc.Critical.String()
	}
	return ifc.Level(l).String()
}

// healthzTimeout bounds the checks of one /healthz.
const healthzTimeout = 5 * time.Second

// healthz answers 200 while every configured part works, else 503 naming
// the parts that cannot be written (the audit chain, the store): a
// server that blocks every decision is not healthy.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthzTimeout)
	defer cancel()
	var failing []string
	for _, c := range s.cfg.Health {
		if err := c.Check(ctx); err != nil {
			failing = append(failing, c.Name)
			s.log.Warn("health check failed", "part", c.Name, "error", err.Error())
		}
	}
	if len(failing) > 0 {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable",
			"reason": "cannot be written: " + strings.Join(failing, ", ") + "; every decision is blocked until it can"})
		return
	}
	body := map[string]string{"status": "ok"}
	if s.cfg.AuditChain != "" {
		body["audit_chain"] = s.cfg.AuditChain
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.metrics.write(w); err != nil {
		s.log.Warn("write metrics", "error", err.Error())
	}
}

// readBody reads a JSON body within the size limit, answering the
// request itself when it cannot.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, refused string) {
	if !jsonBody(r) {
		writeError(w, http.StatusUnsupportedMediaType, ErrCodeMediaType, "the body must be application/json")
		return nil, ErrCodeMediaType
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, ErrCodeTooLarge,
			fmt.Sprintf("the body is %d bytes, over the limit of %d; refused unread", r.ContentLength, s.cfg.MaxBodyBytes))
		return nil, ErrCodeTooLarge
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			writeError(w, http.StatusRequestEntityTooLarge, ErrCodeTooLarge,
				fmt.Sprintf("the body is over the limit of %d bytes", s.cfg.MaxBodyBytes))
			return nil, ErrCodeTooLarge
		}
		writeError(w, http.StatusBadRequest, ErrCodeBadRequest, "read body: "+err.Error())
		return nil, ErrCodeBadRequest
	}
	return b, ""
}

func clipLog(s string) string {
	if len(s) > maxLogField {
		return s[:maxLogField] + "…"
	}
	return s
}

// auditRefused records an evaluate request refused before any action
// could be judged (too large, malformed, nested too deeply, not UTF-8) as
// a BLOCK, so that the chain holds every refusal the API answers. The
// reason must not carry the body.
func (s *Server) auditRefused(ctx context.Context, rule, reason string) {
	if s.cfg.Audit == nil {
		return
	}
	e := audit.Event{Type: audit.ActionBlocked, Decision: verdict.Block.String(), Stage: string(verdict.StageDecode),
		Rule: rule, Reason: reason}
	if _, err := s.cfg.Audit.Append(context.WithoutCancel(ctx), e); err != nil {
		s.log.Error("audit append failed", "code", rule, "error", err.Error())
	}
}

// refusedReason is what the chain says of a body that did not decode:
// the bounds check's own words (a depth, a field name: never the input),
// or a fixed sentence.
func refusedReason(err error) string {
	if errors.Is(err, action.ErrTooDeep) || errors.Is(err, action.ErrInvalidUTF8) {
		return "evaluate request refused: " + err.Error()
	}
	return "evaluate request refused: not one strict JSON request (or batch) object"
}
