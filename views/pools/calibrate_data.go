package pools

// CalibrateData is the calibration page: the form, and a run when one is shown.
type CalibrateData struct {
	// Pools are the pools that scale (their names), the choices of the form.
	Pools []string
	Form  CalibrateForm
	// Error is a problem of the form or the run, in the page's language; "" for none.
	Error string
	Run   *CalibrateRun
}

// CalibrateForm is what the admin asked for: a pool, a trace (an uploaded file or this
// deployment's last Days of history) and the settings to sweep.
type CalibrateForm struct {
	Pool   string
	Source string // CalibrateUpload or CalibrateHistory
	Days   int
	Sweep  string
}

// Trace sources of the form.
const (
	CalibrateUpload  = "upload"
	CalibrateHistory = "history"
)

// CalibrateRun is a sweep in the background or finished.
type CalibrateRun struct {
	ID         int64
	Pool       string
	Jobs       int
	Done, Of   int
	Finished   bool
	Error      string
	Rows       []CalibrateRow
	PricedNote bool // the pool's spec has no price: costs are 0
}

// CalibrateRow is one setting's outcome.
type CalibrateRow struct {
	Setting   string
	CostFen   int64
	IdleH     float64
	MeanWaitS float64
	P95WaitS  float64
	MaxWaitS  int64
}
