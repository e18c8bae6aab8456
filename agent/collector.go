package agent

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"kashi/api"
)

// mib is one mebibyte in bytes; NVML reports memory in bytes, the protocol in MiB.
const mib = 1 << 20

// Collector reads the node's GPUs through NVML. Real code passes nvml.New(); tests pass
// go-nvml's mocks, and the demo passes a simulated backend.
type Collector struct {
	lib nvml.Interface
}

// NewCollector returns a Collector over lib. Call Init before anything else.
func NewCollector(lib nvml.Interface) *Collector {
	return &Collector{lib: lib}
}

// Init initialises NVML. Without an NVIDIA driver the error says how to install one.
func (c *Collector) Init() error {
	switch ret := c.lib.Init(); ret {
	case nvml.SUCCESS:
		return nil
	case nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED:
		return fmt.Errorf("agent: init nvml: %s: NVML (libnvidia-ml.so.1) comes with the NVIDIA driver, "+
			"which this machine lacks or has not loaded; install it (Debian/Ubuntu: apt install nvidia-driver, "+
			"or the CUDA repository's cuda-drivers; others: https://www.nvidia.com/drivers), reboot, and check with nvidia-smi",
			nvml.ErrorString(ret))
	default:
		return fmt.Errorf("agent: init nvml: %s", nvml.ErrorString(ret))
	}
}

// Shutdown releases NVML. Its result is ignored: there is nothing left to do on failure.
func (c *Collector) Shutdown() {
	c.lib.Shutdown()
}

// GPUs describes every GPU of the node, in NVML index order.
func (c *Collector) GPUs() ([]api.GPUInfo, error) {
	devices, err := c.devices()
	if err != nil {
		return nil, err
	}
	infos := make([]api.GPUInfo, 0, len(devices))
	for i, d := range devices {
		uuid, ret := d.GetUUID()
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("agent: gpu %d: uuid: %w", i, ret)
		}
		name, ret := d.GetName()
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("agent: gpu %d: name: %w", i, ret)
		}
		mem, ret := d.GetMemoryInfo()
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("agent: gpu %d: memory info: %w", i, ret)
		}
		infos = append(infos, api.GPUInfo{UUID: uuid, Index: i, Name: name, MemoryTotalMiB: int64(mem.Total / mib)})
	}
	return infos, nil
}

// Read takes one sample of every GPU, stamped now. A reading the GPU does not support counts
// as 0. A GPU whose reading fails is left out and its error joined into the returned error;
// the other GPUs still report.
func (c *Collector) Read(now time.Time) ([]api.Sample, error) {
	devices, err := c.devices()
	if err != nil {
		return nil, err
	}
	samples := make([]api.Sample, 0, len(devices))
	var errs []error
	for i, d := range devices {
		s, err := readDevice(d, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("agent: gpu %d: %w", i, err))
			continue
		}
		samples = append(samples, s)
	}
	return samples, errors.Join(errs...)
}

// devices returns the handle of every GPU.
func (c *Collector) devices() ([]nvml.Device, error) {
	n, ret := c.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("agent: gpu count: %w", ret)
	}
	devices := make([]nvml.Device, n)
	for i := range devices {
		d, ret := c.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("agent: gpu %d: handle: %w", i, ret)
		}
		devices[i] = d
	}
	return devices, nil
}

// readDevice takes one sample of one GPU.
func readDevice(d nvml.Device, now time.Time) (api.Sample, error) {
	uuid, ret := d.GetUUID()
	if ret != nvml.SUCCESS {
		return api.Sample{}, fmt.Errorf("uuid: %w", ret)
	}
	mem, ret := d.GetMemoryInfo()
	if err := supported("memory info", ret); err != nil {
		return api.Sample{}, err
	}
	util, ret := d.GetUtilizationRates()
	if err := supported("utilization", ret); err != nil {
		return api.Sample{}, err
	}
	temp, ret := d.GetTemperature(nvml.TEMPERATURE_GPU)
	if err := supported("temperature", ret); err != nil {
		return api.Sample{}, err
	}
	powerMW, ret := d.GetPowerUsage()
	if err := supported("power", ret); err != nil {
		return api.Sample{}, err
	}
	procs, ret := d.GetComputeRunningProcesses()
	if err := supported("compute processes", ret); err != nil {
		return api.Sample{}, err
	}
	graphics, ret := d.GetGraphicsRunningProcesses()
	if err := supported("graphics processes", ret); err != nil {
		return api.Sample{}, err
	}
	s := api.Sample{
		UUID:          uuid,
		TS:            now,
		MemoryUsedMiB: int64(mem.Used / mib),
		UtilPct:       int(util.Gpu),
		TempC:         int(temp),
		PowerW:        int(powerMW / 1000),
	}
	seen := make(map[uint32]bool, len(procs))
	for _, p := range append(procs, graphics...) {
		if seen[p.Pid] { // a process doing compute and graphics is listed twice
			continue
		}
		seen[p.Pid] = true
		used := p.UsedGpuMemory
		if used == math.MaxUint64 { // NVML_VALUE_NOT_AVAILABLE, e.g. without permission
			used = 0
		}
		s.Processes = append(s.Processes, api.Process{PID: p.Pid, UsedMemoryMiB: int64(used / mib)})
	}
	return s, nil
}

// supported turns a reading's return code into an error, except SUCCESS and
// ERROR_NOT_SUPPORTED: the caller then uses the zero value the reading returned.
func supported(what string, ret nvml.Return) error {
	if ret == nvml.SUCCESS || ret == nvml.ERROR_NOT_SUPPORTED {
		return nil
	}
	return fmt.Errorf("%s: %w", what, ret)
}
