package runfile

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkBuildFileReading is the cost of reading a write of a Gradle
// script, a justfile and a requirements.txt of 64 KiB and of 256 KiB (it
// grows linearly):
// go test ./runfile -run '^$' -bench BuildFileReading
func BenchmarkBuildFileReading(b *testing.B) {
	files := map[string]string{
		"build.gradle":     "task t(type: Exec) {\n    commandLine 'git', 'rev-parse', 'HEAD'\n}\n",
		"justfile":         "r:\n    go test ./...\n    go vet ./...\n",
		"requirements.txt": "requests==2.32.3\nflask>=3.0\n",
	}
	for _, kb := range []int{64, 256} {
		for name, unit := range files {
			content := strings.Repeat(unit, kb<<10/len(unit))
			b.Run(fmt.Sprintf("%s/KiB=%d", name, kb), func(b *testing.B) {
				b.SetBytes(int64(len(content)))
				for b.Loop() {
					if name == "requirements.txt" {
						Sources(ws+"/"+name, content, ws)
					} else {
						FileUnits(ws+"/"+name, content)
					}
				}
			})
		}
	}
}
