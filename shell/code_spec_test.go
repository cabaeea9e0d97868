package shell

import (
	"sort"
	"strings"

	"github.com/parallax/parallax/action"
)

// codeSpec renders what a command does, for the inline-code cases:
// paths as ACCESS[*]:PATH (access letters r, w, d; * for a pattern),
// destinations as host[:port] ("?" for an unknown host, "L" before a
// listening one), nested programs as x:NAME, flows as f:KIND:SOURCE,
// printed variables as p:NAME, and the tags, each list sorted.
func codeSpec(e *Effects) string {
	var out []string
	for _, u := range e.Paths {
		acc := ""
		for _, a := range []struct {
			bit action.Access
			c   string
		}{{action.AccessRead, "r"}, {action.AccessWrite, "w"}, {action.AccessDelete, "d"}} {
			if u.Access&a.bit != 0 {
				acc += a.c
			}
		}
		if u.Glob {
			acc += "*"
		}
		out = append(out, acc+":"+u.Path)
	}
	for _, n := range e.Network {
		h := n.Host
		if h == "" {
			h = "?"
		}
		if n.Port != "" {
			h += ":" + n.Port
		}
		if n.Listen {
			h = "L" + h
		}
		out = append(out, "n:"+h)
	}
	for _, x := range e.Execs {
		if x.Depth > 0 {
			out = append(out, "x:"+x.Name)
		}
	}
	for _, f := range e.Flows {
		out = append(out, "f:"+sourceNames[f.Kind%4]+":"+f.Source)
	}
	for _, p := range e.Printed {
		out = append(out, "p:"+p)
	}
	if e.EnvDump {
		out = append(out, "envdump")
	}
	for _, t := range e.Tags {
		out = append(out, "t:"+t.Kind.String())
	}
	sort.Strings(out)
	return strings.Join(dedup(out), " ")
}

func dedup(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
