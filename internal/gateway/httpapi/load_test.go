package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// loadCase is one action of the load test with the decision it must get.
type loadCase struct {
	req  EvaluateRequest
	want verdict.Decision
	hash string // the canonical hash the gate must report
}

const loadSecret = "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"

// loadCases builds the distinct actions of worker w, step i: one of each
// kind, so that a verdict answered to the wrong request shows up as a
// wrong id, hash or decision.
func loadCases(t *testing.T, root string, w, i int) []loadCase {
	tag := fmt.Sprintf("w%02d-%03d", w, i)
	mk := func(kind, typ string, p json.RawMessage, want verdict.Decision) loadCase {
		q := EvaluateRequest{ID: tag + "-" + kind, Session: "sess-" + tag + "-" + kind, Type: typ, Payload: p}
		return loadCase{req: q, want: want, hash: expectedHash(t, typ, p)}
	}
	return []loadCase{
		mk("read", "read_file", payload("path", root+"/src/"+tag+".go"), verdict.Allow),
		mk("key", "read_file", payload("path", "~/.ssh/id_"+tag), verdict.Block),
		mk("sudo", "execute_command", payload("command", "sudo systemctl restart svc-"+tag), verdict.Escalate),
		mk("test", "execute_command", payload("command", "go test ./pkg"+strings.ReplaceAll(tag, "-", "")+"/..."), verdict.Allow),
		mk("write", "write_file", payload("path", root+"/out/"+tag+".txt", "content", "hello "+tag), verdict.Allow),
	}
}

func expectedHash(t *testing.T, typ string, p json.RawMessage) string {
	a, err := action.Decode(typ, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := action.Normalize(a, action.Env{Home: testHome}); err != nil {
		t.Fatal(err)
	}
	h, err := action.Hash(a)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestConcurrentLoad is the API under load: 64 clients on loopback send
// single requests, batches and observe→evaluate taint flows at the same
// time, each action distinct. Every verdict must answer its own request
// (id, canonical hash, expected decision), and the audit chain must hold
// exactly one entry per decision, for the same session, hash and decision.
func TestConcurrentLoad(t *testing.T) {
	const clients, steps = 64, 4
	ts := startServer(t, Config{}, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()

	var mu sync.Mutex
	answered := map[string]string{} // session|hash → decision, from responses
	observed := 0
	record := func(c loadCase, v Verdict) {
		mu.Lock()
		defer mu.Unlock()
		answered[c.req.Session+"|"+v.Hash] = v.Decision.String()
	}
	check := func(c loadCase, v Verdict) error {
		if v.ID != c.req.ID || v.Hash != c.hash || v.Decision != c.want {
			return fmt.Errorf("request %s (%s): got id %s, %v, hash %s (%s), want %v, hash %s",
				c.req.ID, c.req.Type, v.ID, v.Decision, v.Hash, v.Reason, c.want, c.hash)
		}
		return nil
	}

	// Every action and its expected hash is built before the load starts.
	plan := make([][][]loadCase, clients)
	flows := make([][]taintFlow, clients)
	for w := range clients {
		for i := range steps {
			plan[w] = append(plan[w], loadCases(t, ts.root, w, i))
			flows[w] = append(flows[w], newTaintFlow(t, fmt.Sprintf("flow-w%02d-%03d", w, i)))
		}
	}

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients*steps*10)
	for w := range clients {
		wg.Go(func() {
			for i := range steps {
				cases := plan[w][i]
				var err error
				switch (w + i) % 3 {
				case 0: // one request per action
					for _, c := range cases {
						var v Verdict
						if v, err = post[Verdict](client, ts.url+"/v1/evaluate", c.req); err == nil {
							record(c, v)
							err = check(c, v)
						}
						if err != nil {
							break
						}
					}
				case 1: // one batch
					err = runBatch(client, ts.url, cases, record, check)
				case 2: // a taint flow: observe a secret, then the session's mail is blocked
					err = flows[w][i].run(client, ts.url, record, check)
					if err == nil {
						mu.Lock()
						observed++
						mu.Unlock()
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	t.Logf("%d decisions and %d observations from %d clients in %v", len(answered), observed, clients, elapsed)

	_, metricsText, _ := ts.do(t, "GET", "/metrics", "", true)
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	checkAudit(t, ts.root, answered, observed)
	if want := fmt.Sprintf("parallax_decision_seconds_count %d\n", len(answered)); !strings.Contains(string(metricsText), want) {
		t.Errorf("metrics: want %q in\n%s", want, metricsText)
	}
}

// checkAudit: the chain verifies and holds exactly one decision entry per
// answered (session, hash), with the answered decision, and one
// IFCClassified entry per observation.
func checkAudit(t *testing.T, root string, answered map[string]string, observed int) {
	t.Helper()
	inAudit := map[string]string{}
	classified := 0
	for _, e := range auditEntries(t, root) {
		switch e.Type {
		case audit.ActionEvaluated, audit.ActionBlocked, audit.ActionEscalated:
			key := e.Session + "|" + e.ActionHash
			if _, dup := inAudit[key]; dup {
				t.Errorf("audit holds %s twice", key)
			}
			inAudit[key] = e.Decision
		case audit.IFCClassified:
			classified++
		}
	}
	if !maps.Equal(inAudit, answered) {
		missing := 0
		for k, d := range answered {
			if inAudit[k] != d {
				missing++
			}
		}
		t.Errorf("audit and responses differ: %d responses, %d audit entries, %d answered decisions not in the audit as answered",
			len(answered), len(inAudit), missing)
	}
	if classified != observed {
		t.Errorf("IFCClassified entries: got %d, want %d", classified, observed)
	}
}

func runBatch(client *http.Client, url string, cases []loadCase, record func(loadCase, Verdict), check func(loadCase, Verdict) error) error {
	var batch BatchRequest
	for _, c := range cases {
		batch.Requests = append(batch.Requests, c.req)
	}
	resp, err := post[BatchResponse](client, url+"/v1/evaluate", batch)
	if err != nil {
		return err
	}
	if len(resp.Verdicts) != len(cases) {
		return fmt.Errorf("batch of %d: got %d verdicts", len(cases), len(resp.Verdicts))
	}
	for i, c := range cases {
		record(c, resp.Verdicts[i])
		if err := check(c, resp.Verdicts[i]); err != nil {
			return fmt.Errorf("batch item %d: %w", i, err)
		}
	}
	return nil
}

// taintFlow: a clean session may mail (ESCALATE: outbound mail needs
// review); after a secret is observed in it, its next mail is a BLOCK by
// information flow.
type taintFlow struct {
	before, after loadCase
	observe       ObserveRequest
}

func newTaintFlow(t *testing.T, session string) taintFlow {
	mail := func(body string) json.RawMessage {
		return payload("to", "ops@example.com", "subject", session, "body", body)
	}
	first, second := mail("first report of "+session), mail("second report of "+session)
	return taintFlow{
		before: loadCase{req: EvaluateRequest{ID: session + "-before", Session: session, Type: "send_email", Payload: first},
			want: verdict.Escalate, hash: expectedHash(t, "send_email", first)},
		after: loadCase{req: EvaluateRequest{ID: session + "-after", Session: session, Type: "send_email", Payload: second},
			want: verdict.Block, hash: expectedHash(t, "send_email", second)},
		observe: ObserveRequest{Session: session, Type: "read_file", Payload: payload("path", "/srv/app/"+session+".ini"),
			Result: loadSecret},
	}
}

func (f taintFlow) run(client *http.Client, url string, record func(loadCase, Verdict), check func(loadCase, Verdict) error) error {
	v, err := post[Verdict](client, url+"/v1/evaluate", f.before.req)
	if err != nil {
		return err
	}
	record(f.before, v)
	if err := check(f.before, v); err != nil {
		return err
	}
	if _, err := post[struct{}](client, url+"/v1/observe", f.observe); err != nil {
		return fmt.Errorf("observe %s: %w", f.observe.Session, err)
	}
	if v, err = post[Verdict](client, url+"/v1/evaluate", f.after.req); err != nil {
		return err
	}
	record(f.after, v)
	if err := check(f.after, v); err != nil {
		return err
	}
	if v.Stage != verdict.StageIFC {
		return fmt.Errorf("%s: got stage %s (%s), want ifc", f.after.req.ID, v.Stage, v.Reason)
	}
	return nil
}

// post sends v as JSON with the test token and decodes a 200 (or accepts
// a 204 with no body).
func post[T any](client *http.Client, url string, v any) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return out, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return out, err
	}
	switch resp.StatusCode {
	case http.StatusNoContent:
		return out, nil
	case http.StatusOK:
		return out, json.Unmarshal(body, &out)
	}
	return out, fmt.Errorf("POST %s: status %d: %s", url, resp.StatusCode, body)
}
