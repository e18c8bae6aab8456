package bills_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/billing"
	"kashi/models"
	"kashi/web/webtest"
)

// stoppedWorld is the bill world with two more nlp tasks on card 3 on 13 February, both idle
// for two hours: "idler", reclaimed for idleness, and "dropper", released by its owner
// through the API.
func stoppedWorld(t *testing.T) (webtest.BillWorld, models.Task, models.Task) {
	t.Helper()
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	idler := w.RunStopped(t, webtest.Task("idler").Of("nlp").Ready(), webtest.Feb(13, 0), 2*time.Hour, 0, map[int]int{3: 0}, func(id int64) {
		if err := w.Store.ReclaimTask(ctx, id, "idle for 2h: reclaimed", webtest.Feb(13, 2)); err != nil {
			t.Fatal(err)
		}
	}, 3)
	dropper := w.RunStopped(t, webtest.Task("dropper").Of("nlp").Ready(), webtest.Feb(13, 4), 2*time.Hour, 0, map[int]int{3: 0}, func(id int64) {
		r := w.Post("/api/v1/tasks/"+strconv.FormatInt(id, 10)+"/release", "", webtest.Bearer(w.Token)...)
		if r.Code != http.StatusOK {
			t.Fatalf("POST release = %d %s", r.Code, r.Body)
		}
	}, 3)
	if err := w.Store.RollUp(ctx, webtest.T0, 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	return w, idler, dropper
}

// lineOf is the bill's line of task id.
func lineOf(t *testing.T, b billing.Bill, id int64) billing.Line {
	t.Helper()
	for _, l := range b.Lines {
		if l.TaskID == id {
			return l
		}
	}
	t.Fatalf("bill %s has no line of task %d: %+v", b.Project, id, b.Lines)
	return billing.Line{}
}

// TestReclaimedTasksKeepTheirIdleHours: the idle hours of a task reclaimed for idleness or
// released by its owner stay idle hours in the bill, its idle section and the weekly
// report's most idle tasks; how each ended is its own column, and their work is wasted.
func TestReclaimedTasksKeepTheirIdleHours(t *testing.T) {
	w, idler, dropper := stoppedWorld(t)
	b := billOf(t, w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth))
	type got struct {
		Ending              string
		Idle, Nominal, Wast int64
	}
	for id, want := range map[int64]got{
		idler.ID:   {models.EndReclaimed, 2 * 3600, 2 * 3600, 2 * 3600},
		dropper.ID: {models.EndReleased, 2 * 3600, 2 * 3600, 2 * 3600},
	} {
		l := lineOf(t, b, id)
		if diff := cmp.Diff(want, got{l.Ending, l.Idle, l.NominalS, l.WastedS}); diff != "" {
			t.Errorf("line of task %d (-want +got):\n%s", id, diff)
		}
	}
	// bert (2 h idle, finished) and the two stopped tasks.
	if b.Held.Idle != 6*3600 || b.WastedS != 4*3600 || len(b.Idle) != 3 {
		t.Errorf("nlp bill: %d s idle, %d s wasted, idle section %+v; want 6 h idle, 4 h wasted, 3 tasks", b.Held.Idle, b.WastedS, b.Idle)
	}

	r := w.As("finance", "/reports.csv?week="+webtest.ReportWeek)
	rows, err := csv.NewReader(bytes.NewReader(r.Body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	endings := map[string]string{}
	for _, row := range rows[1:] {
		if row[0] == "闲置任务 idle-task" {
			endings[row[1]] = row[19]
			if row[1] == "idler" && row[8] != billing.FormatHours(2*3600) {
				t.Errorf("report: idler idle %s h, want 2", row[8])
			}
		}
	}
	want := map[string]string{webtest.BillTaskID: models.EndFinished, "bert": models.EndFinished, "idler": models.EndReclaimed, "dropper": models.EndReleased}
	if diff := cmp.Diff(want, endings); diff != "" {
		t.Errorf("report's most idle tasks and endings (-want +got):\n%s", diff)
	}

	csvBody := w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth+"?format=csv").Body
	rows, err = csv.NewReader(bytes.NewReader(csvBody[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] == "明细 line" && row[5] == "dropper" && row[8] != models.EndReleased {
			t.Errorf("CSV line of dropper ends %q, want released", row[8])
		}
	}
}

// TestBillPreviewIdleHoursStayWhenReclaimed: a running task's idle hours in the month's
// preview do not shrink when the task is then reclaimed.
func TestBillPreviewIdleHoursStayWhenReclaimed(t *testing.T) {
	w := webtest.NewBillWorld(t)
	ctx := context.Background()
	w.SetNow(webtest.Feb(20, 3))
	tk := w.Create(webtest.Task("slacker").Of("nlp").Ready(), webtest.Feb(20, 0))
	w.Place(tk, webtest.Feb(20, 0), webtest.UUIDOf("a100-01", 3))
	var ss []api.Sample
	for m := time.Duration(0); m < 2*time.Hour; m += time.Minute {
		ss = append(ss, webtest.Sample(webtest.UUIDOf("a100-01", 3), webtest.Feb(20, 0).Add(m), 0, 1024))
	}
	if _, err := w.Store.IngestSamples(ctx, w.Node.ID, webtest.Readings(ss), webtest.Feb(20, 2)); err != nil {
		t.Fatal(err)
	}
	if err := w.Store.RollUp(ctx, webtest.Feb(20, 3), 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	before := lineOf(t, billOf(t, w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth)), tk.ID)
	if err := w.Store.ReclaimTask(ctx, tk.ID, "idle for 2h: reclaimed", webtest.Feb(20, 2)); err != nil {
		t.Fatal(err)
	}
	if err := w.Store.ReportTaskStatus(ctx, w.Node.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: webtest.Feb(20, 2)}, webtest.Feb(20, 2)); err != nil {
		t.Fatal(err)
	}
	after := lineOf(t, billOf(t, w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth)), tk.ID)
	if before.Idle < 2*3600 || after.Idle != 2*3600 || after.Ending != models.EndReclaimed {
		t.Errorf("idle before the reclaim %d s, after %d s ending %q; want 2 h kept, reclaimed", before.Idle, after.Idle, after.Ending)
	}
}
