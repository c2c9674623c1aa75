//go:build unix && !linux

package hep

import (
	"os"
	"os/exec"
)

// waitExit waits for the exit of cmd's child (blocking an OS thread meanwhile), reaps it
// and sends its state on exited.
func waitExit(cmd *exec.Cmd, exited chan<- *os.ProcessState) {
	_ = cmd.Wait() // the state says how it ended
	exited <- cmd.ProcessState
}
