package pilot

import (
	"context"
	"testing"

	"kashi/billing"
	"kashi/models"
)

// issuedCardTime is the card time held and used on the issued bills of month: of project
// (0: every project's) and on spec ("": every spec's lines), what the changes' periods
// must add up to.
func issuedCardTime(t *testing.T, s *models.Store, month string, project int64, spec string) (held, effective int64) {
	t.Helper()
	issued, err := s.IssuedBills(context.Background(), month)
	if err != nil {
		t.Fatal(err)
	}
	for _, ib := range issued {
		if project != 0 && ib.ProjectID != project {
			continue
		}
		b, err := billing.Frozen(ib)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range b.Lines {
			if spec == "" || l.Spec == spec {
				held, effective = held+l.NominalS, effective+l.EffectiveS
			}
		}
	}
	return held, effective
}
