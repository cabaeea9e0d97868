package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Error codes of the API's error bodies ({"error": code, "message": …}).
// They are a public contract.
const (
	ErrCodeBadRequest   = "bad_request"
	ErrCodeUnauthorized = "unauthorized"
	ErrCodeTooLarge     = "request_too_large"
	ErrCodeMediaType    = "unsupported_media_type"
	ErrCodeObserve      = "observe_failed"
	ErrCodeInternal     = "internal_error"
	ErrCodeUnavailable  = "shutting_down"
)

// errorBody is what every refused request gets.
type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// recorder keeps the status and the attributes a handler wants logged.
type recorder struct {
	http.ResponseWriter
	status int
	attrs  []slog.Attr
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// note adds attributes to the request's log line.
func note(w http.ResponseWriter, attrs ...slog.Attr) {
	if r, ok := w.(*recorder); ok {
		r.attrs = append(r.attrs, attrs...)
	}
}

// instrument counts, times and logs every request, turns a handler panic
// into a 500 and refuses requests once the server drains.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.now()
		rec := &recorder{ResponseWriter: w}
		s.metrics.inFlight.Add(1)
		defer func() {
			s.metrics.inFlight.Add(-1)
			if p := recover(); p != nil {
				s.log.Error("handler panic", "path", r.URL.Path)
				if rec.status == 0 {
					writeError(rec, http.StatusInternalServerError, ErrCodeInternal, "internal error; nothing was decided")
				}
			}
			s.finish(rec, r, start)
		}()
		if !s.enter() {
			rec.Header().Set("Connection", "close")
			writeError(rec, http.StatusServiceUnavailable, ErrCodeUnavailable, "the server is shutting down")
			return
		}
		defer s.leave()
		next.ServeHTTP(rec, r)
	})
}

// finish logs the request and counts it under its route pattern (never
// the raw path, which carries session ids).
func (s *Server) finish(rec *recorder, r *http.Request, start time.Time) {
	d := s.now().Sub(start)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	s.metrics.request(route, rec.status, d)
	attrs := append([]slog.Attr{
		slog.String("method", r.Method), slog.String("route", route), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Duration("duration", d), slog.String("remote", r.RemoteAddr),
	}, rec.attrs...)
	level := slog.LevelInfo
	switch {
	case rec.status >= 500:
		level = slog.LevelError
	case rec.status == http.StatusUnauthorized:
		level = slog.LevelWarn
	}
	s.log.LogAttrs(r.Context(), level, "request", attrs...)
}

// authed requires the bearer token.
func (s *Server) authed(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch res := s.auth.check(r.Header.Get("Authorization")); res {
		case authOK:
			h(w, r)
		default:
			note(w, slog.String("auth", string(res)))
			challenge := `Bearer realm="parallax"`
			if res == authInvalid {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			writeError(w, http.StatusUnauthorized, ErrCodeUnauthorized,
				"a bearer token is required: Authorization: Bearer <the content of .parallax/api.token>")
		}
	})
}

// jsonBody refuses a request whose Content-Type is set and is not JSON.
func jsonBody(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, ErrCodeInternal, "cannot encode the response")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	b, _ := marshal(errorBody{Error: code, Message: msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// marshal encodes without HTML escaping (reasons quote commands), with a
// final newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
