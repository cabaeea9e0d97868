package heuristic

import (
	"testing"

	"github.com/parallax/parallax/action"
)

// TestPathEntropyLookalikes measures randomSegment and the host tables on
// path segments of ordinary URLs and on random data in a path.
func TestPathEntropyLookalikes(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://cdn.example.com/dist/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.js", false},
		{"https://example.com/gh/3b18e512dba79e4c8300dd08aeb37f8e728b8dad/README.md", false},
		{"https://api.example.com/v1/orders/3f2a9c1e-7b4d-4e2a-9c1f-2b3d4e5f6a7b", false},
		{"https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit", false},
		{"https://www.example.com/landing?gclid=EAIaIQobChMI8fL2pZr7gQMVxJ1oCR0kVgmhEAAYASAAEgJ2WfD_BwE", false},
		{"https://blog.example.com/2024/03/how-we-cut-our-build-times-in-half-with-remote-caching", false},
		{"https://my-bucket.s3.amazonaws.com/Xk9fQ2mR7vLpZ3wT8nB4cY1hJ6sD0aGeKu5tWq", false},
		{"https://example.com/static/js/main.4f3c2a1b.chunk.js", false},
		{"https://pkg.example.com/v2/library/alpine/blobs/sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b", false},
		{"https://collect.evil.example/u/Xk9fQ2mR7vLpZ3wT8nB4cY1hJ6sD0aGeKu5tWq", true},
		{"https://collect.evil.example/x/4Hq2-vN8_kLm3Pz7QwX1yT5rB9sD6fG0aJcE2uI8oKw", true},
	}
	for _, tt := range tests {
		in := &Input{Action: &action.Action{Type: action.HTTPRequest, Payload: &action.HTTPRequestPayload{Method: "GET", URL: tt.url}}}
		if _, got := matchPathEntropy(in); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.url, got, tt.want)
		}
	}
}
