package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"kashi/agent/simgpu"
)

// RerunTask is the name of the demo's task that shows a rerun from its last checkpoint
// (重跑): a training run of member's in vision that writes a checkpoint every 15 minutes and
// loses its node after its first, from the demo's first minutes.
const RerunTask = "pretrain-ckpt"

// showRerun submits RerunTask once the agents have registered and, when it runs and has
// written its first checkpoint, silences its node's agent (as loseOne does): the server gives
// the node up, queues the task again at the head of its lane, and another node resumes it
// from that checkpoint; its page shows both attempts and the bill the card-hours lost. It
// returns once the task's second attempt is queued (or it ended, or ctx did).
func (d *Demo) showRerun(ctx context.Context) {
	if !sleep(ctx, 3*time.Second) {
		return
	}
	client := &http.Client{Timeout: 10 * time.Second}
	token := d.cfg.Tokens["member"]
	body := taskBody{Project: "vision", Name: RerunTask, Owner: "member", GPUs: 4, Spec: "A100-80G", Queue: "long",
		Priority: "urgent", EstGPUHours: 12, MaxRuntimeS: int64(8 * time.Hour / time.Second),
		Command:   simgpu.CheckpointCommand(simgpu.Train, 3*time.Hour, 0, 15*time.Minute),
		DataReady: true, MaxAttempts: 3}
	var created struct {
		ID int64 `json:"id"`
	}
	if err := postJSON(ctx, client, d.cfg.Server+"/api/v1/tasks", token, "demo-rerun-"+d.cfg.Run, body, &created); err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("demo rerun task", "err", err)
		}
		return
	}
	for sleep(ctx, time.Second) {
		var t struct {
			State        string     `json:"state"`
			CheckpointAt *time.Time `json:"last_checkpoint_at"`
			Attempts     []struct {
				Nodes []string `json:"nodes"`
			} `json:"attempts"`
		}
		if err := getJSON(ctx, client, fmt.Sprintf("%s/api/v1/tasks/%d", d.cfg.Server, created.ID), token, &t); err != nil {
			continue
		}
		switch {
		case len(t.Attempts) > 1:
			return // its node was given up and the task queued again: shown
		case t.State != "running" && t.State != "starting" && t.State != "queued":
			return // it ended meanwhile (cancelled by someone watching): nothing to show
		case t.State != "running" || t.CheckpointAt == nil || len(t.Attempts) == 0:
			continue
		}
		for _, node := range t.Attempts[len(t.Attempts)-1].Nodes {
			d.lose(node)
		}
	}
}

// lose silences the agent of the machine named id, leaving it in the cloud: the server must
// notice its node is lost.
func (d *Demo) lose(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cancel, ok := d.agents[id]; ok {
		cancel()
		delete(d.agents, id)
		d.cfg.Logger.Info("demo machine lost", "node", id)
	}
}

// getJSON gets url with the bearer token and decodes a 2xx answer into out.
func getJSON(ctx context.Context, client *http.Client, url, token string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
