package agent

import (
	"bytes"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

func TestPrintOnce(t *testing.T) {
	s := newMockNVML(2)
	var out bytes.Buffer
	if err := PrintOnce(&out, s, t0); err != nil {
		t.Fatalf("PrintOnce() = %v", err)
	}
	got := out.String()
	for _, want := range []string{
		"NVIDIA driver 550.54.15, CUDA 12.4, 2 GPUs",
		"INDEX  UUID", device(s, 0).UUID, device(s, 1).UUID, "NVIDIA A100-SXM4-40GB",
		"1000/40960 MiB", "51%", "41°C", "201 W", "101 (900 MiB)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("PrintOnce() output lacks %q:\n%s", want, got)
		}
	}
}

func TestPrintOnceWithoutDriver(t *testing.T) {
	s := newMockNVML(1)
	s.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
	var out bytes.Buffer
	err := PrintOnce(&out, s, t0)
	if err == nil || !strings.Contains(err.Error(), "NVML") || !strings.Contains(err.Error(), "install") {
		t.Errorf("PrintOnce() = %v, want an error naming NVML and how to install the driver", err)
	}
}

func TestPrintOnceListsAFailingGPU(t *testing.T) {
	s := newMockNVML(2)
	device(s, 1).GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{}, nvml.ERROR_GPU_IS_LOST }
	var out bytes.Buffer
	err := PrintOnce(&out, s, t0)
	if err == nil || !strings.Contains(out.String(), "read failed") || !strings.Contains(out.String(), "1000/40960 MiB") {
		t.Errorf("PrintOnce() = %v with\n%s\nwant GPU 0 printed, GPU 1 marked failed, and an error", err, out.String())
	}
}
