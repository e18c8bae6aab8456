package agent

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// What a task tells the agent about its progress, as lines on stdout or in the file named by
// KASHI_OUTPUT_FILE (the latest line wins):
//
//	KASHI_OUTPUT <n> <unit>    the output so far, e.g. "KASHI_OUTPUT 12000 samples"
//	KASHI_CHECKPOINT [<time>]  a checkpoint was written, at <time> (RFC 3339) or when seen
const (
	outputPrefix     = "KASHI_OUTPUT "
	checkpointPrefix = "KASHI_CHECKPOINT"
	// maxLineBytes bounds a log line the agent looks at; longer ones are skipped.
	maxLineBytes = 64 << 10
)

// taskOutput is a task's reported progress.
type taskOutput struct {
	Units      int64
	Unit       string
	Checkpoint time.Time
}

// apply reads one line into o and reports whether it was a progress line.
func (o *taskOutput) apply(line string, now time.Time) bool {
	line = strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(line, outputPrefix); ok {
		f := strings.Fields(rest)
		if len(f) == 0 {
			return false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 {
			return false
		}
		o.Units, o.Unit = n, ""
		if len(f) > 1 {
			o.Unit = strings.Join(f[1:], " ")
		}
		return true
	}
	rest, ok := strings.CutPrefix(line, checkpointPrefix)
	if !ok || (rest != "" && rest[0] != ' ') {
		return false
	}
	o.Checkpoint = now
	if at, err := time.Parse(time.RFC3339, strings.TrimSpace(rest)); err == nil {
		o.Checkpoint = at
	}
	return true
}

// outputSource is a Process whose log and output file the agent can follow.
type outputSource interface {
	// outputPaths returns the task's log and the file in its KASHI_OUTPUT_FILE.
	outputPaths() (log, file string)
}

// outputTracker follows a task's log from where it last read, and its output file.
type outputTracker struct {
	logPath, filePath string
	offset            int64
	out               taskOutput
}

// poll reads what the log gained and the output file, and reports whether the progress
// changed. Errors (a log not yet written) leave the progress as it was.
func (t *outputTracker) poll(now time.Time) bool {
	before := t.out
	if f, err := os.Open(t.logPath); err == nil {
		if _, err := f.Seek(t.offset, io.SeekStart); err == nil {
			t.offset += scanLines(f, func(line string) { t.out.apply(line, now) })
		}
		f.Close()
	}
	if b, err := os.ReadFile(t.filePath); err == nil {
		scanLines(bytes.NewReader(b), func(line string) { t.out.apply(line, now) })
	}
	return t.out != before
}

// scanLines calls fn on each complete line of r and returns the bytes those lines took; a
// last line without its newline is left for the next read.
func scanLines(r io.Reader, fn func(string)) int64 {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // too long to be a progress line: skip it
			n += int64(len(line))
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				n += int64(len(line))
			}
			if err != nil {
				return n
			}
			continue
		}
		if err != nil {
			return n
		}
		n += int64(len(line))
		if len(line) < maxLineBytes {
			fn(string(line))
		}
	}
}
