// Package simgpu is a simulated GPU backend: an nvml.Interface whose readings follow the
// workload each GPU runs, and an agent.Runner that runs simulated tasks on those GPUs. The demo
// runs the real agent over it, so the demo and a GPU node share one code path.
package simgpu

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// GPU models the demo's pools use. MemoryMB is what NVML reports as total memory, in MiB.
var (
	// A100_80G is an NVIDIA A100 SXM4 with 80 GB.
	A100_80G = gpus.Config{Name: "NVIDIA A100-SXM4-80GB", Architecture: nvml.DEVICE_ARCH_AMPERE, Brand: nvml.BRAND_NVIDIA,
		MemoryMB: 81920, CudaMajor: 8, CudaMinor: 0, PciDeviceId: 0x20B210DE}
	// RTX4090_24G is an NVIDIA GeForce RTX 4090 with 24 GB.
	RTX4090_24G = gpus.Config{Name: "NVIDIA GeForce RTX 4090", Architecture: nvml.DEVICE_ARCH_ADA, Brand: nvml.BRAND_GEFORCE_RTX,
		MemoryMB: 24564, CudaMajor: 8, CudaMinor: 9, PciDeviceId: 0x268410DE}
	// H800_80G is an NVIDIA H800 with 80 GB.
	H800_80G = gpus.Config{Name: "NVIDIA H800", Architecture: nvml.DEVICE_ARCH_HOPPER, Brand: nvml.BRAND_NVIDIA,
		MemoryMB: 81559, CudaMajor: 9, CudaMinor: 0, PciDeviceId: 0x232410DE}
)

const (
	mib = 1 << 20
	// refresh is how long, in virtual time, a GPU keeps one reading, as NVML's counters do;
	// it keeps the memory, utilization, temperature and power of one sample consistent.
	refresh = time.Second
	// idlePowerW is the draw of a GPU with nothing to do.
	idlePowerW = 60
)

// Backend is a simulated node's GPUs. It implements nvml.Interface through the embedded
// go-nvml mock server, whose devices it makes read their current workload.
type Backend struct {
	*server.Server
	now func() time.Time
	// perCard is a training task's samples a second on one of its cards (SamplesPerSecond).
	perCard float64

	mu      sync.Mutex
	gpus    []*gpu
	nextPID uint32
}

var _ nvml.Interface = (*Backend)(nil)

// gpu is one simulated GPU. Its fields are guarded by Backend.mu.
type gpu struct {
	uuid     string
	totalMiB int64
	idleMiB  int64
	tdpW     int
	rng      *rand.Rand
	work     *workload
	// targetMiB is the memory the current workload holds once set up.
	targetMiB int64
	last      reading
}

// reading is one consistent set of a GPU's readings.
type reading struct {
	at      time.Time
	utilPct int
	memMiB  int64
	tempC   int
	powerW  int
	// pid and procMiB describe the workload's process; pid is 0 when the GPU is free.
	pid     uint32
	procMiB int64
}

// New returns a node of n GPUs of model cfg whose readings are taken at now(). seed makes the
// noise of every GPU reproducible; the GPUs' UUIDs are random, so nodes never share one.
func New(cfg gpus.Config, n int, now func() time.Time, seed int64) *Backend {
	srv := server.NewServerWithGPUs("550.54.15", "12.550.54.15", 12040, gpus.Multiple(n, cfg)...)
	b := &Backend{Server: srv, now: now, nextPID: 4000, perCard: perCardSamples(cfg)}
	for i, d := range srv.Devices {
		dev := d.(*server.Device)
		g := &gpu{
			uuid:     dev.UUID,
			totalMiB: int64(cfg.MemoryMB),
			tdpW:     tdpW(cfg),
			rng:      rand.New(rand.NewPCG(uint64(seed), uint64(i))),
		}
		g.idleMiB = 300 + g.rng.Int64N(200)
		b.gpus = append(b.gpus, g)
		b.wire(dev, g)
	}
	return b
}

// tdpW is the board power limit of a GPU model.
func tdpW(cfg gpus.Config) int {
	switch cfg.Name {
	case RTX4090_24G.Name:
		return 450
	case H800_80G.Name:
		return 700
	default:
		return 400
	}
}

// wire makes the mock device report g's readings.
func (b *Backend) wire(dev *server.Device, g *gpu) {
	dev.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		r := b.read(g)
		total, used := uint64(g.totalMiB)*mib, uint64(r.memMiB)*mib
		return nvml.Memory{Total: total, Used: used, Free: total - used}, nvml.SUCCESS
	}
	dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		r := b.read(g)
		return nvml.Utilization{Gpu: uint32(r.utilPct), Memory: uint32(r.utilPct / 2)}, nvml.SUCCESS
	}
	dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
		return uint32(b.read(g).tempC), nvml.SUCCESS
	}
	dev.GetPowerUsageFunc = func() (uint32, nvml.Return) {
		return uint32(b.read(g).powerW * 1000), nvml.SUCCESS
	}
	dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		r := b.read(g)
		if r.pid == 0 {
			return nil, nvml.SUCCESS
		}
		return []nvml.ProcessInfo{{Pid: r.pid, UsedGpuMemory: uint64(r.procMiB) * mib}}, nvml.SUCCESS
	}
	dev.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return nil, nvml.SUCCESS
	}
}

// read returns g's reading at now(), taking a new one when the last is older than refresh.
func (b *Backend) read(g *gpu) reading {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if age := now.Sub(g.last.at); g.last.at.IsZero() || age < 0 || age >= refresh {
		g.last = g.sample(now)
	}
	return g.last
}

// sample takes a new reading of g at now. Temperature and power follow utilization.
func (g *gpu) sample(now time.Time) reading {
	r := reading{at: now, utilPct: g.rng.IntN(2), memMiB: g.idleMiB}
	if w := g.work; w != nil {
		r.utilPct, r.memMiB = profiles[w.shape].at(w.progress(now), g.rng, g.idleMiB, g.targetMiB, g.totalMiB)
		r.pid, r.procMiB = w.pid, max(0, r.memMiB-g.idleMiB)
	}
	r.tempC = 35 + r.utilPct/2 + g.rng.IntN(3) - 1
	r.powerW = min(max(idlePowerW+(g.tdpW-idlePowerW)*r.utilPct/100+g.rng.IntN(11)-5, 0), g.tdpW)
	return r
}
