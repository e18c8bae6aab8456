package pools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	"kashi/replay"
	poolsview "kashi/views/pools"
)

// The calibration page (/calibrate, admins): a sweep of a pool's settings over a trace runs
// in the background as a job of replay's runner, one at a time per server; the last few
// results are kept in memory a while (a restart forgets them: run again). A chosen setting is
// proposed as a new version of the pool's configuration, which the versioned history shows
// and can roll back.

// keptCalibrations is how many calibrations a server remembers, and keepCalibration how
// long after one started, in real time: they are this process's memory, not the business
// clock's (the demo's clock runs 60 to 3,600 times faster, and kept them under a minute).
const (
	keptCalibrations = 5
	keepCalibration  = 24 * time.Hour
)

// defaultSweep is the form's first suggestion.
const defaultSweep = "scale_up_mem=0.7,0.8,0.9;cooldown=5m,10m"

// newCalibrations is the runner of a server's calibrations: one at a time, each on half the
// cores, to leave the server room to serve.
func newCalibrations() *replay.Runner {
	return replay.NewRunner(replay.RunnerConfig{Running: 1, Workers: max(1, runtime.GOMAXPROCS(0)/2),
		Kept: keptCalibrations, Keep: keepCalibration})
}

// calibratedPool is the pool a calibration replays: the only one of its fleet.
func calibratedPool(run replay.JobState) replay.Pool { return run.Base.Fleet.Pools[0] }

// calibrationView is run as the page shows it.
func calibrationView(run replay.JobState) poolsview.CalibrateRun {
	pool := calibratedPool(run)
	v := poolsview.CalibrateRun{ID: run.ID, Pool: pool.Name, Jobs: run.Jobs, Done: run.Done, Of: len(run.Settings),
		Finished: run.Finished, PricedNote: pool.RateFen <= 0}
	if run.Err != nil {
		v.Error = run.Err.Error()
	}
	for _, r := range run.Rows {
		res := r.Result
		v.Rows = append(v.Rows, poolsview.CalibrateRow{Setting: r.Setting, CostFen: res.Cost.TotalFen, IdleH: billing.Hours(int64(res.IdleGPUHours)),
			MeanWaitS: res.WaitS.Mean, P95WaitS: res.WaitS.P95, MaxWaitS: res.WaitS.Max})
	}
	return v
}

// CalibratePage shows the calibration form, and a calibration with ?run=. GET /calibrate.
func (h *Handler) CalibratePage(c echo.Context) error {
	d, err := h.calibrateData(c.Request().Context(), poolsview.CalibrateForm{Source: poolsview.CalibrateHistory, Days: 30, Sweep: defaultSweep})
	if err != nil {
		return err
	}
	if id, err := strconv.ParseInt(c.QueryParam("run"), 10, 64); err == nil {
		if run, ok := h.calib.Job(id, time.Now()); ok {
			v := calibrationView(run)
			d.Run, d.Form.Pool = &v, v.Pool
		} else {
			d.Error = handlers.Locale(c).T("calibrate.err_run")
		}
	}
	return handlers.Render(c, http.StatusOK, poolsview.Calibrate(handlers.Locale(c), d))
}

// CalibrateRun is a calibration's progress or result, for the page to poll.
// GET /calibrate/runs/:id.
func (h *Handler) CalibrateRun(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	run, ok := h.calib.Job(id, time.Now())
	if !ok {
		return handlers.PageError(http.StatusNotFound, handlers.Locale(c).T("calibrate.err_run"))
	}
	return handlers.Render(c, http.StatusOK, poolsview.CalibrateRunView(handlers.Locale(c), calibrationView(run)))
}

// CalibrateStart reads the form, the trace and the settings, and starts the sweep; it then
// shows the calibration, which the page follows. A problem shows the form again with it
// (422), a calibration already running is 429. POST /calibrate.
func (h *Handler) CalibrateStart(c echo.Context) error {
	ctx, l := c.Request().Context(), handlers.Locale(c)
	form := poolsview.CalibrateForm{Pool: c.FormValue("pool"), Source: c.FormValue("source"), Sweep: c.FormValue("sweep")}
	form.Days, _ = strconv.Atoi(c.FormValue("days"))
	d, err := h.calibrateData(ctx, form)
	if err != nil {
		return err
	}
	fail := func(status int, msg string) error {
		d.Error = msg
		return handlers.Render(c, status, poolsview.Calibrate(l, d))
	}
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(pools, func(p models.ConfiguredPool) bool { return p.Name == form.Pool && p.Config.MaxNodes > 0 })
	if i < 0 {
		return fail(http.StatusUnprocessableEntity, l.T("calibrate.err_pool"))
	}
	pool := pools[i]
	params, err := replay.ParseSweep(form.Sweep)
	if err != nil {
		return fail(http.StatusUnprocessableEntity, l.T("calibrate.err_sweep", err.Error()))
	}
	trace, msg, err := h.calibrationTrace(c, form)
	if err != nil {
		return err
	}
	if msg != "" {
		return fail(http.StatusUnprocessableEntity, msg)
	}
	rate, err := h.poolRate(ctx, pool.Spec)
	if err != nil {
		return err
	}
	opt := replay.Options{Fleet: replay.Config{Pools: []replay.Pool{replay.PoolOf(pool.Name, pool.Config, rate)}}}
	settings := replay.Combinations(params)
	for _, s := range settings {
		if _, err := s.Apply(opt); err != nil {
			return fail(http.StatusUnprocessableEntity, l.T("calibrate.err_sweep", err.Error()))
		}
		if _, err := replay.ProposeConfig(s, pool.Name, pool.Config); err != nil {
			return fail(http.StatusUnprocessableEntity, l.T("calibrate.err_sweep", err.Error()))
		}
	}
	id, err := h.calib.Submit(replay.SweepJob{Trace: trace, Base: opt, Settings: settings}, time.Now())
	if errors.Is(err, replay.ErrBusy) {
		return fail(http.StatusTooManyRequests, l.T("calibrate.err_busy"))
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/calibrate?run="+strconv.FormatInt(id, 10))
}

// calibrationTrace reads the trace the form names: the uploaded file, or this deployment's
// history. A problem the admin can fix is returned as a message in the page's language.
func (h *Handler) calibrationTrace(c echo.Context, form poolsview.CalibrateForm) (*replay.Trace, string, error) {
	l := handlers.Locale(c)
	var src io.Reader
	switch form.Source {
	case poolsview.CalibrateUpload:
		fh, err := c.FormFile("trace")
		if err != nil {
			return nil, l.T("calibrate.err_trace", "no file"), nil
		}
		f, err := fh.Open()
		if err != nil {
			return nil, l.T("calibrate.err_trace", err.Error()), nil
		}
		defer f.Close()
		src = f
	default:
		if form.Days < 1 || form.Days > 90 {
			return nil, l.T("calibrate.err_days"), nil
		}
		var buf bytes.Buffer
		if err := h.writeHistory(c.Request().Context(), &buf, form.Days); err != nil {
			return nil, "", err
		}
		src = &buf
	}
	tr, err := replay.Read(src, replay.ReadOptions{})
	var dup *replay.DuplicateIDError
	switch {
	case errors.As(err, &dup):
		return nil, l.T("calibrate.err_duplicate", dup.Line, dup.ID, dup.First), nil
	case err != nil:
		return nil, l.T("calibrate.err_trace", err.Error()), nil
	}
	if len(tr.Jobs) == 0 {
		return nil, l.T("calibrate.err_empty"), nil
	}
	return tr, "", nil
}

// writeHistory writes the tasks submitted in the last days as a trace.
func (h *Handler) writeHistory(ctx context.Context, w io.Writer, days int) error {
	now := h.Now()
	spans, err := h.store.TaskSpans(ctx, now.AddDate(0, 0, -days), now)
	if err != nil {
		return err
	}
	return replay.WriteHistory(w, spans)
}

// CalibrateHistory downloads this deployment's last ?days= (1–90, default 30) of tasks as a
// trace for `kashi replay`. GET /calibrate/history.csv.
func (h *Handler) CalibrateHistory(c echo.Context) error {
	days := 30
	if v := c.QueryParam("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 90 {
			return handlers.PageError(http.StatusUnprocessableEntity, handlers.Locale(c).T("calibrate.err_days"))
		}
		days = n
	}
	var buf bytes.Buffer
	if err := h.writeHistory(c.Request().Context(), &buf, days); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="kashi-history-%dd.csv"`, days))
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// CalibratePropose saves a calibration's setting as a new version of its pool's
// configuration (noted with the setting), and opens the pool's page with its history.
// POST /calibrate/propose.
func (h *Handler) CalibratePropose(c echo.Context) error {
	id, err1 := strconv.ParseInt(c.FormValue("run"), 10, 64)
	row, err2 := strconv.Atoi(c.FormValue("row"))
	run, ok := h.calib.Job(id, time.Now())
	if err1 != nil || err2 != nil || !ok {
		return handlers.PageError(http.StatusNotFound, handlers.Locale(c).T("calibrate.err_run"))
	}
	pool := calibratedPool(run).Name
	if row < 0 || row >= len(run.Settings) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, api.Error{Error: "row: no such setting", Field: "row"})
	}
	ctx := c.Request().Context()
	// The proposal applies the setting to the pool as it is now, not as it was when the
	// calibration ran: other changes made since are kept.
	cur, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(cur, func(p models.ConfiguredPool) bool { return p.Name == pool })
	if i < 0 {
		return echo.NewHTTPError(http.StatusNotFound, api.Error{Error: "pool " + pool + " is gone"})
	}
	cfg, err := replay.ProposeConfig(run.Settings[row], pool, cur[i].Config)
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, api.Error{Error: err.Error()})
	}
	if _, _, err := h.savePool(c, pool, cfg, "calibrate: "+run.Settings[row].String()); err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return c.Redirect(http.StatusSeeOther, "/pools/"+pool+"/edit")
}

// poolRate is the default price of a card-hour of spec this month, in fen; 0 when none.
func (h *Handler) poolRate(ctx context.Context, spec string) (int64, error) {
	month := billing.MonthOf(h.Now(), h.Loc()).String()
	prices, err := h.store.Prices(ctx, month)
	if err != nil {
		return 0, err
	}
	for _, p := range prices {
		if p.ProjectID == 0 && p.Spec == spec {
			return p.RateFen, nil
		}
	}
	return 0, nil
}

// calibrateData is the page around form: the pools that scale.
func (h *Handler) calibrateData(ctx context.Context, form poolsview.CalibrateForm) (poolsview.CalibrateData, error) {
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return poolsview.CalibrateData{}, err
	}
	d := poolsview.CalibrateData{Form: form}
	for _, p := range pools {
		if p.Config.MaxNodes > 0 {
			d.Pools = append(d.Pools, p.Name)
		}
	}
	return d, nil
}
