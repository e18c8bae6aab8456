package models_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestTaskPlacesStored keeps a task's specs, regions and data region, the regions of the
// nodes whose pool has one, and the template of each task the reports read, on both
// databases.
func TestTaskPlacesStored(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := templateStore(t, s)
		s.SetDataRoots([]string{"/d"})
		if _, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 4,
			Region: "cn-east", MaxNodes: 1}, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Body: trainBody()}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "a", GPUs: 2, Specs: []string{"A100-80G"},
			Regions: []string{"cn-east", "cn-west"}, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"x"},
			DataCheck: models.DataCheck{Path: "/d", Region: "cn-west"}, TemplateID: tpl.ID, TemplateVersion: 1}, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		row, err := s.TaskByID(ctx, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := []any{row.SpecList(), row.RegionList(), row.DataRegion()}
		if diff := cmp.Diff([]any{[]string{"A100-80G"}, []string{"cn-east", "cn-west"}, "cn-west"}, got); diff != "" {
			t.Errorf("stored places (-want +got):\n%s", diff)
		}
		regions, err := s.NodeRegions(ctx)
		if err != nil || len(regions) != 1 {
			t.Errorf("NodeRegions = %v, %v; want one node in cn-east", regions, err)
		}
		for _, r := range regions {
			if r != "cn-east" {
				t.Errorf("node region %q, want cn-east", r)
			}
		}
		lt, err := s.LedgerTemplates(ctx, []int64{tk.ID, tk.ID + 100})
		if diff := cmp.Diff([]models.LedgerTemplate{{TaskID: tk.ID, TemplateID: tpl.ID, Template: "train"}}, lt); err != nil || diff != "" {
			t.Errorf("LedgerTemplates (-want +got):\n%s %v", diff, err)
		}
	})
}

// TestTaskDataLocations keeps where a task's data is per region, tells the node in a region
// that region's location, and marks a task ready in a region (which becomes its data's
// region), on both databases.
func TestTaskDataLocations(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		templateStore(t, s)
		s.SetDataRoots([]string{"/mnt"})
		if _, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 4,
			Region: "cn-east", MaxNodes: 1}, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		locs := map[string]string{"cn-east": "s3://east/set", "cn-west": "/mnt/west/set"}
		tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "a", GPUs: 1, Queue: models.QueueLong,
			Priority: models.PriorityNormal, Command: []string{"x"}, DataLocations: locs}, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.MarkTaskReadyIn(ctx, tk.ID, "cn-east", "found in cn-east", t0); err != nil {
			t.Fatal(err)
		}
		row, err := s.TaskByID(ctx, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]any{locs, "cn-east", models.TaskQueued}, []any{row.DataLocationMap(), row.DataRegion(), row.State}); diff != "" {
			t.Errorf("stored task (-want +got):\n%s", diff)
		}
		nodes, err := s.Nodes(ctx)
		if err != nil || len(nodes) == 0 {
			t.Fatalf("Nodes = %v, %v", nodes, err)
		}
		if err := s.PlaceTask(ctx, tk.ID, []int64{nodes[0].GPUs[0].ID}, false, "test", t0); err != nil {
			t.Fatal(err)
		}
		as, err := s.Assignments(ctx, nodes[0].ID)
		if err != nil || len(as) != 1 || as[0].DataRegion != "cn-east" || as[0].DataLocation != "s3://east/set" {
			t.Errorf("Assignments = %+v, %v; want the task told s3://east/set in cn-east", as, err)
		}
	})
}
