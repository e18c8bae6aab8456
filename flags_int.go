package main

import (
	"fmt"
	"strconv"
)

// Int defines an integer flag whose default may come from KASHI_<NAME>.
func (f *flags) Int(p *int, name string, def int, help string) {
	if v, ok := f.env(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a whole number", envName(name), v))
		}
		def = n
	}
	f.fs.IntVar(p, name, def, help+" ("+envName(name)+")")
}

// Int64 registers a 64-bit integer flag whose default may come from KASHI_<NAME>.
func (f *flags) Int64(p *int64, name string, def int64, help string) {
	if v, ok := f.env(name); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a whole number", envName(name), v))
		}
		def = n
	}
	f.fs.Int64Var(p, name, def, help+" ("+envName(name)+")")
}
