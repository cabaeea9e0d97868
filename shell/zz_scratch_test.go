package shell

import (
	"runtime"
	"time"
	"fmt"
	"os"
	"testing"
)

func TestZZEffects(t *testing.T) {
	c := os.Getenv("ZZC")
	if c == "" {
		t.Skip()
	}
	e := Analyze(c, Options{Cwd: "/home/dev/project", Home: "/home/dev"})
	for _, p := range e.Paths {
		fmt.Printf("path %+v\n", p)
	}
	for _, x := range e.Execs {
		fmt.Printf("exec %+v\n", x)
	}
	for _, x := range e.Tags {
		fmt.Printf("tag %+v\n", x)
	}
	for _, x := range e.Flows {
		fmt.Printf("flow %+v\n", x)
	}
}

func TestZZGlobReuse(t *testing.T) {
	if os.Getenv("ZZR") == "" {
		t.Skip()
	}
	data, _ := os.ReadFile("../../shared/corpora/nl2bash/all.cm")
	lines := splitL(string(data))
	seen := map[string]int{}
	total, globs, cmdsWithGlob := 0, 0, 0
	for _, l := range lines {
		e := Analyze("cd /home/dev/project && "+l, Options{Cwd: "/home/dev/project", Home: "/home/dev"})
		had := false
		for _, p := range e.Paths {
			total++
			if p.Glob {
				globs++
				seen[p.Path]++
				had = true
			}
		}
		if had {
			cmdsWithGlob++
		}
	}
	once := 0
	for _, n := range seen {
		if n == 1 {
			once++
		}
	}
	fmt.Println("paths", total, "globs", globs, "distinct", len(seen), "once", once, "cmds with glob", cmdsWithGlob)
}

func splitL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func TestZZTopReuse(t *testing.T) {
	if os.Getenv("ZZR") == "" {
		t.Skip()
	}
	data, _ := os.ReadFile("../../shared/corpora/nl2bash/all.cm")
	lines := splitL(string(data))
	top := map[string]bool{}
	td, _ := os.ReadFile("/tmp/zztail.txt")
	for _, l := range splitL(string(td)) {
		f := l
		for k := 0; k < 3; k++ {
			for i := 0; i < len(f); i++ {
				if f[i] == '\t' {
					f = f[i+1:]
					break
				}
			}
		}
		top[f] = true
	}
	seen := map[string]bool{}
	hit, miss, pathsTop, globTop := 0, 0, 0, 0
	for _, l := range lines {
		e := Analyze("cd /home/dev/project && "+l, Options{Cwd: "/home/dev/project", Home: "/home/dev"})
		for _, p := range e.Paths {
			if top[l] {
				pathsTop++
				if p.Glob {
					globTop++
					if seen[p.Path] {
						hit++
					} else {
						miss++
					}
				}
			}
			seen[p.Path] = true
		}
	}
	fmt.Println("top cmds", len(top), "paths", pathsTop, "globs", globTop, "seen before", hit, "new", miss)
}

func TestZZPoolCost(t *testing.T) {
	if os.Getenv("ZZP") == "" {
		t.Skip()
	}
	opt := Options{Cwd: "/home/dev/project", Home: "/home/dev"}
	for _, c := range []string{"ls -la", "chmod +x $(which go)", "find . -name '*.c' | xargs grep x"} {
		Analyze(c, opt)
		var warm, cold []time.Duration
		for k := 0; k < 5; k++ {
			s := time.Now()
			Analyze(c, opt)
			warm = append(warm, time.Since(s))
			runtime.GC()
			runtime.GC()
			s = time.Now()
			Analyze(c, opt)
			cold = append(cold, time.Since(s))
		}
		t.Logf("%s warm %v after-GC %v", c, warm, cold)
	}
}
