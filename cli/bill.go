package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
)

// monthRE is a billing month, yyyy-mm.
var monthRE = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)

// runBill downloads a project's monthly bill as the API serves it, byte for byte (--lines:
// the CSV of its task lines only, safe to add up).
func runBill(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "bill")
	var format, file string
	var lines bool
	f.StringVar(&format, "format", "csv", "csv, xlsx or json")
	f.BoolVar(&lines, "lines", false, "the task lines only (with csv): every row a line, safe to sum")
	f.StringVar(&file, "o", "", "write to FILE (default standard output; required for xlsx)")
	if err := f.parse(args, 2, 2); err != nil {
		return err
	}
	project, month := f.pos[0], f.pos[1]
	switch {
	case !monthRE.MatchString(month):
		return exitf(ExitUsage, "bill: month %q must be yyyy-mm", month)
	case format != "csv" && format != "xlsx" && format != "json":
		return exitf(ExitUsage, "bill: --format must be csv, xlsx or json, not %q", format)
	case format == "xlsx" && (file == "" || file == "-"):
		return exitf(ExitUsage, "bill: an xlsx bill needs -o FILE")
	case lines && format != "csv":
		return exitf(ExitUsage, "bill: --lines is for --format csv")
	}
	q := url.Values{"format": {format}}
	if lines {
		q.Set("rows", "lines")
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	b, _, err := c.send(ctx, http.MethodGet, "/api/v1/bills/"+url.PathEscape(project)+"/"+month,
		q, nil, nil)
	if err != nil {
		return err
	}
	if file == "" || file == "-" {
		_, err := e.Stdout.Write(b)
		return err
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "bill of %s for %s written to %s (%d bytes)\n", project, month, file, len(b))
	return nil
}
