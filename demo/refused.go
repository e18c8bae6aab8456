package demo

import (
	"context"
	"net/http"
	"time"

	"kashi/agent/simgpu"
)

// RefusedTask is the name of the demo's task that shows a placement refused for want of a
// network between nodes: lead's 16-card fine-tune on the RTX 4090s, larger than one of their
// nodes, which have none. It waits with the reason no-suitable-place (no-interconnect) from
// the demo's first minute, until someone cancels it or resubmits it on the A100s.
const RefusedTask = "rtx-16card-finetune"

// showRefused submits RefusedTask once the agents have registered.
func (d *Demo) showRefused(ctx context.Context) {
	if !sleep(ctx, 3*time.Second) {
		return
	}
	client := &http.Client{Timeout: 10 * time.Second}
	body := taskBody{Project: "nlp", Name: RefusedTask, Owner: "lead", GPUs: 16, Spec: "RTX4090-24G", Queue: "long",
		Priority: "normal", EstGPUHours: 64, MaxRuntimeS: int64(8 * time.Hour / time.Second),
		Command: simgpu.Command(simgpu.Finetune, 4*time.Hour, 0), DataReady: true}
	if err := postJSON(ctx, client, d.cfg.Server+"/api/v1/tasks", d.cfg.Tokens["lead"], "demo-refused-"+d.cfg.Run, body, nil); err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("demo refused task", "err", err)
	}
}
