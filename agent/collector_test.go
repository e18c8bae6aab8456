package agent

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// newMockNVML returns a dgxa100 mock of n A100-40GB whose GPU i reads 1000+i MiB used,
// 50+i % utilization, 40+i °C, 200+i W and one process with pid 100+i using 900 MiB.
func newMockNVML(n int) *dgxa100.Server {
	s := dgxa100.NewWithGPUs(gpus.Multiple(n, gpus.A100_SXM4_40GB)...)
	for i, d := range s.Devices {
		dev := d.(*server.Device)
		dev.MemoryInfo.Used = uint64(1000+i) * mib
		dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{Gpu: uint32(50 + i)}, nvml.SUCCESS
		}
		dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
			return uint32(40 + i), nvml.SUCCESS
		}
		dev.GetPowerUsageFunc = func() (uint32, nvml.Return) {
			return uint32(200+i)*1000 + 999, nvml.SUCCESS
		}
		dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
			return []nvml.ProcessInfo{{Pid: uint32(100 + i), UsedGpuMemory: 900 * mib}}, nvml.SUCCESS
		}
		dev.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
			return nil, nvml.ERROR_NOT_SUPPORTED // as on most data-centre GPUs
		}
	}
	return s
}

// device returns the mock's GPU i.
func device(s *dgxa100.Server, i int) *server.Device {
	return s.Devices[i].(*server.Device)
}

// wantSample is the sample newMockNVML's GPU i gives at ts.
func wantSample(s *dgxa100.Server, i int, ts time.Time) api.Sample {
	return api.Sample{
		UUID: device(s, i).UUID, TS: ts, MemoryUsedMiB: int64(1000 + i), UtilPct: 50 + i, TempC: 40 + i, PowerW: 200 + i,
		Processes: []api.Process{{PID: uint32(100 + i), UsedMemoryMiB: 900}},
	}
}

func TestCollectorGPUsAndRead(t *testing.T) {
	s := newMockNVML(8)
	c := NewCollector(s)
	if err := c.Init(); err != nil {
		t.Fatalf("Init() = %v", err)
	}
	defer c.Shutdown()

	infos, err := c.GPUs()
	if err != nil {
		t.Fatalf("GPUs() = %v", err)
	}
	var wantInfos []api.GPUInfo
	var wantSamples []api.Sample
	for i := range 8 {
		wantInfos = append(wantInfos, api.GPUInfo{UUID: device(s, i).UUID, Index: i, Name: gpus.A100_SXM4_40GB.Name, MemoryTotalMiB: 40960})
		wantSamples = append(wantSamples, wantSample(s, i, t0))
	}
	if diff := cmp.Diff(wantInfos, infos); diff != "" {
		t.Errorf("GPUs() (-want +got):\n%s", diff)
	}
	samples, err := c.Read(t0)
	if err != nil {
		t.Fatalf("Read() = %v", err)
	}
	if diff := cmp.Diff(wantSamples, samples); diff != "" {
		t.Errorf("Read() (-want +got):\n%s", diff)
	}
}

func TestCollectorReadFailures(t *testing.T) {
	tests := map[string]struct {
		// breakGPU1 changes GPU 1 of a 3-GPU mock.
		breakGPU1 func(d *server.Device)
		// want1 is GPU 1's sample, or nil when it is left out.
		want1   func(s api.Sample) *api.Sample
		wantErr nvml.Return
	}{
		"temperature not supported counts as 0": {
			breakGPU1: func(d *server.Device) {
				d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
			},
			want1: func(s api.Sample) *api.Sample { s.TempC = 0; return &s },
		},
		"power and processes not supported count as 0": {
			breakGPU1: func(d *server.Device) {
				d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
				d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
			},
			want1: func(s api.Sample) *api.Sample { s.PowerW, s.Processes = 0, nil; return &s },
		},
		"process memory not available counts as 0": {
			breakGPU1: func(d *server.Device) {
				d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
					return []nvml.ProcessInfo{{Pid: 101, UsedGpuMemory: math.MaxUint64}}, nvml.SUCCESS
				}
			},
			want1: func(s api.Sample) *api.Sample { s.Processes[0].UsedMemoryMiB = 0; return &s },
		},
		"memory failure leaves the GPU out": {
			breakGPU1: func(d *server.Device) {
				d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) { return nvml.Memory{}, nvml.ERROR_UNKNOWN }
			},
			want1:   func(api.Sample) *api.Sample { return nil },
			wantErr: nvml.ERROR_UNKNOWN,
		},
		"lost GPU leaves the GPU out": {
			breakGPU1: func(d *server.Device) {
				d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{}, nvml.ERROR_GPU_IS_LOST }
			},
			want1:   func(api.Sample) *api.Sample { return nil },
			wantErr: nvml.ERROR_GPU_IS_LOST,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := newMockNVML(3)
			tc.breakGPU1(device(s, 1))
			want := []api.Sample{wantSample(s, 0, t0)}
			if s1 := tc.want1(wantSample(s, 1, t0)); s1 != nil {
				want = append(want, *s1)
			}
			want = append(want, wantSample(s, 2, t0))

			got, err := NewCollector(s).Read(t0)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Read() (-want +got):\n%s", diff)
			}
			if tc.wantErr == nvml.SUCCESS {
				if err != nil {
					t.Errorf("Read() error = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "agent: gpu 1:") {
				t.Errorf("Read() error = %v, want one wrapping %v for gpu 1", err, tc.wantErr)
			}
		})
	}
}

func TestCollectorInitFailure(t *testing.T) {
	s := newMockNVML(1)
	s.InitFunc = func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }
	err := NewCollector(s).Init()
	if err == nil || !strings.Contains(err.Error(), "ERROR_DRIVER_NOT_LOADED") {
		t.Errorf("Init() = %v, want an error naming ERROR_DRIVER_NOT_LOADED", err)
	}
}
