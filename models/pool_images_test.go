package models_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestPrePullImages: a node of a pool is told the images of the tasks waiting for its spec
// (or any spec), in submit order, then those of the templates of the projects with tasks on
// that spec; distinct, at most five, never another spec's.
func TestPrePullImages(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a100 := registerNode(t, s, "a1", "a100", 2)
		h100 := models.NodeRegistration{Hostname: "h1", Pool: "h100",
			GPUs: []models.GPUInfo{{UUID: "h1-gpu0", Name: "NVIDIA H100 80GB HBM3", MemoryTotalMiB: 81559}}}
		h, err := s.RegisterNode(ctx, h100, "hash-h1", t0)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.PrePullImages(ctx, a100.PoolID); err != nil || len(got) != 0 {
			t.Errorf("PrePullImages() of an idle pool = %q, %v; want none", got, err)
		}
		vision, _ := s.EnsureProject(ctx, "vision", t0)
		nlp, _ := s.EnsureProject(ctx, "nlp", t0)
		other, _ := s.EnsureProject(ctx, "other", t0)
		nodes, _ := s.Nodes(ctx)
		specOf := map[int64]string{}
		for _, n := range nodes {
			specOf[n.ID] = n.Spec
		}
		submit := func(project, spec, image string) models.Task {
			nt := newTask(fmt.Sprintf("%s-%s", project, image), 1)
			nt.Project, nt.Spec, nt.Image = project, spec, image
			task, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
			if err != nil {
				t.Fatalf("CreateTask(%s, %q) = %v", project, image, err)
			}
			return task
		}
		template := func(projectID int64, name, spec, image string) {
			b := models.TemplateBody{GPUs: 1, Spec: spec, Queue: models.QueueLong, Priority: "normal",
				Command: []string{"python", "train.py"}, Image: image}
			if _, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: projectID, Name: name, Body: b}, "lead", models.DefaultTaskLimits, t0); err != nil {
				t.Fatal(err)
			}
		}
		submit("vision", specOf[a100.ID], "vision/train:3")
		submit("vision", "", "")
		submit("vision", "", "busybox:1.36")
		submit("vision", specOf[a100.ID], "vision/train:3")
		submit("vision", specOf[h.ID], "vision/h100-only:1")
		running := submit("nlp", specOf[a100.ID], "")
		if err := s.PlaceTask(ctx, running.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
		template(nlp.ID, "pretrain", specOf[a100.ID], "nlp/pretrain:7")
		template(nlp.ID, "h100", specOf[h.ID], "nlp/h100:1")
		template(nlp.ID, "bare", "", "")
		template(other.ID, "unused", specOf[a100.ID], "other/idle:1") // no task of other's runs here
		template(vision.ID, "eval", "", "vision/eval:2")

		got, err := s.PrePullImages(ctx, a100.PoolID)
		want := []string{"vision/train:3", "busybox:1.36", "vision/eval:2", "nlp/pretrain:7"}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("PrePullImages() = %v (-want +got):\n%s", err, diff)
		}
		for i := range 4 {
			submit("vision", "", fmt.Sprintf("vision/sweep:%d", i))
		}
		if got, _ := s.PrePullImages(ctx, a100.PoolID); len(got) != models.MaxPrePull || got[2] != "vision/sweep:0" {
			t.Errorf("PrePullImages() with many images = %q, want the first %d waiting ones", got, models.MaxPrePull)
		}
	})
}
