//go:build !unix

package exec

import osexec "os/exec"

// killGroup keeps the default cancel (kill the script process) where there are no process
// groups.
func killGroup(cmd *osexec.Cmd) {}
