package proof

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// calibrateFromHistory runs /calibrate on this deployment's own history for every pool the
// form offers, as an admin does with the form's defaults, and waits for each sweep's table:
// it reports the rows each pool's table has.
func (w *witness) calibrateFromHistory(ctx context.Context) (map[string]int, error) {
	page, err := w.doc(ctx, "admin", "/calibrate")
	if err != nil {
		return nil, err
	}
	form := page.Find(`[data-testid=calibrate-form]`)
	history, _ := form.Find(`input[name=source]`).First().Attr("value")
	days, _ := form.Find(`input[name=days]`).Attr("value")
	sweep, _ := form.Find(`input[name=sweep]`).Attr("value")
	var pools []string
	form.Find(`select[name=pool] option`).Each(func(_ int, s *goquery.Selection) { pools = append(pools, s.AttrOr("value", "")) })
	if len(pools) == 0 {
		return nil, fmt.Errorf("/calibrate offers no pool")
	}
	rows := map[string]int{}
	for _, pool := range pools {
		run, err := w.startCalibration(ctx, map[string]string{"pool": pool, "source": history, "days": days, "sweep": sweep})
		if err != nil {
			return nil, fmt.Errorf("calibrate %s: %w", pool, err)
		}
		if rows[pool], err = w.calibrationRows(ctx, run); err != nil {
			return nil, fmt.Errorf("calibrate %s: %w", pool, err)
		}
	}
	return rows, nil
}

// startCalibration posts the calibration form and returns the run's page it leads to.
func (w *witness) startCalibration(ctx context.Context, fields map[string]string) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fields["_csrf"] = csrfOf(w.sessions["admin"], w.base)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	mw.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.base+"/calibrate", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	client := *w.sessions["admin"]
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		doc, _ := goquery.NewDocumentFromReader(resp.Body)
		msg := ""
		if doc != nil {
			msg = strings.TrimSpace(doc.Find(`[data-testid=calibrate-error]`).Text())
		}
		return "", fmt.Errorf("POST /calibrate: %s: %s", resp.Status, msg)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return "", err
	}
	return loc.String(), nil
}

// calibrationRows follows a run's page until its progress bar is gone and returns the rows
// of its sweep table.
func (w *witness) calibrationRows(ctx context.Context, run string) (int, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		doc, err := w.doc(ctx, "admin", run)
		if err != nil {
			return 0, err
		}
		if doc.Find(`[data-testid=calibrate-progress]`).Length() == 0 {
			if msg := strings.TrimSpace(doc.Find(`[data-testid=calibrate-error]`).Text()); msg != "" {
				return 0, fmt.Errorf("%s: %s", run, msg)
			}
			return doc.Find(`[data-testid=calibrate-table] [data-testid=calibrate-row]`).Length(), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s still running after 3 minutes", run)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// doc reads a page as user.
func (w *witness) doc(ctx context.Context, user, path string) (*goquery.Document, error) {
	body, err := w.get(ctx, user, path)
	if err != nil {
		return nil, err
	}
	return goquery.NewDocumentFromReader(bytes.NewReader(body))
}
