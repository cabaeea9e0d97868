package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parallax/parallax/verdict"
)

// latencyBuckets are the upper bounds (seconds) of both latency
// histograms: the gate decides in tens of microseconds, an audited
// decision waits for an fsync (milliseconds).
var latencyBuckets = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// histogram is a fixed-bucket latency histogram, safe for concurrent use.
type histogram struct {
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sumNS  atomic.Int64
	count  atomic.Uint64
}

func newHistogram() *histogram {
	return &histogram{counts: make([]atomic.Uint64, len(latencyBuckets)+1)}
}

func (h *histogram) observe(d time.Duration) {
	if d < 0 {
		d = 0
	}
	s := d.Seconds()
	i, _ := slices.BinarySearch(latencyBuckets, s)
	h.counts[i].Add(1)
	h.sumNS.Add(d.Nanoseconds())
	h.count.Add(1)
}

// write prints the histogram's series with the given labels ("" or
// `route="x"`).
func (h *histogram) write(w io.Writer, name, labels string) {
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum uint64
	for i, ub := range latencyBuckets {
		cum += h.counts[i].Load()
		fmt.Fprintf(w, "%s_bucket{%s%sle=%q} %d\n", name, labels, sep, strconv.FormatFloat(ub, 'g', -1, 64), cum)
	}
	cum += h.counts[len(latencyBuckets)].Load()
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	braces := ""
	if labels != "" {
		braces = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", name, braces, strconv.FormatFloat(float64(h.sumNS.Load())/1e9, 'g', -1, 64))
	fmt.Fprintf(w, "%s_count%s %d\n", name, braces, h.count.Load())
}

// metrics is the server's Prometheus registry, written by hand: a few
// counters, a gauge and two histograms need no dependency.
type metrics struct {
	mu        sync.Mutex
	decisions map[[2]string]uint64 // stage, decision
	requests  map[[2]string]uint64 // route, code
	observed  map[string]uint64    // outcome: ok, error
	reqTime   map[string]*histogram
	decTime   *histogram
	inFlight  atomic.Int64
}

func newMetrics() *metrics {
	return &metrics{decisions: map[[2]string]uint64{}, requests: map[[2]string]uint64{},
		observed: map[string]uint64{}, reqTime: map[string]*histogram{}, decTime: newHistogram()}
}

func (m *metrics) decision(v verdict.Verdict) {
	m.decTime.observe(time.Duration(v.NS))
	m.mu.Lock()
	m.decisions[[2]string{string(v.Stage), v.Decision.String()}]++
	m.mu.Unlock()
}

func (m *metrics) observation(ok bool) {
	outcome := "ok"
	if !ok {
		outcome = "error"
	}
	m.mu.Lock()
	m.observed[outcome]++
	m.mu.Unlock()
}

func (m *metrics) request(route string, code int, d time.Duration) {
	m.mu.Lock()
	m.requests[[2]string{route, strconv.Itoa(code)}]++
	h := m.reqTime[route]
	if h == nil {
		h = newHistogram()
		m.reqTime[route] = h
	}
	m.mu.Unlock()
	h.observe(d)
}

// write writes the Prometheus text exposition format (version 0.0.4),
// series sorted so that two scrapes compare line by line.
func (m *metrics) write(out io.Writer) error {
	w := bufio.NewWriter(out)
	m.mu.Lock()
	decisions := sortedPairs(m.decisions)
	requests := sortedPairs(m.requests)
	observed := make([][2]string, 0, len(m.observed))
	for k, n := range m.observed {
		observed = append(observed, [2]string{k, strconv.FormatUint(n, 10)})
	}
	routes := make([]string, 0, len(m.reqTime))
	for r := range m.reqTime {
		routes = append(routes, r)
	}
	m.mu.Unlock()
	slices.SortFunc(observed, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	slices.Sort(routes)

	header(w, "parallax_decisions_total", "counter", "Verdicts by the stage that decided and the decision.")
	for _, p := range decisions {
		fmt.Fprintf(w, "parallax_decisions_total{stage=%s,decision=%s} %d\n", label(p.k[0]), label(p.k[1]), p.n)
	}
	header(w, "parallax_decision_seconds", "histogram", "Time the gate took per decision, audit append included.")
	m.decTime.write(w, "parallax_decision_seconds", "")
	header(w, "parallax_observations_total", "counter", "Tool results reported to /v1/observe, by outcome.")
	for _, p := range observed {
		fmt.Fprintf(w, "parallax_observations_total{outcome=%s} %s\n", label(p[0]), p[1])
	}
	header(w, "parallax_http_requests_total", "counter", "HTTP requests by route and status code.")
	for _, p := range requests {
		fmt.Fprintf(w, "parallax_http_requests_total{route=%s,code=%s} %d\n", label(p.k[0]), label(p.k[1]), p.n)
	}
	header(w, "parallax_http_request_duration_seconds", "histogram", "HTTP request duration by route.")
	for _, r := range routes {
		m.mu.Lock()
		h := m.reqTime[r]
		m.mu.Unlock()
		h.write(w, "parallax_http_request_duration_seconds", "route="+label(r))
	}
	header(w, "parallax_http_in_flight", "gauge", "HTTP requests being served.")
	fmt.Fprintf(w, "parallax_http_in_flight %d\n", m.inFlight.Load())
	return w.Flush()
}

type pair struct {
	k [2]string
	n uint64
}

func sortedPairs(m map[[2]string]uint64) []pair {
	out := make([]pair, 0, len(m))
	for k, n := range m {
		out = append(out, pair{k, n})
	}
	slices.SortFunc(out, func(a, b pair) int {
		if c := strings.Compare(a.k[0], b.k[0]); c != 0 {
			return c
		}
		return strings.Compare(a.k[1], b.k[1])
	})
	return out
}

func header(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// label quotes a label value as the exposition format wants: backslash,
// double quote and newline escaped.
func label(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
