package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kashi/api"
)

// Source reads a node's GPUs: the NVML Collector, or a DCGMSource where dcgm-exporter runs.
type Source interface {
	// Init prepares the source; Shutdown releases it.
	Init() error
	Shutdown()
	// GPUs describes every GPU, in index order.
	GPUs() ([]api.GPUInfo, error)
	// Read takes one sample of every GPU stamped now; a GPU that fails is left out and its
	// error joined into the returned one.
	Read(now time.Time) ([]api.Sample, error)
}

var _ Source = (*Collector)(nil)

// dcgm-exporter's fields the agent maps, by the UUID label of each series.
const (
	dcgmFBUsed = "DCGM_FI_DEV_FB_USED"     // MiB
	dcgmFBFree = "DCGM_FI_DEV_FB_FREE"     // MiB
	dcgmUtil   = "DCGM_FI_DEV_GPU_UTIL"    // %
	dcgmTemp   = "DCGM_FI_DEV_GPU_TEMP"    // °C
	dcgmPower  = "DCGM_FI_DEV_POWER_USAGE" // W
)

// DCGMSource reads the GPUs from a dcgm-exporter's /metrics page, for fleets that already
// run it. It sees no processes: GPU processes are neither matched nor reported as unmanaged.
type DCGMSource struct {
	// URL is the exporter's metrics page, e.g. http://localhost:9400/metrics.
	URL string
	// HTTP fetches it; nil means a client with a 10 s timeout.
	HTTP *http.Client
}

// dcgmGPU is one GPU's series of a page.
type dcgmGPU struct {
	info   api.GPUInfo
	values map[string]float64
}

// Init checks that the exporter answers.
func (d *DCGMSource) Init() error {
	_, err := d.scrape()
	return err
}

// Shutdown does nothing: the exporter runs on its own.
func (d *DCGMSource) Shutdown() {}

// GPUs describes the GPUs the exporter lists, in index order; total memory is used + free.
func (d *DCGMSource) GPUs() ([]api.GPUInfo, error) {
	gpus, err := d.scrape()
	if err != nil {
		return nil, err
	}
	out := make([]api.GPUInfo, len(gpus))
	for i, g := range gpus {
		out[i] = g.info
		out[i].MemoryTotalMiB = int64(g.values[dcgmFBUsed] + g.values[dcgmFBFree])
	}
	return out, nil
}

// Read samples every GPU of one scrape. A GPU without its memory and utilization series, or
// with a reading the server would refuse, is left out with an error naming the series; a
// missing temperature or power reads 0.
func (d *DCGMSource) Read(now time.Time) ([]api.Sample, error) {
	gpus, err := d.scrape()
	if err != nil {
		return nil, err
	}
	return dcgmSamples(gpus, now)
}

// dcgmRanges are the readings the server accepts (models.validateSample checks the same);
// memory is checked against the GPU's total apart.
var dcgmRanges = []struct {
	name   string
	lo, hi float64
}{
	{dcgmFBUsed, 0, math.MaxInt32}, {dcgmFBFree, 0, math.MaxInt32}, {dcgmUtil, 0, 100},
	{dcgmTemp, -40, 150}, {dcgmPower, 0, 5000},
}

// dcgmSamples turns one scrape's GPUs into samples stamped now.
func dcgmSamples(gpus []dcgmGPU, now time.Time) ([]api.Sample, error) {
	var errs []error
	samples := make([]api.Sample, 0, len(gpus))
	for _, g := range gpus {
		_, hasMem := g.values[dcgmFBUsed]
		_, hasUtil := g.values[dcgmUtil]
		if !hasMem || !hasUtil {
			errs = append(errs, fmt.Errorf("agent: gpu %d (%s): dcgm-exporter lists no %s or %s", g.info.Index, g.info.UUID, dcgmFBUsed, dcgmUtil))
			continue
		}
		if err := g.checkRanges(); err != nil {
			errs = append(errs, err)
			continue
		}
		samples = append(samples, api.Sample{UUID: g.info.UUID, TS: now,
			MemoryUsedMiB: int64(g.values[dcgmFBUsed]), UtilPct: int(g.values[dcgmUtil]),
			TempC: int(g.values[dcgmTemp]), PowerW: int(math.Round(g.values[dcgmPower]))})
	}
	return samples, errors.Join(errs...)
}

// checkRanges names the first series whose value is not a number in its range.
func (g dcgmGPU) checkRanges() error {
	for _, r := range dcgmRanges {
		v, ok := g.values[r.name]
		if ok && !(v >= r.lo && v <= r.hi) { // NaN fails both
			return fmt.Errorf("agent: gpu %d (%s): dcgm-exporter's %s is %v, outside %v to %v", g.info.Index, g.info.UUID, r.name, v, r.lo, r.hi)
		}
	}
	return nil
}

// scrape fetches and parses the page into GPUs ordered by index.
func (d *DCGMSource) scrape() ([]dcgmGPU, error) {
	hc := d.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: dcgm-exporter %s: %w", d.URL, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("agent: dcgm-exporter %s: %w", d.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("agent: dcgm-exporter %s answered %s", d.URL, resp.Status)
	}
	return parseDCGM(io.LimitReader(resp.Body, 16<<20))
}

// parseDCGM reads a dcgm-exporter page in the Prometheus text format.
func parseDCGM(r io.Reader) ([]dcgmGPU, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("agent: dcgm-exporter page: %w", err)
	}
	byUUID := map[string]*dcgmGPU{}
	for _, name := range []string{dcgmFBUsed, dcgmFBFree, dcgmUtil, dcgmTemp, dcgmPower} {
		f := families[name]
		if f == nil {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := labelMap(m)
			uuid := labels["UUID"]
			if uuid == "" {
				continue
			}
			g := byUUID[uuid]
			if g == nil {
				idx, _ := strconv.Atoi(labels["gpu"])
				g = &dcgmGPU{info: api.GPUInfo{UUID: uuid, Index: idx, Name: labels["modelName"]}, values: map[string]float64{}}
				byUUID[uuid] = g
			}
			g.values[name] = value(m)
		}
	}
	if len(byUUID) == 0 {
		return nil, errors.New("agent: dcgm-exporter page lists no GPU (no series with a UUID label)")
	}
	out := make([]dcgmGPU, 0, len(byUUID))
	for _, g := range byUUID {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b dcgmGPU) int { return a.info.Index - b.info.Index })
	return out, nil
}

// value is a series' value: a gauge as the exporter declares them, or a counter or an
// untyped series (a page without TYPE lines).
func value(m *dto.Metric) float64 {
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	}
	return m.GetUntyped().GetValue()
}

// labelMap returns a series' labels by name.
func labelMap(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
