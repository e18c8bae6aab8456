package metrics

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// BuildInfo returns kashi_build_info, always 1, labelled with Kashi's version, the Go
// version it was built with and the commit it was built from (empty when the build did not
// record one), so that dashboards can tell replicas and upgrades apart.
func BuildInfo(version string) prometheus.Collector {
	revision := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "kashi_build_info",
		Help:        "Always 1; its labels name the running Kashi's version, Go version and commit.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version(), "revision": revision}})
	g.Set(1)
	return g
}
