package agent

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// The containers of testdata/proc (see its README).
const (
	dockerContainer  = "3f9c1e7b5d2a4c6e8f0b1d3a5c7e9f2b4d6a8c0e1f3b5d7a9c2e4f6b8d0a1c3e"
	podmanContainer  = "7b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d"
	nerdctlContainer = "c1e3a5b7d9f2c4e6a8b0d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4"
)

// containerTask returns a task folder whose supervisor (pid 10, not in testdata/proc) runs a
// container, and its process over the fixture process table; container "" has not written
// its id yet.
func containerTask(t *testing.T, container string) *supervisedProcess {
	t.Helper()
	dir := t.TempDir()
	if err := writeJSON(dir, supervisorFile, supervisorRecord{PID: 10}); err != nil {
		t.Fatal(err)
	}
	if container != "" {
		if err := os.WriteFile(filepath.Join(dir, containerIDFile), []byte(container+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &supervisedProcess{dir: dir, procs: procFS{root: "testdata/proc"}, done: make(chan struct{})}
}

func TestOwnsPIDThroughContainerCgroup(t *testing.T) {
	tests := map[string]struct {
		container string
		pid       uint32
		want      bool
	}{
		"docker, systemd driver, cgroup v2": {dockerContainer, 4100, true},
		"docker, cgroupfs, cgroup v1":       {dockerContainer, 4200, true},
		"rootless podman":                   {podmanContainer, 4300, true},
		"nerdctl, cgroupfs":                 {nerdctlContainer, 4400, true},
		"another container":                 {dockerContainer, 4500, false},
		"a login session's notebook":        {dockerContainer, 4600, false},
		"the podman task's id, docker pid":  {podmanContainer, 4100, false},
		"no container id yet":               {"", 4100, false},
		"a gone process":                    {dockerContainer, 9999, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := containerTask(t, tc.container).OwnsPID(tc.pid); got != tc.want {
				t.Errorf("OwnsPID(%d) with container %.12s = %v, want %v", tc.pid, tc.container, got, tc.want)
			}
		})
	}
}

func TestReadContainerIDRefusesAShortID(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, containerIDFile), []byte("3f9c1e7b"), 0o644)
	if id, ok := readContainerID(dir); ok {
		t.Errorf("readContainerID() = %q, true; want false for a short id (it would match too much)", id)
	}
}

// TestAccountContainerProcessesOnDGX reads a DGX A100 and a DGX H100 whose GPU 3 is lost:
// the other seven are read, and the processes of task 7's container (seen by NVML with host
// pids, children of the runtime's shim) belong to task 7, while another container's process
// and a notebook are unmanaged use.
func TestAccountContainerProcessesOnDGX(t *testing.T) {
	shapes := map[string]func() *server.Server{"DGX A100": dgxa100.New, "DGX H100": dgxh100.New}
	procs := map[int][]nvml.ProcessInfo{
		0: {{Pid: 4100, UsedGpuMemory: 70000 * mib}},
		1: {{Pid: 4200, UsedGpuMemory: 1024 * mib}},
		2: {{Pid: 4500, UsedGpuMemory: 4096 * mib}, {Pid: 4600, UsedGpuMemory: 512 * mib}},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			s := shape()
			for i, d := range s.Devices {
				dev := d.(*server.Device)
				dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
					if i == 3 {
						return nvml.Utilization{}, nvml.ERROR_GPU_IS_LOST
					}
					return nvml.Utilization{Gpu: 90}, nvml.SUCCESS
				}
				dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 60, nvml.SUCCESS }
				dev.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 400_000, nvml.SUCCESS }
				dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return procs[i], nvml.SUCCESS }
				dev.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
			}
			a := New(Config{}, s, &fakeRunner{})
			a.procs = procFS{root: "testdata/proc"}
			a.tasks[7] = &task{proc: containerTask(t, dockerContainer)}
			if err := a.collector.Init(); err != nil {
				t.Fatal(err)
			}
			samples, err := a.collector.Read(t0)
			if err == nil || !strings.Contains(err.Error(), "gpu 3") {
				t.Errorf("Read() error = %v, want one naming gpu 3", err)
			}
			if len(samples) != 7 {
				t.Fatalf("Read() = %d samples, want the 7 GPUs that answer", len(samples))
			}
			a.account(samples)
			want := [][]api.Process{
				{{PID: 4100, UsedMemoryMiB: 70000, TaskID: 7}},
				{{PID: 4200, UsedMemoryMiB: 1024, TaskID: 7}},
				{{PID: 4500, UsedMemoryMiB: 4096, Unmanaged: true, User: "root", Command: "python other.py"},
					{PID: 4600, UsedMemoryMiB: 512, Unmanaged: true, User: userName1000(), Command: "python -m jupyter"}},
			}
			for i, w := range want {
				if diff := cmp.Diff(w, samples[i].Processes); diff != "" {
					t.Errorf("GPU %d processes (-want +got):\n%s", i, diff)
				}
			}
			for _, s := range samples[3:] {
				if len(s.Processes) != 0 {
					t.Errorf("GPU %s processes = %+v, want none", s.UUID, s.Processes)
				}
			}
		})
	}
}

// userName1000 is the name of uid 1000 on this machine, or the number where it has none.
func userName1000() string {
	if u, err := user.LookupId("1000"); err == nil {
		return u.Username
	}
	return "1000"
}
