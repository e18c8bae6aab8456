package main

import "strings"

// listFlag is a flag that may be repeated; its environment variable is comma-separated. The
// first use on the command line replaces the environment's list.
type listFlag struct {
	p       *[]string
	fromEnv bool
}

func (l *listFlag) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

func (l *listFlag) Set(v string) error {
	if l.fromEnv {
		*l.p, l.fromEnv = nil, false
	}
	*l.p = append(*l.p, v)
	return nil
}

// List defines a repeatable string flag.
func (f *flags) List(p *[]string, name, help string) {
	l := &listFlag{p: p}
	if v, ok := f.env(name); ok {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*p = append(*p, s)
			}
		}
		l.fromEnv = true
	}
	f.fs.Var(l, name, help+" ("+envName(name)+", comma-separated)")
}
