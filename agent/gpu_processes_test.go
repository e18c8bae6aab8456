package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// fakeProcFS writes a process table: pid → parent, uid, command line.
func fakeProcFS(t *testing.T, procs map[int][3]string) procFS {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "stat"), []byte(fmt.Sprintf("%d (odd) name) S %s 1 1 0", pid, p[0])), 0o644)
		os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\tx\nUid:\t"+p[1]+"\t"+p[1]+"\t"+p[1]+"\t"+p[1]+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "cmdline"), []byte(p[2]), 0o644)
	}
	return procFS{root: root}
}

func TestProcFSDescends(t *testing.T) {
	fs := fakeProcFS(t, map[int][3]string{
		10: {"1", "0", "kashi\x00agent\x00supervise"}, 11: {"10", "0", "torchrun"}, 12: {"11", "0", "python\x00train.py"},
		20: {"1", "0", "other"},
	})
	tests := map[string]struct {
		pid, root int
		want      bool
	}{
		"the root itself": {10, 10, true},
		"a grandchild":    {12, 10, true},
		"another tree":    {20, 10, false},
		"a gone process":  {99, 10, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := fs.descends(tc.pid, tc.root); got != tc.want {
				t.Errorf("descends(%d, %d) = %v, want %v", tc.pid, tc.root, got, tc.want)
			}
		})
	}
	if u, cmd := fs.describe(12); u != "root" || cmd != "python train.py" {
		t.Errorf("describe(12) = %q, %q, want root, python train.py", u, cmd)
	}
}

// ownedProc is a fakeProc that owns the given pids.
type ownedProc struct {
	*fakeProc
	pids []uint32
}

func (p ownedProc) OwnsPID(pid uint32) bool {
	for _, x := range p.pids {
		if x == pid {
			return true
		}
	}
	return false
}

func TestAccountFindsUnmanagedUse(t *testing.T) {
	// A DGX H100: GPU 0 runs task 7's process 100 and someone's 300 (a notebook, no task),
	// GPU 1 runs 200 in a graphics context only, 2..7 run nothing.
	s := dgxh100.New()
	procs := map[int][]nvml.ProcessInfo{0: {{Pid: 100, UsedGpuMemory: 30000 * mib}, {Pid: 300, UsedGpuMemory: 2048 * mib}}}
	graphics := map[int][]nvml.ProcessInfo{1: {{Pid: 200, UsedGpuMemory: 512 * mib}}}
	for i, d := range s.Devices {
		dev := d.(*server.Device)
		dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{Gpu: 10}, nvml.SUCCESS }
		dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 50, nvml.SUCCESS }
		dev.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 300_000, nvml.SUCCESS }
		dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return procs[i], nvml.SUCCESS }
		dev.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return graphics[i], nvml.SUCCESS }
	}
	a := New(Config{}, s, &fakeRunner{})
	a.procs = fakeProcFS(t, map[int][3]string{
		300: {"1", "0", "/usr/bin/python3\x00-m\x00jupyter"}, 200: {"1", "0", "Xorg"},
	})
	a.tasks[7] = &task{proc: ownedProc{fakeProc: &fakeProc{done: make(chan struct{})}, pids: []uint32{100}}}
	if err := a.collector.Init(); err != nil {
		t.Fatal(err)
	}
	samples, err := a.collector.Read(t0)
	if err != nil || len(samples) != 8 {
		t.Fatalf("Read() = %d samples, %v; want 8", len(samples), err)
	}
	a.account(samples)

	want := [][]api.Process{
		{{PID: 100, UsedMemoryMiB: 30000, TaskID: 7}, {PID: 300, UsedMemoryMiB: 2048, Unmanaged: true, User: "root", Command: "/usr/bin/python3 -m jupyter"}},
		{{PID: 200, UsedMemoryMiB: 512, Unmanaged: true, User: "root", Command: "Xorg"}},
	}
	for i, w := range want {
		if diff := cmp.Diff(w, samples[i].Processes); diff != "" {
			t.Errorf("GPU %d processes (-want +got):\n%s", i, diff)
		}
	}
	for i := 2; i < 8; i++ {
		if len(samples[i].Processes) != 0 {
			t.Errorf("GPU %d processes = %+v, want none", i, samples[i].Processes)
		}
	}
}

func TestSupervisedProcessOwnsItsTree(t *testing.T) {
	dir := t.TempDir()
	p, _ := startSupervised(t, api.Assignment{AllowRoot: true, TaskID: 13, Workdir: dir,
		Command: []string{"/bin/sh", "-c", "sleep 30 & echo $! > child; wait"}}, time.Second)
	waitFile(t, filepath.Join(dir, "child"))
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(dir, "child"))
		fmt.Sscan(string(b), &child)
	}
	owner := p.(PIDOwner)
	if !owner.OwnsPID(uint32(child)) {
		t.Errorf("OwnsPID(%d) = false for the task's child", child)
	}
	if owner.OwnsPID(uint32(os.Getpid())) {
		t.Error("OwnsPID(the test) = true")
	}
}
