package agent

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

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
