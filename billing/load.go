package billing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"kashi/models"
)

// Source is the store as the billing reads it; *models.Store implements it.
type Source interface {
	BillingSettings(ctx context.Context) (models.BillingSettings, error)
	Projects(ctx context.Context) ([]models.Project, error)
	LedgerAllocations(ctx context.Context, q models.LedgerQuery) ([]models.LedgerAllocation, error)
	LedgerGPUs(ctx context.Context, q models.LedgerQuery, each func(gpu int64, as []models.LedgerAllocation, rs []models.GPURollup) error) error
	LedgerTasks(ctx context.Context, ids []int64) ([]models.LedgerTask, error)
	ServiceReplicas(ctx context.Context, q models.LedgerQuery) (map[int64]int64, error)
	ServedBuckets(ctx context.Context, serviceIDs []int64, from, to time.Time) (map[int64][]int64, error)
	LedgerReadings(ctx context.Context, gpuIDs []int64, since, to time.Time, each func(gpu int64, rs []models.GPURollup) error) error
	LedgerPeakReadings(ctx context.Context, gpuIDs []int64, since, to time.Time, each func(gpu int64, rs []models.GPURollup) error) error
	LedgerNodes(ctx context.Context) ([]models.LedgerNode, error)
	NodeRegions(ctx context.Context) (map[int64]string, error)
	LedgerTemplates(ctx context.Context, taskIDs []int64) ([]models.LedgerTemplate, error)
	UnmanagedSpans(ctx context.Context, from, to time.Time) ([]models.UnmanagedSpan, error)
	Prices(ctx context.Context, month string) ([]models.Price, error)
	BillingPlans(ctx context.Context, month string) ([]models.BillingPlan, error)
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	Adjustments(ctx context.Context, projectID int64, month string) ([]models.Adjustment, error)
	BilledReservations(ctx context.Context, from, to time.Time) ([]models.Reservation, error)
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	SpecMemory(ctx context.Context) (map[string]int64, error)
	// The trials of the week's ended tasks, for the rightsizing advice.
	TrialsOf(ctx context.Context, ids []int64) (map[int64]models.Trial, error)
	TrialRuns(ctx context.Context, id int64) ([]models.TaskRow, error)
	TaskCards(ctx context.Context, taskID int64) ([]models.TaskCard, error)
	Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
	IssuedBillOf(ctx context.Context, projectID int64, month string) (models.IssuedBill, error)
	IssuedBills(ctx context.Context, month string) ([]models.IssuedBill, error)
}

// Issuer is a Source that also freezes bills; *models.Store implements it.
type Issuer interface {
	Source
	IssueBill(ctx context.Context, b models.IssuedBill, now time.Time) (models.IssuedBill, error)
}

// Request selects the bills Load reads.
type Request struct {
	Month Month
	// ProjectID is one project, or 0 for all (then pool idle is computed too).
	ProjectID int64
	// AsOf cuts open allocations; usually now.
	AsOf time.Time
	// HeldOnly reads the allocations without their GPUs' rollups: the bills' held (nominal)
	// time, their packages' use and pool idle are right, the classes of their card time are
	// not (every second counts as without data).
	HeldOnly bool
}

// Load reads from src everything Compute needs for r, in the billing time zone. Its reads,
// a month of allocations and rollups, go through the file's map on SQLite (MappedReads).
func Load(ctx context.Context, src Source, r Request) (Input, error) {
	ctx = models.MappedReads(ctx)
	bs, err := src.BillingSettings(ctx)
	if err != nil {
		return Input{}, err
	}
	loc, err := locationOf(bs)
	if err != nil {
		return Input{}, err
	}
	in := Input{Month: r.Month, Location: loc, AsOf: r.AsOf, Metering: bs.Metering()}
	from, to := r.Month.Bounds(loc)
	q := models.LedgerQuery{From: from, To: to, ProjectID: r.ProjectID, HeldOnly: r.HeldOnly}
	ps, err := src.Projects(ctx)
	if err != nil {
		return Input{}, err
	}
	for _, p := range ps {
		if r.ProjectID == 0 || p.ID == r.ProjectID {
			in.Projects = append(in.Projects, p)
		}
	}
	if r.ProjectID != 0 && len(in.Projects) == 0 {
		return Input{}, fmt.Errorf("billing: project %d: %w", r.ProjectID, models.ErrNotFound)
	}
	// The allocations stream past with their rollups as Compute asks, then the tasks their
	// lines name are read.
	in.Ledger = func(each func(int64, []models.LedgerAllocation, []models.GPURollup) error) error {
		return src.LedgerGPUs(ctx, q, each)
	}
	in.Tasks = func(ids []int64) ([]models.LedgerTask, error) { return src.LedgerTasks(ctx, ids) }
	replicas, err := src.ServiceReplicas(ctx, q)
	if err != nil {
		return Input{}, err
	}
	if in.Serving, err = loadServing(ctx, src, replicas, from, to); err != nil {
		return Input{}, err
	}
	if r.ProjectID == 0 {
		if in.Nodes, err = src.LedgerNodes(ctx); err != nil {
			return Input{}, err
		}
		if in.Unmanaged, err = src.UnmanagedSpans(ctx, from, to); err != nil {
			return Input{}, err
		}
	}
	if in.Regions, err = src.NodeRegions(ctx); err != nil {
		return Input{}, err
	}
	m := r.Month.String()
	if in.Prices, err = src.Prices(ctx, m); err != nil {
		return Input{}, err
	}
	if in.Plans, err = src.BillingPlans(ctx, m); err != nil {
		return Input{}, err
	}
	if in.Quotas, err = src.Quotas(ctx, r.ProjectID); err != nil {
		return Input{}, err
	}
	if in.Adjustments, err = src.Adjustments(ctx, r.ProjectID, m); err != nil {
		return Input{}, err
	}
	if err := loadBookings(ctx, src, &in, r.ProjectID, from, to); err != nil {
		return Input{}, err
	}
	return in, nil
}

// loadBookings reads the month's reservations (of project, 0 for all) and the pools' rule
// for their unused hours.
func loadBookings(ctx context.Context, src Source, in *Input, project int64, from, to time.Time) error {
	rs, err := src.BilledReservations(ctx, from, to)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if project == 0 || r.ProjectID == project {
			in.Reservations = append(in.Reservations, r)
		}
	}
	if len(in.Reservations) == 0 {
		return nil
	}
	pools, err := src.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	in.UnusedBookingPct = BookingRules(pools)
	return nil
}

// loadServing reads the buckets from since to to in which the services of replicas (task id
// → service id) served, for classing their card time.
func loadServing(ctx context.Context, src Source, replicas map[int64]int64, since, to time.Time) (models.ServiceServing, error) {
	services := slices.Compact(slices.Sorted(maps.Values(replicas)))
	served, err := src.ServedBuckets(ctx, services, since, to)
	if err != nil {
		return models.ServiceServing{}, err
	}
	return models.ServiceServing{Replicas: replicas, Served: served}, nil
}

// readingsOf are the rollups of gpus from since to to, read from src when Compute asks.
func readingsOf(ctx context.Context, src Source, gpus []int64, since, to time.Time) Readings {
	return func(each func(int64, []models.GPURollup) error) error {
		return src.LedgerReadings(ctx, gpus, since, to, each)
	}
}

// ledgerKeys returns the distinct tasks and GPUs of allocations and their earliest start
// (from at the latest).
func ledgerKeys(as []models.LedgerAllocation, from int64) (tasks, gpus []int64, since int64) {
	seenGPU := map[int64]bool{}
	since = from
	var last int64
	for _, a := range as {
		if a.TaskID != last { // a task's allocations come together; duplicates are harmless
			tasks = append(tasks, a.TaskID)
			last = a.TaskID
		}
		if !seenGPU[a.GPUID] {
			seenGPU[a.GPUID] = true
			gpus = append(gpus, a.GPUID)
		}
		since = min(since, a.Start)
	}
	return slices.Compact(slices.Sorted(slices.Values(tasks))), gpus, since
}

// Location is the billing time zone the settings name.
func Location(ctx context.Context, src Source) (*time.Location, error) {
	bs, err := src.BillingSettings(ctx)
	if err != nil {
		return nil, err
	}
	return locationOf(bs)
}

// locationOf is the zone bs names.
func locationOf(bs models.BillingSettings) (*time.Location, error) {
	loc, err := time.LoadLocation(bs.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("billing: time zone %q: %w", bs.TimeZone, err)
	}
	return loc, nil
}

// CheckMonth parses month and refuses a month that has not begun by now; errors are
// *models.FieldError on "month".
func CheckMonth(month string, loc *time.Location, now time.Time) (Month, error) {
	m, err := ParseMonth(month)
	if err != nil {
		return Month{}, &models.FieldError{Field: "month", Msg: "must be a month as YYYY-MM"}
	}
	if from, _ := m.Bounds(loc); from.After(now) {
		return Month{}, &models.FieldError{Field: "month", Msg: month + " is in the future"}
	}
	return m, nil
}

// EndedMonth is CheckMonth for a month that may be issued: one that has ended by now.
func EndedMonth(month string, loc *time.Location, now time.Time) (Month, error) {
	m, err := CheckMonth(month, loc, now)
	if err != nil {
		return Month{}, err
	}
	if _, to := m.Bounds(loc); to.After(now) {
		return Month{}, &models.FieldError{Field: "month", Msg: month + " has not ended yet; a month is issued after it ends"}
	}
	return m, nil
}

// ProjectBill is the bill a page or download shows for a project and month: the issued one
// if the month is issued, else computed now (a preview while the month runs).
func ProjectBill(ctx context.Context, src Source, projectID int64, month string, now time.Time) (Bill, error) {
	loc, err := Location(ctx, src)
	if err != nil {
		return Bill{}, err
	}
	m, err := CheckMonth(month, loc, now)
	if err != nil {
		return Bill{}, err
	}
	ib, err := src.IssuedBillOf(ctx, projectID, m.String())
	if err == nil {
		return Frozen(ib)
	}
	if !errors.Is(err, models.ErrNotFound) {
		return Bill{}, err
	}
	in, err := Load(ctx, src, Request{Month: m, ProjectID: projectID, AsOf: now})
	if err != nil {
		return Bill{}, err
	}
	res, err := Compute(in)
	if err != nil {
		return Bill{}, err
	}
	return res.Bills[0], nil
}

// MonthBills is every project's bill of a month, issued ones as frozen and the others
// computed now, by the project names they show (ByProject), with the month's pool idle.
//
// Once bills of the month are issued, the ledger is read first without the GPUs' rollups
// (Request.HeldOnly): pool idle counts held time only, and an issued bill is its frozen body,
// so a month whose every bill with card time is issued never reads its millions of rollups.
// When a bill with lines is not issued, the month is read again with them.
func MonthBills(ctx context.Context, src Source, month string, now time.Time) (Result, error) {
	loc, err := Location(ctx, src)
	if err != nil {
		return Result{}, err
	}
	m, err := CheckMonth(month, loc, now)
	if err != nil {
		return Result{}, err
	}
	issued, err := src.IssuedBills(ctx, m.String())
	if err != nil {
		return Result{}, err
	}
	frozen := make(map[int64]models.IssuedBill, len(issued))
	for _, ib := range issued {
		frozen[ib.ProjectID] = ib
	}
	compute := func(heldOnly bool) (Result, error) {
		in, err := Load(ctx, src, Request{Month: m, AsOf: now, HeldOnly: heldOnly})
		if err != nil {
			return Result{}, err
		}
		return Compute(in)
	}
	res, err := compute(len(frozen) > 0)
	if err != nil {
		return Result{}, err
	}
	if len(frozen) > 0 && slices.ContainsFunc(res.Bills, func(b Bill) bool { _, ok := frozen[b.ProjectID]; return !ok && len(b.Lines) > 0 }) {
		if res, err = compute(false); err != nil {
			return Result{}, err
		}
	}
	for i, b := range res.Bills {
		if ib, ok := frozen[b.ProjectID]; ok {
			if res.Bills[i], err = Frozen(ib); err != nil {
				return Result{}, err
			}
		}
	}
	slices.SortStableFunc(res.Bills, ByProject)
	return res, nil
}

// ByProject orders bills by the project names they show (an issued bill's as of its issue),
// then by project id.
func ByProject(a, b Bill) int {
	return cmp.Or(strings.Compare(a.Project, b.Project), cmp.Compare(a.ProjectID, b.ProjectID))
}

// Issue computes a project's bill of an ended month and freezes it. A bad, future or
// unfinished month, or a spec without a price, is a *models.FieldError; a month already
// issued is models.ErrConflict; nothing changes on error.
func Issue(ctx context.Context, st Issuer, projectID int64, month, by string, now time.Time) (Bill, error) {
	loc, err := Location(ctx, st)
	if err != nil {
		return Bill{}, err
	}
	m, err := EndedMonth(month, loc, now)
	if err != nil {
		return Bill{}, err
	}
	if _, err := st.IssuedBillOf(ctx, projectID, m.String()); err == nil {
		return Bill{}, fmt.Errorf("billing: %s of project %d is already issued: %w", m, projectID, models.ErrConflict)
	} else if !errors.Is(err, models.ErrNotFound) {
		return Bill{}, err
	}
	in, err := Load(ctx, st, Request{Month: m, ProjectID: projectID, AsOf: now})
	if err != nil {
		return Bill{}, err
	}
	res, err := Compute(in)
	if err != nil {
		return Bill{}, err
	}
	b := res.Bills[0]
	if len(b.MissingPrices) > 0 {
		return Bill{}, &models.FieldError{Field: "prices", Msg: "no price for " + strings.Join(b.MissingPrices, ", ")}
	}
	ib, err := Freeze(b, by)
	if err != nil {
		return Bill{}, err
	}
	if ib, err = st.IssueBill(ctx, ib, now); err != nil {
		return Bill{}, err
	}
	return Frozen(ib)
}
