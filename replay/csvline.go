package replay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxLine is the longest line a trace may have; a longer data row is skipped (SkipLongLine)
// without being held in memory, a longer header is an error.
const MaxLine = 64 << 10

// errLongLine reports a line over MaxLine; the rest of it has been read and dropped.
var errLongLine = errors.New("line too long")

// lineReader reads a trace line by line in bounded memory.
type lineReader struct {
	br   *bufio.Reader
	line int // number of the last line read, 1-based
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, MaxLine)}
}

// next returns the next line without its line ending; the slice is valid until the next
// call. It returns io.EOF after the last line, errLongLine for a line over MaxLine.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.br.ReadSlice('\n')
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.line++
	if err == bufio.ErrBufferFull {
		for err == bufio.ErrBufferFull {
			_, err = lr.br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		return nil, errLongLine
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// splitCSV splits one CSV line into fields, appending them to dst: fields are separated by
// commas; a field that starts with a double quote runs to the closing quote, with "" for a
// quote inside (RFC 4180, without line breaks inside fields). ok is false for a quote left
// open or text after a closing quote.
func splitCSV(dst [][]byte, line []byte) (fields [][]byte, ok bool) {
	for {
		if len(line) > 0 && line[0] == '"' {
			var f []byte
			i := 1
			for {
				j := bytes.IndexByte(line[i:], '"')
				if j < 0 {
					return dst, false
				}
				f = append(f, line[i:i+j]...)
				i += j + 1
				if i < len(line) && line[i] == '"' {
					f = append(f, '"')
					i++
					continue
				}
				break
			}
			dst = append(dst, f)
			line = line[i:]
			if len(line) == 0 {
				return dst, true
			}
			if line[0] != ',' {
				return dst, false
			}
			line = line[1:]
			continue
		}
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return append(dst, line), true
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}
