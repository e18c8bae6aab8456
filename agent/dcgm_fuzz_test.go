package agent

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"kashi/api"
)

// FuzzDCGMPage: any page either is refused with an error, or yields GPUs with UUIDs in index
// order whose samples the server accepts; a GPU left out is named in the error.
func FuzzDCGMPage(f *testing.F) {
	for _, name := range []string{"dcgm-exporter.txt", "dcgm-exporter-mig.txt", "dcgm-exporter-old-namespace.txt"} {
		page, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(page)
	}
	gpu := func(series, value string) string {
		return "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\"} 1000\nDCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-a\"} 1000\n" +
			"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"} 40\n" + series + "{gpu=\"0\",UUID=\"GPU-a\"} " + value + "\n"
	}
	for _, s := range []string{
		gpu("DCGM_FI_DEV_GPU_TEMP", "NaN"), gpu("DCGM_FI_DEV_GPU_TEMP", "1e300"), gpu("DCGM_FI_DEV_POWER_USAGE", "-1"),
		gpu("DCGM_FI_DEV_POWER_USAGE", "+Inf"), gpu("DCGM_FI_DEV_POWER_USAGE", "4999.6"), gpu("DCGM_FI_DEV_GPU_UTIL", "100.5"),
		gpu("DCGM_FI_DEV_FB_USED", "-Inf"), gpu("DCGM_FI_DEV_FB_FREE", "9.3e18"), gpu("DCGM_FI_DEV_GPU_UTIL", "-0"),
		"DCGM_FI_DEV_FB_USED{gpu=\"x\",UUID=\"GPU-b\"} 1\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-b\"} 1\n",
		"DCGM_FI_DEV_FB_USED{gpu=\"1\"} 1\n", "# TYPE DCGM_FI_DEV_FB_USED counter\nDCGM_FI_DEV_FB_USED{UUID=\"GPU-c\"} 1\n",
		"DCGM_FI_DEV_FB_USED{UUID=\"\xff\"} 1\n", "up 1\n", "", "<html>",
		"DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",GPU_I_ID=\"1\"} 1\nDCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",GPU_I_ID=\"1\"} 1.5\n",
		"dcgm_fb_used{gpu=\"0\",uuid=\"GPU-a\"} 1\ndcgm_gpu_utilization{gpu=\"0\",uuid=\"GPU-a\"} 1\ndcgm_xid_errors{gpu=\"0\",uuid=\"GPU-a\"} -1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		gpus, err := parseDCGM(bytes.NewReader(page))
		if err != nil {
			return
		}
		for i, g := range gpus {
			if g.info.UUID == "" || i > 0 && gpus[i-1].info.Index > g.info.Index {
				t.Fatalf("parseDCGM = GPU %d %+v after %+v", i, g.info, gpus[max(i-1, 0)].info)
			}
		}
		samples, err := dcgmSamples(gpus, t0)
		sent := map[string]bool{}
		for _, s := range samples {
			sent[s.UUID] = true
			if s.MemoryUsedMiB < 0 || s.UtilPct < 0 || s.UtilPct > 100 || s.TempC < -40 || s.TempC > 150 || s.PowerW < 0 || s.PowerW > 5000 || s.XID < 0 || s.XID > api.MaxXID {
				t.Fatalf("dcgmSamples = %+v, which the server refuses", s)
			}
		}
		for _, g := range gpus {
			if !sent[g.info.UUID] && (err == nil || !strings.Contains(err.Error(), g.info.UUID)) {
				t.Fatalf("dcgmSamples left out %s without naming it (error %v)", g.info.UUID, err)
			}
		}
	})
}
