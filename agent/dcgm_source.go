package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// dcgm-exporter's fields the agent maps, by the UUID label of each series (and GPU_I_ID,
// for a MIG instance).
const (
	dcgmFBUsed     = "DCGM_FI_DEV_FB_USED"     // MiB
	dcgmFBFree     = "DCGM_FI_DEV_FB_FREE"     // MiB
	dcgmFBReserved = "DCGM_FI_DEV_FB_RESERVED" // MiB the driver keeps: part of the total
	dcgmUtil       = "DCGM_FI_DEV_GPU_UTIL"    // %
	dcgmTemp       = "DCGM_FI_DEV_GPU_TEMP"    // °C
	dcgmPower      = "DCGM_FI_DEV_POWER_USAGE" // W
	dcgmXID        = "DCGM_FI_DEV_XID_ERRORS"  // the last XID error's number
	// dcgmGrActive is the ratio (0 to 1) of time the graphics engine was busy: a MIG
	// instance's utilization, as DCGM gives no DCGM_FI_DEV_GPU_UTIL for one.
	dcgmGrActive = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
)

// dcgmNames maps each family name the agent reads to its field: dcgm-exporter's names, and
// those of its 1.x compatibility list (etc/1.x-compatibility-metrics.csv, served with
// --use-old-namespace, whose series carry a lowercase uuid label).
var dcgmNames = map[string]string{
	dcgmFBUsed: dcgmFBUsed, dcgmFBFree: dcgmFBFree, dcgmFBReserved: dcgmFBReserved, dcgmUtil: dcgmUtil,
	dcgmTemp: dcgmTemp, dcgmPower: dcgmPower, dcgmXID: dcgmXID, dcgmGrActive: dcgmGrActive,
	"dcgm_fb_used": dcgmFBUsed, "dcgm_fb_free": dcgmFBFree, "dcgm_gpu_utilization": dcgmUtil,
	"dcgm_gpu_temp": dcgmTemp, "dcgm_power_usage": dcgmPower, "dcgm_xid_errors": dcgmXID,
}

// DCGMSource reads the GPUs from a dcgm-exporter's /metrics page, for fleets that already
// run it. It sees no processes: GPU processes are neither matched nor reported as unmanaged.
//
// A GPU split by MIG is listed by the exporter once per GPU instance, with its parent's
// UUID and a GPU_I_ID label: each instance is a GPU of its own to Kashi, with UUID
// "<parent UUID>/<GPU_I_ID>", the name "<model> MIG <profile>", and, as on any page with an
// instance, an index that is its place in the page's order (by gpu, then GPU_I_ID).
//
// An XID error is sent with the GPU's next sample when the exporter's last XID of the GPU
// changes (the first scrape sends a GPU's last XID too), and the server raises an alert.
type DCGMSource struct {
	// URL is the exporter's metrics page, e.g. http://localhost:9400/metrics.
	URL string
	// HTTP fetches it; nil means a client with a 10 s timeout.
	HTTP *http.Client

	mu      sync.Mutex
	lastXID map[string]int // by UUID: the XID the exporter last showed
}

// dcgmGPU is one GPU's (or MIG instance's) series of a page.
type dcgmGPU struct {
	info   api.GPUInfo
	values map[string]float64
	// gpu and instance are its gpu label and GPU_I_ID (-1 for a whole GPU), its place.
	gpu, instance int
	// host, pod and namespace are its Hostname, pod and namespace labels.
	host, pod, namespace string
}

// Init checks that the exporter answers.
func (d *DCGMSource) Init() error {
	_, err := d.scrape()
	return err
}

// Shutdown does nothing: the exporter runs on its own.
func (d *DCGMSource) Shutdown() {}

// GPUs describes the GPUs the exporter lists, in index order; total memory is used + free +
// reserved.
func (d *DCGMSource) GPUs() ([]api.GPUInfo, error) {
	gpus, err := d.scrape()
	if err != nil {
		return nil, err
	}
	out := make([]api.GPUInfo, len(gpus))
	for i, g := range gpus {
		out[i] = g.info
		out[i].MemoryTotalMiB = int64(g.values[dcgmFBUsed] + g.values[dcgmFBFree] + g.values[dcgmFBReserved])
	}
	return out, nil
}

// Read samples every GPU of one scrape. A GPU without its memory and utilization series, or
// with a reading the server would refuse, is left out with an error naming the series; a
// missing temperature or power reads 0.
func (d *DCGMSource) Read(now time.Time) ([]api.Sample, error) {
	placed, err := d.ReadPlaced(now)
	if placed == nil {
		return nil, err
	}
	samples := make([]api.Sample, len(placed))
	for i, p := range placed {
		samples[i] = p.Sample
	}
	return samples, err
}

// PlacedSample is a sample of one GPU of a dcgm-exporter page with where the page places
// it: the exporter's Hostname label, the GPU's gpu label (its index on that host), and the
// pod, with its namespace, that dcgm-exporter's Kubernetes mapping says holds the GPU (""
// when none does).
type PlacedSample struct {
	api.Sample
	Hostname       string
	GPU            int
	Pod, Namespace string
}

// ReadPlaced is Read with each sample's place, for a reader that maps the exporter's GPUs to
// its own (the Kubernetes backend, where the cluster decides which card a pod gets).
func (d *DCGMSource) ReadPlaced(now time.Time) ([]PlacedSample, error) {
	gpus, err := d.scrape()
	if err != nil {
		return nil, err
	}
	samples, err := dcgmSamples(gpus, now)
	d.newXIDs(samples)
	byUUID := make(map[string]*dcgmGPU, len(gpus))
	for i := range gpus {
		byUUID[gpus[i].info.UUID] = &gpus[i]
	}
	placed := make([]PlacedSample, len(samples))
	for i, s := range samples {
		g := byUUID[s.UUID]
		placed[i] = PlacedSample{Sample: s, Hostname: g.host, GPU: g.gpu, Pod: g.pod, Namespace: g.namespace}
	}
	return placed, err
}

// newXIDs keeps in each sample only an XID that differs from the last one its GPU showed.
func (d *DCGMSource) newXIDs(samples []api.Sample) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lastXID == nil {
		d.lastXID = map[string]int{}
	}
	for i := range samples {
		s := &samples[i]
		last, seen := d.lastXID[s.UUID]
		d.lastXID[s.UUID] = s.XID
		if seen && last == s.XID {
			s.XID = 0
		}
	}
}

// dcgmRanges are the readings the server accepts (models.validateSample checks the same);
// memory is checked against the GPU's total apart.
var dcgmRanges = []struct {
	name   string
	lo, hi float64
}{
	{dcgmFBUsed, 0, math.MaxInt32}, {dcgmFBFree, 0, math.MaxInt32}, {dcgmUtil, 0, 100},
	{dcgmTemp, -40, 150}, {dcgmPower, 0, 5000}, {dcgmFBReserved, 0, math.MaxInt32},
}

// dcgmSamples turns one scrape's GPUs into samples stamped now.
func dcgmSamples(gpus []dcgmGPU, now time.Time) ([]api.Sample, error) {
	var errs []error
	samples := make([]api.Sample, 0, len(gpus))
	for _, g := range gpus {
		if r, ok := g.values[dcgmGrActive]; ok {
			if _, ok := g.values[dcgmUtil]; !ok && r >= 0 && r <= 1 {
				g.values[dcgmUtil] = math.Round(r * 100)
			}
		}
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
		xid := g.values[dcgmXID]
		if !(xid >= 0 && xid <= api.MaxXID) { // DCGM's blank (no value) is a huge number
			xid = 0
		}
		samples = append(samples, api.Sample{UUID: g.info.UUID, TS: now,
			MemoryUsedMiB: int64(g.values[dcgmFBUsed]), UtilPct: int(g.values[dcgmUtil]),
			TempC: int(g.values[dcgmTemp]), PowerW: int(math.Round(g.values[dcgmPower])), XID: int(xid)})
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
	type key struct {
		uuid     string
		instance int
	}
	byKey := map[key]*dcgmGPU{}
	names := make([]string, 0, len(dcgmNames))
	for name := range dcgmNames {
		names = append(names, name)
	}
	slices.Sort(names) // the new namespace's upper-case names first: they win over the old
	for _, name := range names {
		f, field := families[name], dcgmNames[name]
		if f == nil {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := labelMap(m)
			uuid := cmp.Or(labels["UUID"], labels["uuid"])
			if uuid == "" {
				continue
			}
			k := key{uuid, -1}
			if gi, err := strconv.Atoi(labels["GPU_I_ID"]); err == nil && gi >= 0 {
				k.instance = gi
			}
			g := byKey[k]
			if g == nil {
				idx, _ := strconv.Atoi(labels["gpu"])
				g = &dcgmGPU{info: api.GPUInfo{UUID: uuid, Index: idx, Name: labels["modelName"]},
					values: map[string]float64{}, gpu: idx, instance: k.instance,
					host: labels["Hostname"], pod: labels["pod"], namespace: labels["namespace"]}
				if k.instance >= 0 {
					g.info.UUID = uuid + "/" + strconv.Itoa(k.instance)
					g.info.Name = strings.TrimSpace(labels["modelName"] + " MIG " + labels["GPU_I_PROFILE"])
				}
				byKey[k] = g
			}
			if _, ok := g.values[field]; !ok {
				g.values[field] = value(m)
			}
		}
	}
	if len(byKey) == 0 {
		return nil, errors.New("agent: dcgm-exporter page lists no GPU (no series with a UUID label)")
	}
	out := make([]dcgmGPU, 0, len(byKey))
	mig := false
	for _, g := range byKey {
		out = append(out, *g)
		mig = mig || g.instance >= 0
	}
	slices.SortFunc(out, func(a, b dcgmGPU) int {
		return cmp.Or(cmp.Compare(a.gpu, b.gpu), cmp.Compare(a.instance, b.instance), strings.Compare(a.info.UUID, b.info.UUID))
	})
	if mig { // a GPU's instances share its gpu label: each takes its place as its index
		for i := range out {
			out[i].info.Index = i
		}
	}
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
