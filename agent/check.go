package agent

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// PrintOnce reads every GPU of lib once and writes a table to w: index, UUID, name, memory,
// utilization, temperature, power and processes, with the driver and CUDA versions above it.
// It is `kashi agent --once --print`, the check of a new machine. A GPU whose reading fails
// is listed with the error; the others still print.
func PrintOnce(w io.Writer, lib nvml.Interface, now time.Time) error {
	c := NewCollector(lib)
	if err := c.Init(); err != nil {
		return err
	}
	defer c.Shutdown()
	driver, ret := lib.SystemGetDriverVersion()
	if ret != nvml.SUCCESS {
		driver = "unknown (" + nvml.ErrorString(ret) + ")"
	}
	cuda := "unknown"
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		cuda = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	}
	gpus, err := c.GPUs()
	if err != nil {
		return err
	}
	samples, readErr := c.Read(now)
	byUUID := make(map[string]int, len(samples))
	for i, s := range samples {
		byUUID[s.UUID] = i
	}
	fmt.Fprintf(w, "NVIDIA driver %s, CUDA %s, %d GPUs\n\n", driver, cuda, len(gpus))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tUUID\tNAME\tMEMORY USED/TOTAL\tUTIL\tTEMP\tPOWER\tPROCESSES")
	for _, g := range gpus {
		i, ok := byUUID[g.UUID]
		if !ok {
			fmt.Fprintf(tw, "%d\t%s\t%s\t-/%d MiB\t-\t-\t-\tread failed\n", g.Index, g.UUID, g.Name, g.MemoryTotalMiB)
			continue
		}
		s := samples[i]
		procs := make([]string, len(s.Processes))
		for j, p := range s.Processes {
			procs[j] = strconv.FormatUint(uint64(p.PID), 10) + " (" + strconv.FormatInt(p.UsedMemoryMiB, 10) + " MiB)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d MiB\t%d%%\t%d°C\t%d W\t%s\n", g.Index, g.UUID, g.Name, s.MemoryUsedMiB,
			g.MemoryTotalMiB, s.UtilPct, s.TempC, s.PowerW, strings.Join(procs, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if readErr != nil {
		return fmt.Errorf("agent: some GPUs could not be read: %w", readErr)
	}
	return nil
}
