package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestReportWindow: samples older than the window are refused; a task status with an old
// time cannot shrink a billed allocation below the window.
func TestReportWindow(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		n1 := nodes["n1"]
		old := webtest.Sample(n1.UUIDs[0], webtest.T0.Add(-30*24*time.Hour), 50, 100)
		w := s.Post(api.PathSamples, webtest.MustJSON(t, api.SamplesRequest{Samples: []api.Sample{old}}), webtest.Bearer(n1.Token)...)
		webtest.WantAPIError(t, "a sample 30 days old", w, http.StatusUnprocessableEntity, "samples[0].ts")
		s.PostSamples(n1.Token, webtest.Sample(n1.UUIDs[0], webtest.T0.Add(-models.MaxReportAge+time.Minute), 50, 100))

		tk := s.Create(webtest.Task("long-run").Ready(), webtest.T0.Add(-72*time.Hour))
		s.Place(tk, webtest.T0.Add(-72*time.Hour), n1.UUIDs[1])
		status := api.PathTaskStatus + webtest.IDStr(tk.ID) + "/status"
		body := `{"state":"exited","exit_code":0,"ts":"` + webtest.T0.Add(-71*time.Hour).Format(time.RFC3339) + `"}`
		if w := s.Post(status, body, webtest.Bearer(n1.Token)...); w.Code != http.StatusOK && w.Code != http.StatusNoContent {
			t.Fatalf("POST %s = %d %s", status, w.Code, w.Body)
		}
		row, err := s.Store.TaskByID(context.Background(), tk.ID)
		if err != nil || row.EndedAt == nil || !row.EndedAt.Equal(webtest.T0.Add(-models.MaxReportAge)) {
			t.Errorf("task ended at %v, %v; want the window's floor %v", row.EndedAt, err, webtest.T0.Add(-models.MaxReportAge))
		}

		// Once February is issued, nothing lands in it, though it is inside the window.
		p, _ := s.Store.ProjectByName(context.Background(), "vision")
		body2 := "{}"
		sum := sha256.Sum256([]byte(body2))
		from, to := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		_, err = s.Store.IssueBill(context.Background(), models.IssuedBill{ProjectID: p.ID, Month: "2026-02", TimeZone: "UTC",
			PeriodStart: from, PeriodEnd: to, Body: body2, SHA256: hex.EncodeToString(sum[:]), IssuedBy: "f"}, webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		inFeb := webtest.Sample(n1.UUIDs[2], to.Add(-time.Hour), 50, 100)
		w = s.Post(api.PathSamples, webtest.MustJSON(t, api.SamplesRequest{Samples: []api.Sample{inFeb}}), webtest.Bearer(n1.Token)...)
		webtest.WantAPIError(t, "a sample in an issued month", w, http.StatusUnprocessableEntity, "samples[0].ts")
	})
}
