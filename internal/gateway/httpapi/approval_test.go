package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// TestEvaluateAsksAHumanThroughTheWebhook runs the whole tier 3 flow over
// real loopback HTTP: an agent's request that the gate escalates is posted
// (signed) to a webhook; the human's service answers through the API's
// /v1/approvals/webhook; the agent gets the human's verdict, and the
// audit chain holds each step.
func TestEvaluateAsksAHumanThroughTheWebhook(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef"
	t.Setenv("PX_APPROVAL_SECRET", secret)
	var apiURL string
	human := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Event string       `json:"event"`
			Ask   approval.Ask `json:"ask"`
		}
		if err := json.Unmarshal(body, &msg); err != nil || approval.VerifySignature([]byte(secret), r.Header.Get(approval.SignatureHeader), body, time.Now(), time.Minute) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if msg.Event != "approval.requested" {
			return // a resolution notice
		}
		ask := msg.Ask
		decision := "allow"
		if bytes.Contains(ask.Payload, []byte("other.proto")) {
			decision = "deny"
		}
		answer := []byte(fmt.Sprintf(`{"id":%q,"decision":%q,"grant":"none","user":"alice"}`, ask.ID, decision))
		go func() {
			req, _ := http.NewRequest(http.MethodPost, apiURL+"/v1/approvals/webhook", bytes.NewReader(answer))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(approval.SignatureHeader, approval.Sign([]byte(secret), time.Now(), answer))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}))
	defer human.Close()

	root := newWorkspace(t)
	cfg := fmt.Sprintf("version: 1\npolicy: default\napproval:\n  timeout: 20s\n  webhook:\n    url: %s/hook\n    secret_env: PX_APPROVAL_SECRET\n", human.URL)
	if err := os.WriteFile(workspace.ConfigPath(root), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	broker, hook, err := ws.Approver()
	if err != nil {
		t.Fatal(err)
	}
	gcfg := ws.GateConfig(testHome)
	gcfg.Approver = workspace.GateApprover(broker)
	gate, err := shield.New(gcfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Gate: gate, Sessions: ws.DB, Tainter: ws.IFCStore(), Audit: ws.Audit, Token: []byte(testToken),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Approvals: hook.Handler(), RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	apiURL = "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	ts := &testServer{root: root, url: apiURL}

	for _, tc := range []struct {
		cmd  string
		want verdict.Decision
	}{
		{"protoc --go_out=. api.proto", verdict.Allow},
		{"protoc --go_out=. other.proto", verdict.Block},
	} {
		body := mustJSON(t, map[string]any{"id": tc.cmd, "session": "s1", "type": "execute_command",
			"payload": map[string]string{"command": tc.cmd}})
		v := ts.evaluate(t, body)
		if v.Decision != tc.want || v.Stage != verdict.StageHuman || v.ID != tc.cmd {
			t.Errorf("%s: got %+v, want %v decided by a human", tc.cmd, v, tc.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := broker.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	var types []string
	if err := audit.Scan(audit.DefaultPath(root), audit.Filter{}, func(e audit.Entry) error {
		types = append(types, string(e.Type))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ApprovalRequested", "ActionApproved", "ActionBlocked", "ActionEvaluated"} {
		if !slices.Contains(types, want) {
			t.Errorf("audit chain lacks %s: %v", want, types)
		}
	}
	if _, err := audit.Verify(audit.DefaultPath(root), audit.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
}
