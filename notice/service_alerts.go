package notice

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"kashi/models"
)

// The inference services' alert rules.
const (
	// ServiceTTFTWindow is the window whose merged buckets give the p95 time to first token
	// compared with a service's target.
	ServiceTTFTWindow = 15 * time.Minute
	// ServiceDownGrace is how long a service may run before a replica whose page does not
	// answer raises an alert: a model server loads its weights first.
	ServiceDownGrace = 10 * time.Minute
	// ServiceIdleFor is how long a service holds its cards without a request before it is
	// named a candidate to release.
	ServiceIdleFor = 24 * time.Hour
)

// ServiceAlertStore is what CheckServices needs of models.Store.
type ServiceAlertStore interface {
	ServiceUses(ctx context.Context, from, to time.Time) ([]models.ServiceUse, error)
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	RaiseAlert(ctx context.Context, in models.AlertInput, now time.Time) (models.Alert, bool, error)
	ResolveAlert(ctx context.Context, kind, subject string, now time.Time) error
}

// CheckServices raises, for each live inference service, an alert when its time to first
// token at p95 over the last ServiceTTFTWindow is above its target (service-ttft), when a
// replica's metrics page did not answer its last scrape once the service has run
// ServiceDownGrace (service-down), and when it held its cards ServiceIdleFor without a
// request (service-idle, a candidate to release); each alert resolves when its cause ends.
func CheckServices(ctx context.Context, store ServiceAlertStore, now time.Time) error {
	recent, err := store.ServiceUses(ctx, now.Add(-ServiceTTFTWindow), now)
	if err != nil {
		return err
	}
	day, err := store.ServiceUses(ctx, now.Add(-ServiceIdleFor), now)
	if err != nil {
		return err
	}
	raised := map[string]bool{}
	raise := func(u models.ServiceUse, kind, severity, code string, params ...string) error {
		subject := fmt.Sprintf("service %d", u.ServiceID)
		raised[kind+"\x00"+subject] = true
		in := models.AlertInput{Kind: kind, Subject: subject, TaskID: u.ServiceID, Severity: severity, Code: code,
			Params: append([]string{strconv.FormatInt(u.ServiceID, 10), u.Name, u.Project}, params...)}
		_, _, err := store.RaiseAlert(ctx, in, now)
		return err
	}
	for _, u := range recent {
		if u.Live == 0 {
			continue
		}
		if p95, ok := u.Served.TTFT.Quantile(0.95); ok && u.TTFTTargetMS > 0 && p95*1000 > float64(u.TTFTTargetMS) {
			err := raise(u, models.AlertServiceTTFT, models.SeverityWarning, "service_ttft", u.Model,
				strconv.FormatFloat(p95*1000, 'f', 0, 64), strconv.Itoa(u.TTFTTargetMS), strconv.Itoa(int(ServiceTTFTWindow/time.Minute)))
			if err != nil {
				return err
			}
		}
		if u.Failing > 0 && !u.StartedAt.IsZero() && now.Sub(u.StartedAt) >= ServiceDownGrace {
			err := raise(u, models.AlertServiceDown, models.SeverityCritical, "service_down",
				strconv.Itoa(u.Failing), strconv.Itoa(u.Live), u.FailingError)
			if err != nil {
				return err
			}
		}
	}
	for _, u := range day {
		if u.Live > 0 && !u.StartedAt.IsZero() && now.Sub(u.StartedAt) >= ServiceIdleFor && u.Served.Requests == 0 {
			if err := raise(u, models.AlertServiceIdle, models.SeverityInfo, "service_idle", strconv.Itoa(u.GPUs),
				strconv.Itoa(int(ServiceIdleFor/time.Hour))); err != nil {
				return err
			}
		}
	}
	open, err := store.Alerts(ctx, models.AlertFilter{OpenOnly: true})
	if err != nil {
		return err
	}
	for _, a := range open {
		switch a.Kind {
		case models.AlertServiceTTFT, models.AlertServiceDown, models.AlertServiceIdle:
			if !raised[a.Kind+"\x00"+a.Subject] {
				if err := store.ResolveAlert(ctx, a.Kind, a.Subject, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
