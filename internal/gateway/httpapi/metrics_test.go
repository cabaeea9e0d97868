package httpapi

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/verdict"
)

func TestHistogramBuckets(t *testing.T) {
	h := newHistogram()
	for _, d := range []time.Duration{5 * time.Microsecond, 10 * time.Microsecond, 30 * time.Microsecond,
		3 * time.Millisecond, 20 * time.Second, -time.Second} {
		h.observe(d)
	}
	var sb strings.Builder
	h.write(&sb, "x", `route="r"`)
	text := sb.String()
	cases := []struct{ line string }{
		{`x_bucket{route="r",le="1e-05"} 3`}, // 5µs, 10µs (upper bound inclusive), -1s as 0
		{`x_bucket{route="r",le="2.5e-05"} 3`},
		{`x_bucket{route="r",le="5e-05"} 4`},
		{`x_bucket{route="r",le="0.005"} 5`},
		{`x_bucket{route="r",le="10"} 5`},
		{`x_bucket{route="r",le="+Inf"} 6`},
		{`x_count{route="r"} 6`},
		{`x_sum{route="r"} 20.003045`},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			if !strings.Contains(text, tc.line+"\n") {
				t.Errorf("got\n%s\nwant the line %s", text, tc.line)
			}
		})
	}
}

func TestMetricsExposition(t *testing.T) {
	m := newMetrics()
	m.decision(verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageGuard, NS: 1000})
	m.decision(verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StageFastPath, NS: 2000})
	m.decision(verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageGuard, NS: 3000})
	m.request("POST /v1/evaluate", 200, time.Millisecond)
	m.request("unmatched", 404, time.Millisecond)
	m.observation(true)
	m.observation(false)
	var sb strings.Builder
	if err := m.write(&sb); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"# TYPE parallax_decisions_total counter",
		`parallax_decisions_total{stage="fastpath",decision="ALLOW"} 1`,
		`parallax_decisions_total{stage="guard",decision="BLOCK"} 2`,
		"# TYPE parallax_decision_seconds histogram",
		"parallax_decision_seconds_count 3",
		`parallax_observations_total{outcome="error"} 1`,
		`parallax_observations_total{outcome="ok"} 1`,
		`parallax_http_requests_total{route="POST /v1/evaluate",code="200"} 1`,
		`parallax_http_requests_total{route="unmatched",code="404"} 1`,
		`parallax_http_request_duration_seconds_count{route="unmatched"} 1`,
		"# TYPE parallax_http_in_flight gauge",
		"parallax_http_in_flight 0",
	}
	text := sb.String()
	last := -1
	for _, w := range want {
		i := strings.Index(text, w+"\n")
		if i < 0 {
			t.Errorf("missing %q in\n%s", w, text)
			continue
		}
		if i < last {
			t.Errorf("%q is out of order", w)
		}
		last = i
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if _, err := strconv.ParseFloat(line[i+1:], 64); i < 0 || err != nil || !sampleName.MatchString(line[:i]) {
			t.Errorf("malformed sample line %q", line)
		}
	}
}

// sampleName is a metric name with optional labels, as the exposition
// format writes them.
var sampleName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})?$`)

func TestLabelEscaping(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `"a\\b"`},
		{"a\nb", `"a\nb"`},
	}
	for _, tc := range cases {
		if got := label(tc.in); got != tc.want {
			t.Errorf("label(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func BenchmarkMetricsDecision(b *testing.B) {
	m := newMetrics()
	v := verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StagePolicy, NS: 30000}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.decision(v)
		}
	})
}
