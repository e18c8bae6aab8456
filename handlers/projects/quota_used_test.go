package projects_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"kashi/web/webtest"
)

// TestQuotaSaveAnswersUse: saving a quota answers the card-hours its project used this
// month, as the project list does, not 0.
func TestQuotaSaveAnswersUse(t *testing.T) {
	w := webtest.NewBillWorld(t)
	nlp, _ := w.Store.ProjectByName(context.Background(), "nlp")
	w.Run(t, webtest.Task("march").Of("nlp").Ready(), webtest.T0.Add(-3*time.Hour), 2*time.Hour, 0, nil, 3)
	body := `{"spec": "A100-80G", "max_gpus": 2, "budget_card_hours": 100, "starts_at": "2026-01-01T00:00:00Z",
		"ends_at": "2027-01-01T00:00:00Z"}`
	r := w.Post("/api/v1/projects/"+strconv.FormatInt(nlp.ID, 10)+"/quotas", body)
	if r.Code != http.StatusOK {
		t.Fatalf("POST quota = %d %s", r.Code, r.Body)
	}
	var saved struct {
		UsedCardHours float64 `json:"used_card_hours"`
	}
	if err := json.Unmarshal(r.Body.Bytes(), &saved); err != nil {
		t.Fatal(err)
	}
	var projects []struct {
		Name   string
		Quotas []struct {
			UsedCardHours float64 `json:"used_card_hours"`
		}
	}
	if err := json.Unmarshal(w.Get("/api/v1/projects", webtest.Bearer(w.Token)...).Body.Bytes(), &projects); err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		if p.Name == "nlp" && (len(p.Quotas) != 1 || p.Quotas[0].UsedCardHours != saved.UsedCardHours) {
			t.Errorf("project list: nlp quotas %+v, saved answer %v", p.Quotas, saved.UsedCardHours)
		}
	}
	if saved.UsedCardHours != 2 {
		t.Errorf("saved quota answers used_card_hours %v, want 2", saved.UsedCardHours)
	}
}
