// Package static holds the files the browser loads — vendored htmx, the stylesheet and
// Kashi's own script — embedded into the binary, and the content-hashed URLs pages use to
// reference them.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

// FS holds the static files, served under /static/.
//
//go:embed htmx.min.js htmx.LICENSE kashi.css kashi.js
var FS embed.FS

// paths maps a file name to its content-hashed URL; built once at init.
var paths = func() map[string]string {
	m := make(map[string]string)
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		panic("static: " + err.Error())
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := FS.ReadFile(e.Name())
		if err != nil {
			panic("static: " + err.Error())
		}
		sum := sha256.Sum256(b)
		m[e.Name()] = "/static/" + e.Name() + "?v=" + hex.EncodeToString(sum[:])[:10]
	}
	return m
}()

// Path returns the URL of the embedded file name with a content hash, such as
// "/static/kashi.css?v=0123456789", so browsers may cache it for good. It panics when name is
// not embedded: names are constants in templates, and the views tests render every page and
// check every name they use, so a typo fails a test rather than a user.
func Path(name string) string {
	p, ok := paths[name]
	if !ok {
		panic("static: no embedded file " + name)
	}
	return p
}
