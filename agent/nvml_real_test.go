package agent

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// realNVML returns the machine's NVML, or skips the test where there is no NVIDIA driver.
// scripts/gpu-check.sh sets KASHI_TEST_REAL_NVML=1, which turns the skip into a failure.
func realNVML(t *testing.T) nvml.Interface {
	t.Helper()
	lib := nvml.New()
	if ret := lib.Init(); ret != nvml.SUCCESS {
		if os.Getenv("KASHI_TEST_REAL_NVML") == "1" {
			t.Fatalf("nvml.Init() = %s, want a driver (KASHI_TEST_REAL_NVML=1)", nvml.ErrorString(ret))
		}
		t.Skipf("no NVIDIA driver: %s", nvml.ErrorString(ret))
	}
	lib.Shutdown()
	return lib
}

func TestRealNVMLCollector(t *testing.T) {
	lib := realNVML(t)
	c := NewCollector(lib)
	if err := c.Init(); err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	gpus, err := c.GPUs()
	if err != nil || len(gpus) == 0 {
		t.Fatalf("GPUs() = %d GPUs, %v; want at least one", len(gpus), err)
	}
	samples, err := c.Read(time.Now())
	if err != nil || len(samples) != len(gpus) {
		t.Fatalf("Read() = %d samples, %v; want %d", len(samples), err, len(gpus))
	}
	for i, s := range samples {
		switch {
		case s.UUID != gpus[i].UUID:
			t.Errorf("sample %d is of %s, want %s", i, s.UUID, gpus[i].UUID)
		case s.MemoryUsedMiB < 0 || s.MemoryUsedMiB > gpus[i].MemoryTotalMiB:
			t.Errorf("GPU %d uses %d of %d MiB", i, s.MemoryUsedMiB, gpus[i].MemoryTotalMiB)
		case s.UtilPct < 0 || s.UtilPct > 100, s.TempC <= 0 || s.TempC > 130, s.PowerW <= 0 || s.PowerW > 2000:
			t.Errorf("GPU %d reads util %d%%, %d°C, %d W: out of range", i, s.UtilPct, s.TempC, s.PowerW)
		}
	}
}

func TestRealNVMLPrintOnce(t *testing.T) {
	lib := realNVML(t)
	var out bytes.Buffer
	if err := PrintOnce(&out, lib, time.Now()); err != nil {
		t.Fatalf("PrintOnce() = %v\n%s", err, out.String())
	}
	t.Logf("\n%s", out.String())
}
