package datacheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"kashi/models"
)

// ReadinessStore is what the readiness checker needs of models.Store.
type ReadinessStore interface {
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error
	MarkTaskReadyIn(ctx context.Context, id int64, region, reason string, now time.Time) error
	MarkDataChecked(ctx context.Context, ids []int64, now time.Time) error
}

// Limits of one round of checks.
const (
	// Parallel is how many checks run at once; a slow URL holds one slot, never the others.
	Parallel = 8
	// CheckTimeout bounds one URL check.
	CheckTimeout = 5 * time.Second
)

// Readiness runs the data checks that tasks declare. A task whose check passes joins the
// queue and the scheduler is woken.
type Readiness struct {
	store  ReadinessStore
	now    func() time.Time
	log    *slog.Logger
	policy Policy
	client *http.Client
}

// NewReadiness returns a checker with no data roots and no allowed internal hosts (see
// WithPolicy). The server runs CheckOnce in a loop and wakes the scheduler when tasks became
// ready.
func NewReadiness(store ReadinessStore, now func() time.Time, log *slog.Logger) *Readiness {
	r := &Readiness{store: store, now: now, log: log}
	return r.WithPolicy(Policy{})
}

// WithPolicy sets where checks may look and returns r.
func (r *Readiness) WithPolicy(p Policy) *Readiness {
	r.policy = p
	r.client = &http.Client{
		Timeout: CheckTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Transport: &http.Transport{Proxy: nil, DialContext: p.dial, MaxIdleConnsPerHost: 1,
			TLSHandshakeTimeout: CheckTimeout, ResponseHeaderTimeout: CheckTimeout},
	}
	return r
}

// dial connects to addr; unless the host is allowed, the address it resolved to is checked
// at connect time (so a name cannot re-resolve to an internal address after a check).
func (p Policy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Timeout: CheckTimeout}
	if !p.hostAllowed(host) {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if internal(ap.Addr()) {
				return fmt.Errorf("datacheck: %s resolves to internal address %s", host, ap.Addr())
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, addr)
}

// CheckOnce runs the check of every task waiting for data that declares one, Parallel at a
// time, marks each task ready as soon as its own check passes, and returns how many became
// ready. A task whose data check names no path or URL is checked per region instead: each
// of its data locations that can be checked (a path or an http(s) URL, see
// models.Checkable), in region order; the first found makes it ready with that region as its
// data's region. Locations of other kinds (s3://…) are only passed to the task. The tasks
// whose checks answered without finding the data (a path not there yet, a URL answering
// other than 2xx) are marked checked, so that a check that never answers shows on its task
// (models.Task.DataCheckSilence).
func (r *Readiness) CheckOnce(ctx context.Context) (int, error) {
	tasks, err := r.store.ActiveTasks(ctx)
	if err != nil {
		return 0, err
	}
	var (
		mu       sync.Mutex
		ready    int
		answered []int64
		errs     []error
		wg       sync.WaitGroup
		slots    = make(chan struct{}, Parallel)
	)
	for _, t := range tasks {
		if t.State != models.TaskWaitingData {
			continue
		}
		var check models.DataCheck
		if t.DataCheck != "" {
			if err := json.Unmarshal([]byte(t.DataCheck), &check); err != nil {
				errs = append(errs, fmt.Errorf("datacheck: data check of task %d: %w", t.ID, err))
				continue
			}
		}
		places := regionChecks(check, t.DataLocationMap())
		if len(places) == 0 {
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			i, what, heard := -1, "", false
			for j, p := range places {
				ok, answer, w := r.check(ctx, p.check)
				heard = heard || answer
				if ok {
					i, what = j, w
					break
				}
			}
			if i < 0 {
				if heard {
					mu.Lock()
					answered = append(answered, t.ID)
					mu.Unlock()
				}
				return
			}
			var err error
			if region := places[i].region; region == "" {
				err = r.store.MarkTaskReady(ctx, t.ID, "data check passed: "+what, r.now())
			} else {
				err = r.store.MarkTaskReadyIn(ctx, t.ID, region, "data check passed in "+region+": "+what, r.now())
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ready++
			case !errors.Is(err, models.ErrConflict):
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	if err := r.store.MarkDataChecked(ctx, answered, r.now()); err != nil {
		errs = append(errs, err)
	}
	return ready, errors.Join(errs...)
}

// regionCheck is one check to run and the region it finds the data in ("" for the task's
// own data check).
type regionCheck struct {
	region string
	check  models.DataCheck
}

// regionChecks is what to check of a task waiting for data: its data check when it names a
// path or a URL, else each checkable data location by region name.
func regionChecks(dc models.DataCheck, locations map[string]string) []regionCheck {
	if dc.Path != "" || dc.URL != "" {
		return []regionCheck{{check: dc}}
	}
	var out []regionCheck
	for _, region := range slices.Sorted(maps.Keys(locations)) {
		loc := locations[region]
		switch {
		case !models.Checkable(loc):
		case strings.HasPrefix(loc, "/"):
			out = append(out, regionCheck{region, models.DataCheck{Path: loc}})
		default:
			out = append(out, regionCheck{region, models.DataCheck{URL: loc}})
		}
	}
	return out
}

// check runs one declared check: ok when it found the data; answered when it could tell
// (the file system said whether the path is there, the URL answered with any status).
func (r *Readiness) check(ctx context.Context, c models.DataCheck) (ok, answered bool, what string) {
	if c.Path != "" {
		found, answered := r.policy.lookPath(c.Path)
		return found, answered, c.Path + " exists"
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false, false, ""
	}
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return false, false, ""
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.log.Debug("data check", "url", c.URL, "err", err)
		return false, false, ""
	}
	resp.Body.Close()
	return resp.StatusCode/100 == 2, true, fmt.Sprintf("%s answered %d", c.URL, resp.StatusCode)
}
