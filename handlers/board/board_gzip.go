package board

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// The board compresses its own answers (web's compress middleware leaves GET / alone): a
// shared render is compressed once, when it is made, and every viewer it serves gets those
// bytes. Compressing the same megabyte again for each viewer's poll was 8 % of the server's
// CPU at 50 viewers on 32,768 cards (BENCHMARKS.md). A whole page is the layout written for
// its viewer around the shared render: the layout's parts are compressed for the request and
// joined with the render's compressed bytes into one gzip stream.

// gzipPart is data compressed as one part of a deflate stream that other parts may come
// before and after: it starts afresh (no reference reaches before it) and ends with a sync
// flush (byte-aligned, no final block).
type gzipPart struct {
	plain    []byte
	deflated []byte
}

// deflatePart compresses data as a part.
func deflatePart(data []byte) (gzipPart, error) {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		return gzipPart{}, err
	}
	if _, err := w.Write(data); err != nil {
		return gzipPart{}, err
	}
	if err := w.Flush(); err != nil {
		return gzipPart{}, err
	}
	return gzipPart{plain: data, deflated: buf.Bytes()}, nil
}

// gzipHeader is a gzip member's header: deflate, no name or time, unknown system.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// finalBlock is an empty final deflate block (fixed codes: the end-of-block code alone).
var finalBlock = []byte{0x03, 0x00}

// writeGzip writes parts, in order, as one gzip member.
func writeGzip(w io.Writer, parts ...gzipPart) error {
	var crc uint32
	var size uint32
	for _, p := range parts {
		crc = crc32.Update(crc, crc32.IEEETable, p.plain)
		size += uint32(len(p.plain)) // the size modulo 2^32, as gzip records it
	}
	out := [][]byte{gzipHeader}
	for _, p := range parts {
		out = append(out, p.deflated)
	}
	out = append(out, finalBlock, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, crc), size))
	for _, b := range out {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// answer writes the board's answer, the shared render between before and after (the
// layout's parts, empty for a fragment): gzipped when the client accepts it.
func answer(c echo.Context, render gzipPart, before, after []byte) error {
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	if !strings.Contains(c.Request().Header.Get(echo.HeaderAcceptEncoding), "gzip") {
		res.WriteHeader(http.StatusOK)
		for _, b := range [][]byte{before, render.plain, after} {
			if _, err := res.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	parts := []gzipPart{render}
	if len(before)+len(after) > 0 {
		b, err := deflatePart(before)
		if err != nil {
			return err
		}
		a, err := deflatePart(after)
		if err != nil {
			return err
		}
		parts = []gzipPart{b, render, a}
	}
	res.Header().Set(echo.HeaderContentEncoding, "gzip")
	res.WriteHeader(http.StatusOK)
	return writeGzip(res, parts...)
}
