//go:build unix

package exec

import (
	osexec "os/exec"
	"syscall"
)

// killGroup runs the script in a process group of its own and makes a cancel kill the whole
// group, so a script's children (a sleep, a cloud CLI) die with it.
func killGroup(cmd *osexec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
