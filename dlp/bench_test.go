package dlp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// mixedText builds n bytes of what tool results look like: access and
// application logs, JSON, Go and Python code, YAML and env files, mail
// headers and prose, with a secret or a personal identifier in about one
// line of fifty. The seed makes it the same text every run.
func mixedText(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.Grow(n + 512)
	for b.Len() < n {
		k := r.IntN(len(mixedLines))
		line := mixedLines[k](r)
		if r.IntN(50) == 0 {
			line += " " + mixedFindings[r.IntN(len(mixedFindings))]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()[:n]
}

var mixedLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string {
		return fmt.Sprintf(`10.%d.%d.%d - - [12/Mar/2025:10:%02d:%02d +0000] "GET /api/v2/orders/%d?page=%d HTTP/1.1" %d %d "-" "Mozilla/5.0 (X11; Linux x86_64)"`,
			r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(60), r.IntN(60), r.IntN(1e6), r.IntN(20), 200+r.IntN(4)*100, r.IntN(90000))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf(`{"level":"info","ts":"2025-03-12T10:%02d:%02d.%03dZ","msg":"request served","path":"/v1/users/%d","duration_ms":%d,"trace_id":"%016x%016x"}`,
			r.IntN(60), r.IntN(60), r.IntN(1000), r.IntN(1e5), r.IntN(900), r.Uint64(), r.Uint64())
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("func (s *Store) Get%d(ctx context.Context, id string) (*Record, error) { return s.db.QueryRowContext(ctx, q, id).Scan(&rec.ID, &rec.Name) }", r.IntN(100))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("    if err := validate(cfg.Timeout, %d); err != nil {\n        return fmt.Errorf(\"load config %%s: %%w\", path, err)\n    }", r.IntN(600))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("def handle_%d(request):\n    user = User.objects.get(pk=request.user.id)\n    return JsonResponse({'name': user.name, 'count': %d})", r.IntN(100), r.IntN(1000))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("  replicas: %d\n  image: registry.acme.io/web:1.%d.%d\n  resources:\n    limits: {cpu: 500m, memory: 512Mi}\n  env:\n    - name: LOG_LEVEL\n      value: debug", r.IntN(10), r.IntN(30), r.IntN(30))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("commit %016x%016x%08x\nAuthor: build bot <ci@build.internal>\nDate:   Wed Mar 12 10:%02d:00 2025 +0000\n\n    fix race in cache eviction (#%d)", r.Uint64(), r.Uint64(), r.Uint32(), r.IntN(60), r.IntN(9000))
	},
	func(r *rand.Rand) string {
		return "The migration rewrites every table in place, so plan a maintenance window; the tool prints progress every ten seconds and can be resumed after an interruption without losing work."
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("--- FAIL: TestEviction/%d (0.%02ds)\n    cache_test.go:%d: got %d entries, want %d", r.IntN(50), r.IntN(100), r.IntN(400), r.IntN(100), r.IntN(100))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("drwxr-xr-x  %d dev dev  4096 Mar 12 10:%02d src\n-rw-r--r--  1 dev dev %6d Mar 12 10:%02d go.sum", r.IntN(9), r.IntN(60), r.IntN(99999), r.IntN(60))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("| %-12s | %8d | %6.2f%% | %s |", "service-"+fmt.Sprint(r.IntN(40)), r.IntN(1e6), r.Float64()*100, "ok")
	},
}

// mixedFindings are fake secrets and identifiers sprinkled into the mix.
var mixedFindings = []string{
	"AWS_ACCESS_KEY_ID=AKIAUJZDEGXDNCF32EPF",
	"token=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH",
	"contact jane.doe@acme-corp.com",
	"DATABASE_URL=postgres://app:Wq7vR2pL9xM4@db.internal:5432/app",
	"card 4787 7893 2879 2170",
	"SSN 536-22-8174",
	"Authorization: Bearer 7eNWVQ4vnakJkS1pAWTN3lg8zV5yPU8d0FZfWe7i",
	"CONFIDENTIAL",
}

func BenchmarkScan1MB(b *testing.B) {
	text := mixedText(1 << 20)
	d, err := New()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		d.Scan(text)
	}
}

func BenchmarkRedact1MB(b *testing.B) {
	text := mixedText(1 << 20)
	d, err := New()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		d.Redact(text)
	}
}

// BenchmarkScanSmall is a typical tool result (a few kB).
func BenchmarkScanSmall(b *testing.B) {
	text := mixedText(4 << 10)
	d, err := New()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		d.Scan(text)
	}
}
