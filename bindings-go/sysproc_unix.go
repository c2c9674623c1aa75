//go:build unix && !linux

package hep

import "syscall"

// sysProcAttr starts the child in its own process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
