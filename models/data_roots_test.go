package models_test

import (
	"context"
	"errors"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestDataPathsNeedRoots: a path the readiness checks would look at is refused where a task
// is written — a submit, its validation, a template — naming the field, when the server has
// no data roots (it checks no paths) or the path is outside them; URL checks, buckets, and
// the paths of a task whose data is ready (no check runs) are stored.
func TestDataPathsNeedRoots(t *testing.T) {
	tests := map[string]struct {
		roots []string
		check models.DataCheck
		locs  map[string]string
		ready bool
		field string // "" stored
	}{
		"path, no roots":               {check: models.DataCheck{Path: "/data/set/_READY"}, field: "data_check"},
		"path, no roots, ready":        {check: models.DataCheck{Path: "/data/set/_READY", Region: "cn-east"}, ready: true},
		"path in the roots":            {roots: []string{"/data"}, check: models.DataCheck{Path: "/data/set/_READY"}},
		"path outside the roots":       {roots: []string{"/data"}, check: models.DataCheck{Path: "/etc/hostname"}, field: "data_check.path"},
		"path climbing out":            {roots: []string{"/data"}, check: models.DataCheck{Path: "/data/../etc/hostname"}, field: "data_check.path"},
		"url, no roots":                {check: models.DataCheck{URL: "https://data.example.com/ready"}},
		"none, no roots":               {},
		"location path, no roots":      {locs: map[string]string{"cn-east": "s3://b/set", "cn-west": "/mnt/set"}, field: "data_locations.cn-west"},
		"location path, ready":         {locs: map[string]string{"cn-west": "/mnt/set"}, ready: true},
		"location path, url check":     {check: models.DataCheck{URL: "https://data.example.com/ready"}, locs: map[string]string{"cn-west": "/mnt/set"}},
		"location path in the roots":   {roots: []string{"/mnt"}, locs: map[string]string{"cn-west": "/mnt/set"}},
		"location path outside roots":  {roots: []string{"/data"}, locs: map[string]string{"cn-west": "/mnt/set"}, field: "data_locations.cn-west"},
		"location bucket, no roots":    {locs: map[string]string{"cn-east": "s3://b/set"}},
		"location url, no roots":       {locs: map[string]string{"cn-east": "https://data.example.com/set"}},
		"roots named with a slash end": {roots: []string{"/data/"}, check: models.DataCheck{Path: "/data/set"}},
	}
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := templateStore(t, s)
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s.SetDataRoots(tc.roots)
				nt := models.NewTask{Project: "vision", Name: name, Owner: "a", GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal,
					Command: []string{"x"}, DataCheck: tc.check, DataLocations: tc.locs, DataReady: tc.ready}
				wantErr := func(what string, err error) {
					t.Helper()
					var fe *models.FieldError
					switch {
					case tc.field == "" && err != nil:
						t.Errorf("%s = %v, want it stored", what, err)
					case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
						t.Errorf("%s = %v, want a FieldError on %s", what, err, tc.field)
					}
				}
				wantErr("ValidateTask", s.ValidateTask(ctx, nt, models.DefaultTaskLimits))
				_, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
				wantErr("CreateTask", err)
				if tc.ready {
					return // a template's tasks wait for the data its check or locations name
				}
				b := models.TemplateBody{GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"x"},
					DataLocations: tc.locs}
				if tc.check != (models.DataCheck{}) {
					b.DataCheck = &tc.check
				}
				_, err = s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: name, Body: b}, "lee", models.DefaultTaskLimits, t0)
				wantErr("CreateTemplate", err)
			})
		}
	})
}
