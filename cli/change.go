package cli

import (
	"context"
	"fmt"
	"net/http"

	"kashi/api"
)

func runCancel(ctx context.Context, e *Env, args []string) error {
	return changeTasks(ctx, e, "cancel", args)
}

func runReady(ctx context.Context, e *Env, args []string) error {
	return changeTasks(ctx, e, "ready", args)
}

// changeTasks posts /api/v1/tasks/{id}/{action} for each id, printing "ID STATE" or the error
// for each; it fails with the first failure's code when any failed, after trying them all.
func changeTasks(ctx context.Context, e *Env, action string, args []string) error {
	f := newFlagSet(e, action)
	if err := f.parse(args, 1, -1); err != nil {
		return err
	}
	var ids []string
	for _, a := range f.pos {
		id, err := taskID(a)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var first error
	for _, id := range ids {
		var t api.Task
		err := c.call(ctx, http.MethodPost, "/api/v1/tasks/"+id+"/"+action, nil, nil, nil, &t)
		if err != nil {
			if len(ids) > 1 {
				fmt.Fprintf(e.Stderr, "kashi %s: task %s: %v\n", action, id, err)
			}
			if first == nil {
				first = err
			}
			continue
		}
		fmt.Fprintf(e.Stdout, "%d %s\n", t.ID, t.State)
	}
	if first != nil && len(ids) > 1 {
		code := ExitFailed
		if ee, ok := first.(*ExitError); ok {
			code = ee.Code
		}
		return exitf(code, "%s: some tasks failed", action)
	}
	return first
}
