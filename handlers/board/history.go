package board

import (
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	boardview "kashi/views/board"
)

// Helpers of the GPU and node pages: the range, the rollups as chart points, and the holds.

// history builds the pages' shared part: the chart points of the GPUs gpuIDs together (mean
// utilization, memory and power summed, temperature the hottest card's) and the tasks that
// held them, each task once.
func (h *Handler) history(c echo.Context, gpuIDs []int64, memTotal int64) (boardview.HistoryData, error) {
	r, span, res, err := handlers.HistoryRange(c)
	if err != nil {
		return boardview.HistoryData{}, err
	}
	ctx := c.Request().Context()
	now := h.Now().In(h.Loc())
	d := boardview.HistoryData{Now: now, Range: r, From: now.Add(-span), Step: time.Duration(res) * time.Second,
		MemTotalMiB: memTotal, ActivePct: h.store.Thresholds().ActiveUtilPct}
	rows, err := h.store.GPUHistory(ctx, gpuIDs, res, d.From, now)
	if err != nil {
		return d, err
	}
	d.Points = historyPoints(rows)
	holds, err := h.store.HeldBy(ctx, gpuIDs, d.From, now)
	if err != nil {
		return d, err
	}
	d.Holds = holdViews(holds)
	return d, nil
}

// historyPoints sums rollups (ordered by bucket) bucket by bucket over the cards: the mean
// utilization over the cards that reported, memory and power summed, temperature the
// hottest card's.
func historyPoints(rows []models.GPURollup) []boardview.HistoryPoint {
	var out []boardview.HistoryPoint
	var cards int
	for _, r := range rows {
		if r.N == 0 {
			continue
		}
		if len(out) == 0 || out[len(out)-1].At.Unix() != r.Bucket {
			out = append(out, boardview.HistoryPoint{At: time.Unix(r.Bucket, 0).UTC()})
			cards = 0
		}
		p := &out[len(out)-1]
		fn := float64(r.N)
		cards++
		// Utilization: a running mean over the cards of the bucket.
		p.Util += (float64(r.UtilSum)/fn - p.Util) / float64(cards)
		p.UtilMax = max(p.UtilMax, float64(r.UtilMax))
		p.Mem += float64(r.MemSum) / fn
		p.MemMax += float64(r.MemMax)
		if r.TempMax > 0 || r.PowerMax > 0 {
			p.HasEnv = true
			p.TempC = max(p.TempC, float64(r.TempSum)/fn)
			p.TempMax = max(p.TempMax, float64(r.TempMax))
			p.PowerW += float64(r.PowerSum) / fn
			p.PowerMax += float64(r.PowerMax)
		}
	}
	return out
}

// holdViews merges holds (the latest first) into one row per task: how many cards it held,
// from its first start to its last end (nil while any is held).
func holdViews(holds []models.Holding) []boardview.HoldView {
	var out []boardview.HoldView
	at := map[int64]int{}
	cards := map[[2]int64]bool{}
	for _, hd := range holds {
		i, ok := at[hd.TaskID]
		if !ok {
			i = len(out)
			at[hd.TaskID] = i
			out = append(out, boardview.HoldView{TaskID: hd.TaskID, Task: hd.Task, Project: hd.Project, Owner: hd.Owner,
				From: hd.StartedAt, Until: hd.EndedAt})
		}
		v := &out[i]
		if !cards[[2]int64{hd.TaskID, hd.GPUID}] {
			cards[[2]int64{hd.TaskID, hd.GPUID}] = true
			v.GPUs++
		}
		if hd.StartedAt.Before(v.From) {
			v.From = hd.StartedAt
		}
		if hd.EndedAt == nil || (v.Until != nil && hd.EndedAt.After(*v.Until)) {
			v.Until = hd.EndedAt
		}
	}
	slices.SortStableFunc(out, func(a, b boardview.HoldView) int { return b.From.Compare(a.From) })
	return out
}
