package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestPoolAttributesValidate: every attribute has a range, a bandwidth needs its link named,
// and a network between nodes has ports of some speed, none has neither; the store refuses
// a bad one naming every bad field and keeps a good one, on both databases.
func TestPoolAttributesValidate(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		good := a100Config()
		good.IntraNodeLink, good.IntraNodeGBytesS = models.LinkNVLink, 600
		good.InterNodeLink, good.InterNodePorts, good.InterNodePortGbps = models.LinkRoCE, 4, 200
		good.LocalStorageMBps, good.SharedStorageMBps = 3000, 2000
		tests := map[string]struct {
			change func(c *models.PoolConfig)
			fields []string // none for valid
		}{
			"valid": {func(*models.PoolConfig) {}, nil},
			"none between nodes": {func(c *models.PoolConfig) {
				c.InterNodeLink, c.InterNodePorts, c.InterNodePortGbps = models.LinkNone, 0, 0
			}, nil},
			"all unstated": {func(c *models.PoolConfig) { *c = a100Config() }, nil},
			"at the bounds": {func(c *models.PoolConfig) {
				c.InterNodePorts, c.InterNodePortGbps, c.SharedStorageMBps = 64, 3200, 1_000_000
			}, nil},
			"unknown intra link":    {func(c *models.PoolConfig) { c.IntraNodeLink = "nvswitch" }, []string{"intra_node_link"}},
			"intra bandwidth range": {func(c *models.PoolConfig) { c.IntraNodeGBytesS = 10_001 }, []string{"intra_node_gbytes_s"}},
			"negative intra":        {func(c *models.PoolConfig) { c.IntraNodeGBytesS = -1 }, []string{"intra_node_gbytes_s"}},
			"bandwidth, no link":    {func(c *models.PoolConfig) { c.IntraNodeLink = "" }, []string{"intra_node_gbytes_s"}},
			"unknown inter link":    {func(c *models.PoolConfig) { c.InterNodeLink = "token-ring" }, []string{"inter_node_link"}},
			"network, no ports": {func(c *models.PoolConfig) { c.InterNodePorts, c.InterNodePortGbps = 0, 0 },
				[]string{"inter_node_port_gbps", "inter_node_ports"}},
			"none with ports":   {func(c *models.PoolConfig) { c.InterNodeLink = models.LinkNone }, []string{"inter_node_port_gbps", "inter_node_ports"}},
			"unstated, a speed": {func(c *models.PoolConfig) { c.InterNodeLink, c.InterNodePorts = "", 0 }, []string{"inter_node_port_gbps"}},
			"too many ports":    {func(c *models.PoolConfig) { c.InterNodePorts = 65 }, []string{"inter_node_ports"}},
			"port too fast":     {func(c *models.PoolConfig) { c.InterNodePortGbps = 3201 }, []string{"inter_node_port_gbps"}},
			"storage out of range": {func(c *models.PoolConfig) { c.LocalStorageMBps, c.SharedStorageMBps = -5, 1_000_001 },
				[]string{"local_storage_mbps", "shared_storage_mbps"}},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				cfg := good
				tc.change(&cfg)
				p, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", name, ft0)
				var got []string
				for _, fe := range models.AllFieldErrors(err) {
					got = append(got, fe.Field)
				}
				if err != nil && got == nil {
					t.Fatalf("SavePoolConfig(...) = %v, want field errors or nil", err)
				}
				slices.Sort(got)
				if diff := cmp.Diff(tc.fields, got); diff != "" {
					t.Errorf("SavePoolConfig(...) bad fields (-want +got):\n%s\n%v", diff, err)
				}
				if err == nil && p.Config.Attributes() != cfg.Attributes() {
					t.Errorf("saved attributes %+v, want %+v", p.Config.Attributes(), cfg.Attributes())
				}
			})
		}
		a := good.Attributes()
		if a.InterNodeGbps() != 800 || a.StorageMBps() != 3000 || a.NoInterNode() || !a.Stated() {
			t.Errorf("attributes of %+v: %d Gb/s, %d MB/s, none %t, stated %t", a, a.InterNodeGbps(), a.StorageMBps(), a.NoInterNode(), a.Stated())
		}
	})
}

// TestTaskMinimumsValidate: a task's minimums have ranges, are stored with the task and
// read back, on both databases.
func TestTaskMinimumsValidate(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		registerNode(t, s, "m-a100-1", "a100", 4)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		good := models.NewTask{Project: "vision", Name: "train", Owner: "ana", GPUs: 2, Spec: "A100-80G",
			Queue: models.QueueLong, Priority: "normal", MaxRuntime: time.Hour, Command: []string{"python", "train.py"}}
		for name, tc := range map[string]struct {
			change func(nt *models.NewTask)
			fields []string
		}{
			"at the bounds": {func(nt *models.NewTask) {
				nt.MinInterNodeGbps, nt.MinStorageMBps = models.MaxInterNodeGbps, models.MaxStorageMBps
			}, nil},
			"negative": {func(nt *models.NewTask) { nt.MinInterNodeGbps, nt.MinStorageMBps = -1, -1 },
				[]string{"min_inter_node_gbps", "min_storage_mbps"}},
			"too much": {func(nt *models.NewTask) {
				nt.MinInterNodeGbps, nt.MinStorageMBps = models.MaxInterNodeGbps+1, models.MaxStorageMBps+1
			},
				[]string{"min_inter_node_gbps", "min_storage_mbps"}},
		} {
			t.Run(name, func(t *testing.T) {
				nt := good
				tc.change(&nt)
				var got []string
				for _, fe := range models.AllFieldErrors(s.ValidateTask(ctx, nt, models.DefaultTaskLimits)) {
					got = append(got, fe.Field)
				}
				slices.Sort(got)
				if diff := cmp.Diff(tc.fields, got); diff != "" {
					t.Errorf("ValidateTask(...) bad fields (-want +got):\n%s", diff)
				}
			})
		}
		nt := good
		nt.MinInterNodeGbps, nt.MinStorageMBps, nt.AllowNoInterconnect = 800, 2000, true
		task, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		row, err := s.TaskByID(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.MinInterNodeGbps != 800 || row.MinStorageMBps != 2000 || !row.AllowNoInterconnect {
			t.Errorf("stored task asks %d Gb/s, %d MB/s, allows %t; want 800, 2000, true", row.MinInterNodeGbps, row.MinStorageMBps, row.AllowNoInterconnect)
		}
	})
}
