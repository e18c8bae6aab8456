package serving

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Scrape bounds: a model server's page is a few hundred KB; one that is larger or slower is
// refused rather than read partly.
const (
	maxPageBytes  = 16 << 20
	scrapeTimeout = 10 * time.Second
)

// Scrape fetches a model server's metrics page (its /metrics URL) and parses it. It gives up
// after scrapeTimeout or when ctx ends, and refuses a page over maxPageBytes.
func Scrape(ctx context.Context, client *http.Client, url string) ([]Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("serving: scrape %s: %w", url, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("serving: scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("serving: scrape %s answered %s", url, resp.Status)
	}
	page, err := io.ReadAll(io.LimitReader(resp.Body, maxPageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("serving: scrape %s: %w", url, err)
	}
	if len(page) > maxPageBytes {
		return nil, fmt.Errorf("serving: scrape %s: page larger than %d bytes", url, maxPageBytes)
	}
	snaps, err := Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("serving: scrape %s: %w", url, err)
	}
	return snaps, nil
}
