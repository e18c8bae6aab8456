package replay

import (
	"bufio"
	"io"
	"strconv"
)

// WriteJobs writes one line per replayed job (a pipeline's skipped jobs have none), in
// trace order (submit, row; a pipeline's job's submit_ts is when its parents let it in), after the
// header job_id,submit_ts,start_ts,end_ts,gpus,nodes; nodes lists the node ids it ran on,
// separated by ';'. Times are on the trace's clock.
func (r *Result) WriteJobs(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("job_id,submit_ts,start_ts,end_ts,gpus,nodes\n")
	var b []byte
	for i := range r.jobs {
		j, run := &r.jobs[i], &r.runs[i]
		if !run.started {
			continue // skipped after its parent failed
		}
		b = appendCSVField(b[:0], j.ID)
		b = append(b, ',')
		b = strconv.AppendInt(b, j.Submit, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, run.start, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, run.end, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(j.GPUs), 10)
		b = append(b, ',')
		for k, n := range run.nodes {
			if k > 0 {
				b = append(b, ';')
			}
			b = strconv.AppendInt(b, n, 10)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendCSVField appends s, quoted when it holds a comma, quote or line break.
func appendCSVField(b []byte, s string) []byte {
	quote := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\n' || c == '\r' {
			quote = true
			break
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
