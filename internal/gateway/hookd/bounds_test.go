package hookd

import (
	"errors"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
)

// TestRouteRefusesDeepInput: the client does not decode input nested
// past the bound to find its cwd (nor forward it): Run decides it in
// process, where it is refused and audited.
func TestRouteRefusesDeepInput(t *testing.T) {
	in := []byte(`{"cwd":"/tmp","tool_input":{"x":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`)
	if _, _, _, err := route(Options{}, in); !errors.Is(err, action.ErrTooDeep) {
		t.Fatalf("got %v, want ErrTooDeep", err)
	}
}
