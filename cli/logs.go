package cli

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"kashi/api"
)

// runLogs prints the end of a task's log as its node shipped it; -f keeps printing what
// arrives until the task has ended and its last lines are in.
func runLogs(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "logs")
	var follow bool
	f.BoolVar(&follow, "f", false, "follow: print new lines as they arrive, until the task ends")
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	id, err := taskID(f.pos[0])
	if err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var printed int64 = -1 // the log offset printed up to; -1 before the first fetch
	for {
		// Read the state first: once it has ended, the log fetched after holds its last lines.
		var t api.Task
		if follow {
			if err := c.get(ctx, "/api/v1/tasks/"+id, nil, &t); err != nil {
				return err
			}
		}
		text, end, err := fetchLog(ctx, c, id)
		if err != nil {
			return err
		}
		fmt.Fprint(e.Stdout, newText(text, end, printed))
		printed = end
		if !follow || t.State.Ended() {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(e.Poll):
		}
	}
}

// fetchLog returns the log tail of a task and the log offset just past it.
func fetchLog(ctx context.Context, c *Client, id string) (string, int64, error) {
	b, hdr, err := c.send(ctx, http.MethodGet, "/api/v1/tasks/"+id+"/log", nil, nil, nil)
	if err != nil {
		return "", 0, err
	}
	end, err := strconv.ParseInt(hdr.Get(api.HeaderLogEndOffset), 10, 64)
	if err != nil {
		end = int64(len(b))
	}
	return string(b), end, nil
}

// newText is the part of a tail (ending at log offset end) past offset printed; the whole
// tail when nothing was printed yet or the gap is wider than the tail.
func newText(tail string, end, printed int64) string {
	if printed < 0 {
		return tail
	}
	n := end - printed
	switch {
	case n <= 0:
		return ""
	case n >= int64(len(tail)):
		return tail
	}
	return tail[int64(len(tail))-n:]
}
