package shell

import (
	"strconv"
	"strings"
)

// String renders the effects as stable text, one fact per line (golden
// files, debugging).
func (e *Effects) String() string {
	var sb strings.Builder
	for _, x := range e.Execs {
		sb.WriteString("exec ")
		if x.Name == "" {
			sb.WriteString("<dynamic>")
		} else {
			sb.WriteString(x.Name)
		}
		if x.Path != "" {
			sb.WriteString(" path=" + x.Path)
		}
		if x.Depth > 0 {
			sb.WriteString(" depth=" + strconv.Itoa(x.Depth))
		}
		if len(x.Args) > 0 {
			sb.WriteString(" args=" + strconv.Quote(strings.Join(x.Args, " ")))
		}
		sb.WriteByte('\n')
	}
	for _, p := range e.Paths {
		sb.WriteString(p.Access.String() + " " + p.Path)
		if p.Creates {
			sb.WriteString(" tree")
		} else if p.Recursive {
			sb.WriteString(" recursive")
		} else if p.Glob {
			sb.WriteString(" glob")
		}
		if p.Mkdir {
			sb.WriteString(" mkdir")
		}
		if p.Split {
			sb.WriteString(" split")
		}
		if p.Program != "" {
			sb.WriteString(" by=" + p.Program)
		}
		sb.WriteByte('\n')
	}
	for _, n := range e.Network {
		sb.WriteString("net " + n.Program + " host=" + n.Host)
		if n.Port != "" {
			sb.WriteString(" port=" + n.Port)
		}
		if n.URL != "" {
			sb.WriteString(" url=" + n.URL)
		}
		if n.Listen {
			sb.WriteString(" listen")
		}
		if n.Upload {
			sb.WriteString(" upload")
		}
		sb.WriteByte('\n')
	}
	for _, f := range e.Flows {
		sb.WriteString("flow " + sourceNames[f.Kind%4] + ":" + f.Source + " -> " + f.Program)
		if f.Host != "" {
			sb.WriteString(" host=" + f.Host)
		}
		sb.WriteByte('\n')
	}
	for _, t := range e.Tags {
		sb.WriteString("tag " + t.Kind.String())
		if t.Program != "" {
			sb.WriteString(" by=" + t.Program)
		}
		if t.Detail != "" {
			sb.WriteString(" " + strconv.Quote(t.Detail))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

var sourceNames = [4]string{"file", "env", "command", "secret"}
