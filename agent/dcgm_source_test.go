package agent

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// serveDCGM serves page as a dcgm-exporter would.
func serveDCGM(t *testing.T, page string) *DCGMSource {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	return &DCGMSource{URL: srv.URL + "/metrics"}
}

func TestDCGMSourceReadsExporterPage(t *testing.T) {
	page, err := os.ReadFile("testdata/dcgm-exporter.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := serveDCGM(t, string(page))
	if err := d.Init(); err != nil {
		t.Fatal(err)
	}
	gpus, err := d.GPUs()
	if err != nil {
		t.Fatal(err)
	}
	wantGPUs := []api.GPUInfo{
		{UUID: "GPU-4b1c5f2e-8a51-3c1f-b3e4-0d7e4f1a2b01", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81037},
		{UUID: "GPU-9e0d7c41-2f6b-11ee-a4d2-3c8f19a2b102", Index: 1, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81037},
		{UUID: "GPU-17a2f3c8-5d9e-4b0a-8c61-7e2d5f3a1c03", Index: 2, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81037},
		{UUID: "GPU-c3d4e5f6-0718-293a-4b5c-6d7e8f901204", Index: 3, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81037},
	}
	if diff := cmp.Diff(wantGPUs, gpus); diff != "" {
		t.Errorf("GPUs() (-want +got):\n%s", diff)
	}
	samples, err := d.Read(t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Sample{
		{UUID: wantGPUs[0].UUID, TS: t0, MemoryUsedMiB: 70016, UtilPct: 97, TempC: 52, PowerW: 312},
		{UUID: wantGPUs[1].UUID, TS: t0, MemoryUsedMiB: 77633, UtilPct: 100, TempC: 55, PowerW: 356},
		{UUID: wantGPUs[2].UUID, TS: t0, MemoryUsedMiB: 453, UtilPct: 0, TempC: 31, PowerW: 61},
		{UUID: wantGPUs[3].UUID, TS: t0, MemoryUsedMiB: 61860, UtilPct: 88, TempC: 50, PowerW: 298},
	}
	if diff := cmp.Diff(want, samples); diff != "" {
		t.Errorf("Read() (-want +got):\n%s", diff)
	}
}

// TestDCGMSourceReadPlaced: each sample comes with its GPU's place on the page: the
// exporter's Hostname, the gpu label, and the pod and namespace holding it ("" for none).
func TestDCGMSourceReadPlaced(t *testing.T) {
	page, err := os.ReadFile("testdata/dcgm-exporter.txt")
	if err != nil {
		t.Fatal(err)
	}
	placed, err := serveDCGM(t, string(page)).ReadPlaced(t0)
	if err != nil {
		t.Fatal(err)
	}
	type place struct {
		Host           string
		GPU, Util      int
		Pod, Namespace string
	}
	got := make([]place, len(placed))
	for i, p := range placed {
		got[i] = place{p.Hostname, p.GPU, p.UtilPct, p.Pod, p.Namespace}
	}
	want := []place{{"dgx-a100-03", 0, 97, "", ""}, {"dgx-a100-03", 1, 100, "resnet-7f9c", "ml"},
		{"dgx-a100-03", 2, 0, "", ""}, {"dgx-a100-03", 3, 88, "", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadPlaced() (-want +got):\n%s", diff)
	}
}

func TestDCGMSourceMissingSeries(t *testing.T) {
	page := `# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3"} 1000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b",modelName="NVIDIA H100 80GB HBM3"} 2000
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3"} 40
`
	samples, err := serveDCGM(t, page).Read(t0)
	if len(samples) != 1 || samples[0].UUID != "GPU-a" || samples[0].UtilPct != 40 {
		t.Errorf("Read() = %+v, want GPU-a only", samples)
	}
	if err == nil || !strings.Contains(err.Error(), "GPU-b") {
		t.Errorf("Read() error = %v, want one naming GPU-b", err)
	}
}

func TestDCGMSourceBadPages(t *testing.T) {
	for name, page := range map[string]string{
		"no GPUs":  "# TYPE up gauge\nup 1\n",
		"not text": "<html>login</html>",
	} {
		t.Run(name, func(t *testing.T) {
			if err := serveDCGM(t, page).Init(); err == nil {
				t.Error("Init() = nil, want an error")
			}
		})
	}
}

// A page without TYPE lines (untyped series) is read by its values, not as zeros; a reading
// the server would refuse leaves its GPU out with an error naming the series.
func TestDCGMSourceUntypedAndOutOfRange(t *testing.T) {
	page := `DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a"} 1000
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 40
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b"} 1000
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b"} 40
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b"} NaN
`
	samples, err := serveDCGM(t, page).Read(t0)
	want := []api.Sample{{UUID: "GPU-a", TS: t0, MemoryUsedMiB: 1000, UtilPct: 40}}
	if diff := cmp.Diff(want, samples); diff != "" {
		t.Errorf("Read() (-want +got):\n%s", diff)
	}
	if err == nil || !strings.Contains(err.Error(), "GPU-b") || !strings.Contains(err.Error(), "DCGM_FI_DEV_GPU_TEMP") {
		t.Errorf("Read() error = %v, want one naming GPU-b's DCGM_FI_DEV_GPU_TEMP", err)
	}
}

// readDCGMFixture serves a page of testdata as dcgm-exporter would.
func readDCGMFixture(t *testing.T, name string) *DCGMSource {
	t.Helper()
	page, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return serveDCGM(t, string(page))
}

// The MIG page follows dcgm-exporter's own template (internal/pkg/rendermetrics/
// render_metrics.go: a MIG instance's series carry its parent's UUID with GPU_I_PROFILE and
// GPU_I_ID) and its etc/default-counters.csv (DCGM_FI_DEV_FB_RESERVED, DCGM_FI_DEV_XID_ERRORS
// with err_code and err_msg, DCGM_FI_PROF_GR_ENGINE_ACTIVE). Each instance is a GPU of its
// own, the total memory counts the reserved MiB, and an XID rides on the sample.
func TestDCGMSourceMIGReservedAndXID(t *testing.T) {
	d := readDCGMFixture(t, "dcgm-exporter-mig.txt")
	gpus, err := d.GPUs()
	if err != nil {
		t.Fatal(err)
	}
	const parent, whole = "GPU-5a7f1c2e-3b4d-4e6f-8a9b-0c1d2e3f4a01", "GPU-6b8e2d3f-4c5e-4f70-9bac-1d2e3f4a5b02"
	wantGPUs := []api.GPUInfo{
		{UUID: parent + "/1", Index: 0, Name: "NVIDIA A100-SXM4-80GB MIG 3g.40gb", MemoryTotalMiB: 40449},
		{UUID: parent + "/2", Index: 1, Name: "NVIDIA A100-SXM4-80GB MIG 3g.40gb", MemoryTotalMiB: 40449},
		{UUID: whole, Index: 2, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81037},
	}
	if diff := cmp.Diff(wantGPUs, gpus); diff != "" {
		t.Errorf("GPUs() (-want +got):\n%s", diff)
	}
	samples, err := d.Read(t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Sample{
		{UUID: parent + "/1", TS: t0, MemoryUsedMiB: 10326, UtilPct: 61},
		{UUID: parent + "/2", TS: t0, MemoryUsedMiB: 0, UtilPct: 0},
		{UUID: whole, TS: t0, MemoryUsedMiB: 78137, UtilPct: 100, TempC: 47, PowerW: 287, XID: 79},
	}
	if diff := cmp.Diff(want, samples); diff != "" {
		t.Errorf("Read() (-want +got):\n%s", diff)
	}
	// The exporter shows the last XID until another comes: sent once.
	again, err := d.Read(t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if again[2].XID != 0 {
		t.Errorf("second Read() = XID %d, want 0 (the same XID is sent once)", again[2].XID)
	}
}

// dcgm-exporter --use-old-namespace with etc/1.x-compatibility-metrics.csv names its
// families dcgm_* and its UUID label uuid.
func TestDCGMSourceOldNamespace(t *testing.T) {
	d := readDCGMFixture(t, "dcgm-exporter-old-namespace.txt")
	gpus, err := d.GPUs()
	if err != nil {
		t.Fatal(err)
	}
	const a, b = "GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e100", "GPU-1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f801"
	wantGPUs := []api.GPUInfo{
		{UUID: a, Index: 0, Name: "NVIDIA A800 80GB PCIe", MemoryTotalMiB: 80617},
		{UUID: b, Index: 1, Name: "NVIDIA A800 80GB PCIe", MemoryTotalMiB: 80617},
	}
	if diff := cmp.Diff(wantGPUs, gpus); diff != "" {
		t.Errorf("GPUs() (-want +got):\n%s", diff)
	}
	samples, err := d.Read(t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Sample{
		{UUID: a, TS: t0, MemoryUsedMiB: 4, UtilPct: 0, TempC: 40, PowerW: 71},
		{UUID: b, TS: t0, MemoryUsedMiB: 65596, UtilPct: 93, TempC: 61, PowerW: 403, XID: 48},
	}
	if diff := cmp.Diff(want, samples); diff != "" {
		t.Errorf("Read() (-want +got):\n%s", diff)
	}
}

// A new XID after another is sent; a value that is no XID (DCGM's blank, 9223372036854775794)
// is none, and the GPU's sample goes on.
func TestDCGMSourceXIDChanges(t *testing.T) {
	page := func(xid string) string {
		return `DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a"} 1000
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 40
DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-a",err_code="` + xid + `"} ` + xid + "\n"
	}
	var xids []int
	for _, x := range []string{"0", "0", "31", "31", "43", "0"} {
		s, err := parseDCGM(strings.NewReader(page(x)))
		if err != nil {
			t.Fatal(err)
		}
		samples, err := dcgmSamples(s, t0)
		if err != nil {
			t.Fatal(err)
		}
		xids = append(xids, samples[0].XID)
	}
	d := &DCGMSource{}
	got := make([]int, len(xids))
	for i, x := range xids {
		s := []api.Sample{{UUID: "GPU-a", XID: x}}
		d.newXIDs(s)
		got[i] = s[0].XID
	}
	if diff := cmp.Diff([]int{0, 0, 31, 0, 43, 0}, got); diff != "" {
		t.Errorf("XIDs sent (-want +got):\n%s", diff)
	}
	gpus, err := parseDCGM(strings.NewReader(page("9223372036854775794")))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := dcgmSamples(gpus, t0); err != nil || len(s) != 1 || s[0].XID != 0 {
		t.Errorf("dcgmSamples(blank XID) = %+v, %v; want the sample with no XID", s, err)
	}
}
