package agent

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kashi/api"
)

// What a task tells the agent about its progress, as lines on stdout or in the file named by
// KASHI_OUTPUT_FILE (the latest line wins):
//
//	KASHI_OUTPUT <n> <unit>                the output so far, e.g. "KASHI_OUTPUT 12000 samples"
//	KASHI_CHECKPOINT [<where>] [<time>]    a checkpoint was written, to <where> (a path or URI
//	                                       without spaces), at <time> (RFC 3339) or when seen
//
// A rerun of the task (its node lost) is told the last checkpoint's <where> in
// KASHI_RESUME_FROM (its time when it named no place).
const (
	outputPrefix     = "KASHI_OUTPUT "
	checkpointPrefix = "KASHI_CHECKPOINT"
	// maxLineBytes bounds a log line the agent looks at; longer ones are skipped.
	maxLineBytes = 64 << 10
)

// taskOutput is a task's reported progress: its output, and its last checkpoint's time and
// place ("" when it named none).
type taskOutput struct {
	Units           int64
	Unit            string
	Checkpoint      time.Time
	CheckpointPlace string
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
		if err != nil || n < 0 || n > api.MaxOutputUnits {
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
	f := strings.Fields(rest)
	at, where := now, ""
	if len(f) > 0 {
		if t, err := time.Parse(time.RFC3339, f[len(f)-1]); err == nil {
			at, f = t, f[:len(f)-1]
		}
	}
	switch {
	case len(f) > 1 || len(f) == 1 && !placeOK(f[0]):
		return false // not a place the server takes: the line is not a checkpoint
	case len(f) == 1:
		where = f[0]
	}
	o.Checkpoint, o.CheckpointPlace = at, where
	return true
}

// placeOK reports whether the server takes where as a checkpoint's place: UTF-8 of at most
// 1,024 bytes, without control characters (spaces are already gone).
func placeOK(where string) bool {
	return len(where) <= 1024 && utf8.ValidString(where) &&
		!strings.ContainsFunc(where, func(r rune) bool { return r < ' ' || r == 0x7f })
}

// OutputSource is a Process whose log and output file the agent follows: their progress
// lines are reported, and the log's new lines are shipped to the server for the task's live
// tail. A Runner's processes may implement it (the supervised runner's do; so do the
// simulated GPU backend's, which write progress lines as a task would).
type OutputSource interface {
	// OutputPaths returns the task's log and the file in its KASHI_OUTPUT_FILE; either may
	// be "" or not exist yet.
	OutputPaths() (log, file string)
}

// outputTracker follows a task's log from where it last read, and its output file. It keeps
// the log's new lines, the last api.MaxLogTailBytes of them, for the server's live tail.
type outputTracker struct {
	logPath, filePath string
	offset            int64
	out               taskOutput
	// tail holds new log lines not yet shipped; they start at byte tailOffset of the log.
	tail       []byte
	tailOffset int64
}

// poll reads what the log gained and the output file, and reports whether the progress
// changed. Errors (a log not yet written) leave the progress as it was. Both files are the
// task's, so they are read only as plain files (openTaskFile), and of the output file only
// its last maxLineBytes, where its latest line is.
func (t *outputTracker) poll(now time.Time) bool {
	before := t.out
	if f, err := openTaskFile(t.logPath, os.O_RDONLY); err == nil {
		if _, err := f.Seek(t.offset, io.SeekStart); err == nil {
			scanLines(f, func(line []byte, size int64) {
				t.keep(line, size)
				t.out.apply(string(line), now)
			})
		}
		f.Close()
	}
	if f, err := openTaskFile(t.filePath, os.O_RDONLY); err == nil {
		if end, err := f.Seek(0, io.SeekEnd); err == nil {
			b := make([]byte, min(end, maxLineBytes))
			n, _ := f.ReadAt(b, end-int64(len(b)))
			if end > int64(len(b)) { // a partial first line
				_, b, _ = bytes.Cut(b[:n], []byte{'\n'})
				n = len(b)
			}
			scanLines(bytes.NewReader(b[:n]), func(line []byte, _ int64) { t.out.apply(string(line), now) })
		}
		f.Close()
	}
	return t.out != before
}

// keep adds a line of size bytes in the log (line may be shortened) to the unshipped tail,
// dropping the oldest lines past api.MaxLogTailBytes.
func (t *outputTracker) keep(line []byte, size int64) {
	if len(t.tail) == 0 {
		t.tailOffset = t.offset
	}
	t.offset += size // a shortened line leaves the server a gap, which it marks
	t.tail = append(t.tail, line...)
	for len(t.tail) > api.MaxLogTailBytes {
		cut := len(t.tail) - api.MaxLogTailBytes
		if i := bytes.IndexByte(t.tail[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		t.tail = t.tail[cut:]
		t.tailOffset += int64(cut)
	}
}

// takeLog returns the unshipped tail as a piece of task id's log, and forgets it; ok is false
// when there is nothing new. Bytes that are not UTF-8 become '?', one for one, so that the
// piece's length still counts bytes of the file.
func (t *outputTracker) takeLog(id int64) (api.TaskLog, bool) {
	if len(t.tail) == 0 {
		return api.TaskLog{}, false
	}
	text := make([]byte, 0, len(t.tail))
	for b := t.tail; len(b) > 0; {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			text = append(text, '?')
			n = 1
		} else {
			text = append(text, b[:n]...)
		}
		b = b[n:]
	}
	piece := api.TaskLog{TaskID: id, Offset: t.tailOffset, Text: string(text)}
	t.tail = nil
	return piece, true
}

// scanLines calls fn on each complete line of r with its size in bytes; a line longer than
// maxLineBytes comes shortened (ending in a newline). A last line without its newline is
// left for the next read.
func scanLines(r io.Reader, fn func(line []byte, size int64)) {
	br := bufio.NewReaderSize(r, maxLineBytes)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			head := append([]byte(nil), line...)
			size := int64(len(line))
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				size += int64(len(line))
			}
			if err != nil {
				return // the long line is not complete yet
			}
			fn(append(head[:maxLineBytes-1], '\n'), size)
			continue
		}
		if err != nil {
			return
		}
		fn(line, int64(len(line)))
	}
}
