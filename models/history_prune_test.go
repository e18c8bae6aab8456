package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestPruneHistory: notifications, scaling events, pools' size samples, and alerts resolved
// or last raised before the kept window go, in batches larger than one delete; an alert
// raised again since, newer rows and live sessions stay; expired sessions go. Before PruneHistory these tables only grew.
func TestPruneHistory(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		keep := 10 * 24 * time.Hour
		now := ft0.Add(30 * 24 * time.Hour)
		old, recent := now.Add(-keep-time.Hour), now.Add(-time.Hour)
		pool, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0)
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.CreateUser(ctx, "ann", "a long password 1", models.RoleUser, ft0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.EnsureProject(ctx, "vision", ft0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
			t.Fatal(err)
		}
		const oldEvents = 1203 // more than two batches
		for i := range oldEvents {
			at := old.Add(-time.Duration(i) * time.Minute)
			if err := s.RecordScalingEvent(ctx, pool.ID, models.ScalingEvent{Kind: "scale-up", Reason: "demand"}, at); err != nil {
				t.Fatal(err)
			}
			if err := s.RecordPoolSize(ctx, pool.ID, 1, 1, 8, at); err != nil {
				t.Fatal(err)
			}
		}
		for i, at := range []time.Time{old, recent} {
			if err := s.RecordScalingEvent(ctx, pool.ID, models.ScalingEvent{Kind: "scale-up", Reason: "demand"}, at); err != nil {
				t.Fatal(err)
			}
			if err := s.RecordPoolSize(ctx, pool.ID, i, i, 0, at.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.NotifyProject(ctx, p.ID, "key-"+at.String(), "idle", "m", at); err != nil {
				t.Fatal(err)
			}
			for _, subject := range []string{"resolved-" + at.String(), "open-" + at.String(), "again"} {
				if _, _, err := s.RaiseAlert(ctx, models.AlertInput{Kind: models.AlertQuota, Subject: subject, Code: "c"}, at); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.ResolveAlert(ctx, models.AlertQuota, "resolved-"+at.String(), at); err != nil {
				t.Fatal(err)
			}
		}
		lim := models.SessionLimits{Idle: 12 * time.Hour, Absolute: 7 * 24 * time.Hour}
		if _, err := s.CreateSession(ctx, u.ID, lim, now.Add(-8*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateSession(ctx, u.ID, lim, now.Add(-13*time.Hour)); err != nil {
			t.Fatal(err)
		}
		live, err := s.CreateSession(ctx, u.ID, lim, recent)
		if err != nil {
			t.Fatal(err)
		}

		n, err := s.PruneHistory(ctx, now, models.Retention{Keep: keep, Sessions: lim})
		if err != nil {
			t.Fatal(err)
		}
		// old: the events, the size samples (the second at old overwrote the first: one a
		// minute), one notification, the alert resolved then and the one last raised then;
		// 2 sessions.
		if want := int64(oldEvents + 1 + oldEvents + 1 + 2 + 2); n != want {
			t.Errorf("PruneHistory deleted %d rows, want %d", n, want)
		}
		evs, err := s.ScalingEvents(ctx, pool.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 1 || !evs[0].At.Equal(recent) {
			t.Errorf("scaling events left: %+v, want the one at %s", evs, recent)
		}
		sizes, err := s.PoolSizes(ctx, pool.ID, ft0, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(sizes) != 1 || sizes[0].Size != 1 {
			t.Errorf("pool sizes left: %+v, want the recent one", sizes)
		}
		ns, err := s.Notifications(ctx, u.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) != 1 || !ns[0].CreatedAt.Equal(recent) {
			t.Errorf("notifications left: %+v, want the recent one", ns)
		}
		alerts, err := s.Alerts(ctx, models.AlertFilter{})
		if err != nil {
			t.Fatal(err)
		}
		left := map[string]bool{}
		for _, a := range alerts {
			left[a.Subject] = true
		}
		for _, want := range []string{"again", "open-" + recent.String(), "resolved-" + recent.String()} {
			if !left[want] {
				t.Errorf("alert %s was pruned; left %v", want, left)
			}
		}
		if len(alerts) != 3 {
			t.Errorf("%d alerts left, want 3: %v", len(alerts), left)
		}
		if _, err := s.SessionUser(ctx, live, lim, now); err != nil {
			t.Errorf("the live session was pruned: %v", err)
		}
		if n, err := s.PruneHistory(ctx, now, models.Retention{Keep: keep, Sessions: lim}); err != nil || n != 0 {
			t.Errorf("a second prune deleted %d rows (err %v), want 0", n, err)
		}
	})
}
