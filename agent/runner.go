package agent

import (
	"context"
	"time"

	"kashi/api"
)

// Runner starts the process of an assigned task. ExecRunner runs real commands; the demo's
// simulated GPUs bring their own.
type Runner interface {
	// Start launches the task's process and returns once it runs. ctx bounds the start only,
	// not the process's life: Process.Stop ends it.
	Start(ctx context.Context, a api.Assignment) (Process, error)
}

// Process is one started task.
type Process interface {
	// Wait blocks until the process has exited and returns its exit code; err is set only
	// when the exit could not be observed. It may be called more than once.
	Wait() (exitCode int, err error)
	// Stop asks the process to end, waits up to grace, then kills it. It returns once the
	// process is gone and may be called more than once.
	Stop(grace time.Duration)
}
