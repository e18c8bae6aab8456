package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"kashi/api"
)

// field is one of squeue's --format codes: its header and its value for a task at now.
type field struct {
	head  string
	value func(now time.Time, t api.Task) string
}

// fields are the squeue --format codes kashi tasks knows (docs/slurm.md lists them).
var fields = map[byte]field{
	'i': {"JOBID", func(_ time.Time, t api.Task) string { return strconv.FormatInt(t.ID, 10) }},
	'j': {"NAME", func(_ time.Time, t api.Task) string { return orDash(t.Name) }},
	'u': {"USER", func(_ time.Time, t api.Task) string { return t.Owner }},
	'a': {"ACCOUNT", func(_ time.Time, t api.Task) string { return t.Project }},
	'P': {"PARTITION", func(_ time.Time, t api.Task) string { return t.Queue }},
	'Q': {"PRIORITY", func(_ time.Time, t api.Task) string { return t.Priority }},
	'T': {"STATE", func(_ time.Time, t api.Task) string { return string(t.State) }},
	't': {"ST", func(_ time.Time, t api.Task) string { return slurmCode(t.State) }},
	'M': {"TIME", elapsed},
	'l': {"TIME_LIMIT", func(_ time.Time, t api.Task) string { return limit(t) }},
	'D': {"NODES", func(_ time.Time, t api.Task) string { return strconv.Itoa(len(t.Nodes)) }},
	'N': {"NODELIST", func(_ time.Time, t api.Task) string { return nodeList(t) }},
	'b': {"GRES", func(_ time.Time, t api.Task) string { return gres(t) }},
	'r': {"REASON", func(_ time.Time, t api.Task) string { return orDash(t.Reason) }},
	'V': {"SUBMIT_TIME", func(_ time.Time, t api.Task) string { return stamp(&t.SubmittedAt) }},
	'S': {"START_TIME", func(_ time.Time, t api.Task) string { return stamp(t.StartedAt) }},
	'e': {"END_TIME", func(_ time.Time, t api.Task) string { return stamp(t.EndedAt) }},
}

// cell is a piece of a --format: literal text, or a field with its width (right-justified
// with ".", as squeue's "%.10i").
type cell struct {
	text  string
	f     *field
	width int
	right bool
}

// parseFormat reads a squeue --format such as "%.8i %.9P %.20j %.8u %.2t %.10M %.6D %R".
func parseFormat(v string) ([]cell, error) {
	var out []cell
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			j := strings.IndexByte(v[i:], '%')
			if j < 0 {
				j = len(v) - i
			}
			out = append(out, cell{text: v[i : i+j]})
			i += j - 1
			continue
		}
		c := cell{}
		i++
		if i < len(v) && v[i] == '.' {
			c.right = true
			i++
		}
		start := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		c.width, _ = strconv.Atoi(v[start:i])
		if i >= len(v) {
			return nil, fmt.Errorf("%q ends inside a field", v)
		}
		f, ok := fields[v[i]]
		if v[i] == 'R' { // squeue's %R: the reason a task waits, else its nodes
			f = field{"NODELIST(REASON)", func(_ time.Time, t api.Task) string {
				if len(t.Nodes) > 0 {
					return nodeList(t)
				}
				return "(" + orDash(t.Reason) + ")"
			}}
			ok = true
		}
		if !ok {
			return nil, fmt.Errorf("unknown field %%%c in %q (kashi tasks knows %%i %%j %%u %%a %%P %%Q %%T %%t %%M %%l %%D %%N %%R %%b %%r %%V %%S %%e)", v[i], v)
		}
		c.f = &f
		out = append(out, c)
	}
	return out, nil
}

// writeFormat prints tasks in the cells' layout, under a header unless noHeader.
func writeFormat(w io.Writer, cells []cell, ts []api.Task, now time.Time, noHeader bool) {
	line := func(value func(f *field) string) {
		var b strings.Builder
		for _, c := range cells {
			if c.f == nil {
				b.WriteString(c.text)
				continue
			}
			v := value(c.f)
			if c.width > 0 && len(v) > c.width {
				v = v[:c.width]
			}
			if c.right {
				fmt.Fprintf(&b, "%*s", c.width, v)
			} else {
				fmt.Fprintf(&b, "%-*s", c.width, v)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	if !noHeader {
		line(func(f *field) string { return f.head })
	}
	for _, t := range ts {
		line(func(f *field) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(f.value(now, t)) })
	}
}

// nodeList is the task's nodes, comma-separated, "-" before it is placed.
func nodeList(t api.Task) string { return orDash(strings.Join(t.Nodes, ",")) }

// limit is the task's runtime limit as Slurm writes it, UNLIMITED for none.
func limit(t api.Task) string {
	if t.MaxRuntimeS <= 0 {
		return "UNLIMITED"
	}
	return clock(time.Duration(t.MaxRuntimeS) * time.Second)
}

// gres is the task's cards as Slurm writes generic resources: gpu:SPEC:N.
func gres(t api.Task) string {
	if t.Spec == "" {
		return "gpu:" + strconv.Itoa(t.GPUs)
	}
	return "gpu:" + t.Spec + ":" + strconv.Itoa(t.GPUs)
}
