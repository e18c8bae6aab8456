package agent

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// replicaPages are the service replicas this agent runs and does not stop, by id, that have
// a page at url(t) (empty for none), with those pages.
func (a *Agent) replicaPages(url func(*task) string) (ids []int64, urls []string) {
	for _, id := range slices.Sorted(maps.Keys(a.tasks)) {
		if t := a.tasks[id]; !t.stopping {
			if u := url(t); u != "" {
				ids, urls = append(ids, id), append(urls, u)
			}
		}
	}
	return ids, urls
}

// askPages calls get for each of urls at once, each within half a sample interval (at least
// a second), so that a hung server delays a tick by that at most. It returns at once; wait
// waits for the answers and gives them in the order of urls.
func askPages[T any](ctx context.Context, sampleInterval time.Duration, urls []string, get func(ctx context.Context, url string) T) (wait func() []T) {
	out := make([]T, len(urls))
	var wg sync.WaitGroup
	for i, url := range urls {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, max(sampleInterval/2, time.Second))
			defer cancel()
			out[i] = get(ctx, url)
		})
	}
	return func() []T {
		wg.Wait()
		return out
	}
}
