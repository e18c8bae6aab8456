package metrics

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves /metrics: public's series to every scrape, and money's too to a scrape that
// sends `Authorization: Bearer <token>`. With token empty no scrape gets money's series.
// The token is compared by its SHA-256 in constant time.
func Handler(public, money prometheus.Gatherer, token string) http.Handler {
	opts := promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}
	open := promhttp.HandlerFor(public, opts)
	if token == "" {
		return open
	}
	all := promhttp.HandlerFor(prometheus.Gatherers{public, money}, opts)
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if ok && subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
			all.ServeHTTP(w, r)
			return
		}
		open.ServeHTTP(w, r)
	})
}
