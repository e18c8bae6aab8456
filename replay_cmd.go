package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"kashi/replay"
)

// replayConfig is kashi replay's flags.
type replayConfig struct {
	Trace, Config, Policy, Estimates, Out, JobsOut, Sweep string
	Nodes, GPUsPerNode, MaxJobs, Workers                  int
	RateFen                                               int64
}

func parseReplay(args []string, getenv func(string) string, stderr io.Writer) (replayConfig, error) {
	var c replayConfig
	f := newFlags("replay", getenv, stderr)
	f.String(&c.Trace, "trace", "", "the trace, CSV: job_id, submit_ts, gpus, duration_s or start_ts and end_ts; optional group, spec, est_s, max_runtime_s, queue")
	f.String(&c.Config, "config", "", "YAML fleet file (pools, elastic ones with a scale section); else --nodes and --gpus-per-node")
	f.Int(&c.Nodes, "nodes", 0, "a fixed fleet of this many nodes (without --config)")
	f.Int(&c.GPUsPerNode, "gpus-per-node", 8, "GPUs per node of the fixed fleet")
	f.Int64(&c.RateFen, "rate-fen", 0, "what one card-hour of the fixed fleet costs, in fen")
	f.String(&c.Policy, "policy", replay.PolicyKashi, "kashi (the production scheduler) or fifo (strict first-in first-out)")
	f.String(&c.Estimates, "estimates", replay.EstimatesExact, "what tasks declare of their runtime: exact, none or declared (the trace's est_s, max_runtime_s and queue)")
	f.String(&c.Out, "out", "", "where to write the result JSON (a sweep writes an array)")
	f.String(&c.JobsOut, "jobs-out", "", "where to write one CSV line per job: job_id,submit_ts,start_ts,end_ts,gpus,nodes")
	f.String(&c.Sweep, "sweep", "", "replay every combination, e.g. 'scale_up_mem=0.7,0.8,0.9;cooldown=5m,10m', and print a table")
	f.Int(&c.MaxJobs, "max-jobs", replay.DefaultMaxJobs, "the most jobs a trace may have")
	f.Int(&c.Workers, "workers", 0, "replays a sweep runs at once; 0 means one per core")
	if err := f.parse(args); err != nil {
		return c, err
	}
	switch {
	case c.Trace == "":
		return c, errors.New("--trace is required")
	case c.Out == "" && c.Sweep == "":
		return c, errors.New("--out is required (or --sweep, which prints a table)")
	case c.Config == "" && c.Nodes <= 0:
		return c, errors.New("give the fleet: --config FILE, or --nodes N (and --gpus-per-node G)")
	case c.Config != "" && c.Nodes > 0:
		return c, errors.New("--config and --nodes exclude each other")
	case c.Config != "" && c.RateFen != 0:
		return c, errors.New("--rate-fen prices the --nodes fleet; a config file gives each pool's rate_fen")
	case c.Sweep != "" && c.JobsOut != "":
		return c, errors.New("--jobs-out writes one replay's jobs; it does not go with --sweep")
	}
	return c, nil
}

// runReplay is kashi replay: read the trace and fleet, replay (or sweep), write the outputs.
func runReplay(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseReplay(args, getenv, stderr)
	if err != nil {
		return err
	}
	opt := replay.Options{Policy: c.Policy, Estimates: c.Estimates}
	if c.Config != "" {
		cf, err := os.Open(c.Config)
		if err != nil {
			return err
		}
		opt.Fleet, err = replay.ParseConfig(cf)
		cf.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", c.Config, err)
		}
	} else {
		opt.Fleet = replay.FixedFleet(c.Nodes, c.GPUsPerNode)
		opt.Fleet.Pools[0].RateFen = c.RateFen
	}
	tf, err := os.Open(c.Trace)
	if err != nil {
		return err
	}
	tr, err := replay.Read(tf, replay.ReadOptions{MaxJobs: c.MaxJobs})
	tf.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", c.Trace, err)
	}
	if c.Sweep != "" {
		return runSweep(tr, opt, c, stdout)
	}
	res, err := replay.Run(tr, opt)
	if err != nil {
		return err
	}
	body, err := res.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.Out, body, 0o644); err != nil {
		return err
	}
	setting := replay.Setting{{Name: "policy", Value: res.Policy}, {Name: "estimates", Value: opt.Estimates}}
	if err := replay.WriteTable(stdout, []replay.SweepRow{{Setting: setting.String(), Result: res}}); err != nil {
		return err
	}
	if c.JobsOut != "" {
		return writeFile(c.JobsOut, res.WriteJobs)
	}
	return nil
}

// runSweep replays every combination of --sweep and prints the table.
func runSweep(tr *replay.Trace, opt replay.Options, c replayConfig, stdout io.Writer) error {
	params, err := replay.ParseSweep(c.Sweep)
	if err != nil {
		return err
	}
	rows, err := replay.Sweep(tr, opt, replay.Combinations(params), c.Workers, nil)
	if err != nil {
		return err
	}
	if err := replay.WriteTable(stdout, rows); err != nil {
		return err
	}
	if c.Out == "" {
		return nil
	}
	body, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.Out, append(body, '\n'), 0o644)
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
