package bills

import (
	"strings"
	"testing"

	"kashi/phrase"
	"kashi/views/viewstest"
)

// The bill's models table shows each service's idle card-hours beside its effective ones, in
// both languages.
func TestBillModelsIdle(t *testing.T) {
	ms := []BillModel{{ServiceID: 7, Service: "chat", Model: "qwen2.5-7b", NominalS: 7200, EffectiveS: 600, IdleS: 6600, AmountFen: 2000}}
	for l, header := range map[phrase.Locale]string{viewstest.En: "Idle", viewstest.Zh: "闲置时长"} {
		doc := viewstest.Parse(t, viewstest.Render(t, billModels(l, ms)))
		row := doc.Find(`[data-testid=bill-model][data-service="7"]`)
		if got := strings.TrimSpace(row.Find(`[data-testid=bill-model-idle]`).Text()); got != "1.83" {
			t.Errorf("%s: idle cell = %q, want 1.83", l.Lang, got)
		}
		if got := doc.Find(`[data-testid=bill-models] th`).Eq(4).Text(); got != header {
			t.Errorf("%s: fifth header = %q, want %q", l.Lang, got, header)
		}
	}
}
