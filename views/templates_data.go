package views

// ReportTemplate is the week's use of one template in the weekly report: the tasks from it
// that held cards, their held and effective card time and its cost (MissingPrice: a spec
// had no price, so the cost is short).
type ReportTemplate struct {
	TemplateID           int64
	Template, Project    string
	Runs                 int
	NominalS, EffectiveS int64
	CostFen              int64
	MissingPrice         bool
}
