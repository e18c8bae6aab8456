package cli

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"kashi/api"
)

// runCancel cancels tasks, or with --pipeline a pipeline: POST
// /api/v1/pipelines/{id}/cancel, printing "pipeline ID STATE".
func runCancel(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "cancel")
	pipeline := f.String("pipeline", "", "cancel the pipeline with this id instead: its stage tasks that wait, queue or run, and the stages not yet submitted")
	if err := f.parse(args, 0, -1); err != nil {
		return err
	}
	if *pipeline == "" {
		if len(f.pos) == 0 {
			return exitf(ExitUsage, "cancel: missing argument (usage: %s %s)", f.Name(), f.args)
		}
		return changeTasks(ctx, e, f, "cancel")
	}
	if len(f.pos) > 0 {
		return exitf(ExitUsage, "cancel: --pipeline cancels one pipeline; give no task ids with it")
	}
	if n, err := strconv.ParseInt(*pipeline, 10, 64); err != nil || n <= 0 {
		return exitf(ExitUsage, "%q is not a pipeline id (a positive integer)", *pipeline)
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var p api.Pipeline
	if err := c.call(ctx, http.MethodPost, "/api/v1/pipelines/"+*pipeline+"/cancel", nil, nil, nil, &p); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "pipeline %d %s\n", p.ID, p.State)
	return nil
}

func runReady(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "ready")
	if err := f.parse(args, 1, -1); err != nil {
		return err
	}
	return changeTasks(ctx, e, f, "ready")
}

// changeTasks posts /api/v1/tasks/{id}/{action} for each id f's arguments name, printing "ID
// STATE" or the error for each; it fails with the first failure's code when any failed, after
// trying them all.
func changeTasks(ctx context.Context, e *Env, f *flagSet, action string) error {
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
