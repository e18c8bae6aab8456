package demo

import (
	"context"
	"net/http"
	"time"

	"kashi/agent/simgpu"
)

// TrialTask is the name of the task the demo tries at small sizes (小规模验证再放大): a
// fine-tune of member's in vision, on A100-80G and RTX4090-24G at 1 and 2 cards for 20
// minutes each, from the demo's first minute (once its rerun's node is given up); its runs report the samples they train, so
// its page shows real throughput, scaling and cost per sample, and the full run it proposes.
const TrialTask = "finetune-7b"

// trialBody is POST /api/v1/trials's body as the demo sends it.
type trialBody struct {
	Task      taskBody `json:"task"`
	Specs     []string `json:"specs"`
	Sizes     []int    `json:"sizes"`
	BoundS    int64    `json:"bound_s"`
	WorkUnits int64    `json:"work_units"`
	FullGPUs  int      `json:"full_gpus"`
}

// showTrial starts the demo's trial.
func (d *Demo) showTrial(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	client := &http.Client{Timeout: 10 * time.Second}
	body := trialBody{Task: taskBody{Project: "vision", Name: TrialTask, Owner: "member", Priority: "high",
		Command: simgpu.Command(simgpu.Finetune, 2*time.Hour, 0), DataReady: true},
		Specs: []string{"A100-80G", "RTX4090-24G"}, Sizes: []int{1, 2}, BoundS: int64(20 * time.Minute / time.Second),
		WorkUnits: 200_000_000, FullGPUs: 8}
	if err := postJSON(ctx, client, d.cfg.Server+"/api/v1/trials", d.cfg.Tokens["member"], "", body, nil); err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("demo trial", "err", err)
	}
}
