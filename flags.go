package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"kashi/cli"
)

// flags wraps a FlagSet so that every flag's default can come from KASHI_<NAME>, where NAME
// is the flag's name upper-cased with '-' as '_'.
type flags struct {
	fs     *flag.FlagSet
	name   string
	stderr io.Writer
	getenv func(string) string
	errs   []error
	// secrets are the secret flags' files, read by parse.
	secrets []*secretFile
}

func newFlags(name string, getenv func(string) string, stderr io.Writer) *flags {
	fs := flag.NewFlagSet("kashi "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &flags{fs: fs, name: name, stderr: stderr, getenv: getenv}
}

func envName(flag string) string {
	return "KASHI_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

func (f *flags) env(name string) (string, bool) {
	v := f.getenv(envName(name))
	return v, v != ""
}

// given reports whether flag name was set, on the command line or by its KASHI_ variable
// (after parse).
func (f *flags) given(name string) bool {
	_, set := f.env(name)
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// String defines a string flag whose default may come from KASHI_<NAME>.
func (f *flags) String(p *string, name, def, help string) {
	if v, ok := f.env(name); ok {
		def = v
	}
	f.fs.StringVar(p, name, def, help+" ("+envName(name)+")")
}

// Bool defines a boolean flag whose default may come from KASHI_<NAME>.
func (f *flags) Bool(p *bool, name string, def bool, help string) {
	if v, ok := f.env(name); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a boolean", envName(name), v))
		}
		def = b
	}
	f.fs.BoolVar(p, name, def, help+" ("+envName(name)+")")
}

// Duration defines a duration flag whose default may come from KASHI_<NAME>.
func (f *flags) Duration(p *time.Duration, name string, def time.Duration, help string) {
	if v, ok := f.env(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a duration", envName(name), v))
		}
		def = d
	}
	f.fs.DurationVar(p, name, def, help+" ("+envName(name)+")")
}

// Float defines a number flag whose default may come from KASHI_<NAME>.
func (f *flags) Float(p *float64, name string, def float64, help string) {
	if v, ok := f.env(name); ok {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a number", envName(name), v))
		}
		def = x
	}
	f.fs.Float64Var(p, name, def, help+" ("+envName(name)+")")
}

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

// Int64 defines a 64-bit integer flag whose default may come from KASHI_<NAME>.
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

// listFlag is a flag that may be repeated; its environment variable is comma-separated. The
// first use on the command line replaces the environment's list.
type listFlag struct {
	p       *[]string
	fromEnv bool
}

// String is the list, comma-separated.
func (l *listFlag) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

// Set adds v to the list.
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

// parse parses args, reads the secret flags' files, and reports the first bad environment
// value or flag.
// parse parses args: -h prints the flags and returns flag.ErrHelp (run exits 0); a flag,
// argument, KASHI_ variable or secret file it cannot take is a usage error (exit 2) of one
// line, not the whole flag list.
func (f *flags) parse(args []string) error {
	var out strings.Builder
	f.fs.SetOutput(&out)
	err := f.fs.Parse(args)
	f.fs.SetOutput(f.stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(f.stderr, out.String())
		return err
	case err != nil:
		return usageError(fmt.Errorf("%v (kashi %s -h lists the flags)", err, f.name))
	case f.fs.NArg() > 0:
		return usageError(fmt.Errorf("unexpected argument %q", f.fs.Arg(0)))
	case len(f.errs) > 0:
		return usageError(errors.Join(f.errs...))
	}
	var errs []error
	for _, s := range f.secrets {
		errs = append(errs, s.read())
	}
	return usageError(errors.Join(errs...))
}

// usageError makes err exit 2, as a usage error does (cli.ExitUsage); flag.ErrHelp and an
// error that already carries its exit code are left as they are.
func usageError(err error) error {
	var ee *cli.ExitError
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.As(err, &ee) {
		return err
	}
	return &cli.ExitError{Code: cli.ExitUsage, Err: err}
}

// maxSecretFile bounds what a secret flag's file may hold.
const maxSecretFile = 64 << 10

// secretFile is a secret flag and the file its value may be read from.
type secretFile struct {
	name string
	p    *string
	path string
}

// Secret defines a string flag holding a secret, and its twin --NAME-file (KASHI_NAME_FILE):
// a file whose content, less surrounding white space, is the value. A unit's environment
// file then names where the secret is instead of holding it, and it is never on a command
// line. Giving both is an error.
func (f *flags) Secret(p *string, name, help string) {
	f.String(p, name, "", help)
	s := &secretFile{name: name, p: p}
	f.String(&s.path, name+"-file", "", "a file holding --"+name+", instead of it")
	f.secrets = append(f.secrets, s)
}

// read sets the secret from its file, if one was given.
func (s *secretFile) read() error {
	if s.path == "" {
		return nil
	}
	if *s.p != "" {
		return fmt.Errorf("--%s and --%s-file are both given: keep the file", s.name, s.name)
	}
	file, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("--%s-file: %w", s.name, err)
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, maxSecretFile+1))
	if err == nil && len(b) > maxSecretFile {
		err = fmt.Errorf("%s holds more than %d bytes", s.path, maxSecretFile)
	}
	if err != nil {
		return fmt.Errorf("--%s-file: %w", s.name, err)
	}
	if *s.p = strings.TrimSpace(string(b)); *s.p == "" {
		return fmt.Errorf("--%s-file: %s is empty", s.name, s.path)
	}
	return nil
}

// positive checks that each named duration is above zero.
func positive(ds map[string]time.Duration) error {
	for name, d := range ds {
		if d <= 0 {
			return fmt.Errorf("--%s must be positive, got %s", name, d)
		}
	}
	return nil
}
