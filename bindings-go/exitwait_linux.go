package hep

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// The Linux system call number and flags waitExit uses. pidfd_open (Linux 5.3) is 434 in
// the generic table; on mips, whose numbers are offset, 434 fails with ENOSYS and the
// fallback is taken.
const (
	sysPidfdOpen = 434
	pPid         = 1          // waitid's idtype P_PID
	wNoWait      = 0x01000000 // WNOWAIT: look, leave the child waitable
)

// waitExit waits for the exit of cmd's child, reaps it and sends its state on exited,
// without holding an OS thread while the child runs: it waits in Go's netpoller on the
// child's pidfd, which becomes readable when the child exits, and reaps it only then. Where
// that is not possible (Linux < 5.3, pidfd_open refused by a seccomp filter, the child
// already reaped elsewhere) it blocks in cmd.Wait, as on other systems.
func waitExit(cmd *exec.Cmd, exited chan<- *os.ProcessState) {
	pid := cmd.Process.Pid
	if f := openPidfd(pid); f != nil {
		if conn, err := f.SyscallConn(); err == nil {
			// Read clears the poller's readiness, then calls this, then waits for the pidfd to
			// become readable: an exit before the wait is seen here, one after wakes the wait.
			// (A pidfd the poller cannot watch makes Read fail, and cmd.Wait blocks instead.)
			_ = conn.Read(func(uintptr) bool {
				done, err := hasExited(pid)
				return done || err != nil
			})
		}
		_ = f.Close()
	}
	_ = cmd.Wait() // the state says how it ended
	exited <- cmd.ProcessState
}

// openPidfd is a non-blocking pidfd of the child pid as an *os.File (so the netpoller
// watches it), or nil. The pid is checked to be still this process's child, running or
// not yet reaped, once the pidfd is open: only then is the pidfd sure to be that child's
// (its pid cannot be reused before it is reaped).
func openPidfd(pid int) *os.File {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		return nil
	}
	if _, err := hasExited(pid); err != nil || syscall.SetNonblock(int(fd), true) != nil {
		_ = syscall.Close(int(fd))
		return nil
	}
	return os.NewFile(fd, "pidfd")
}

// hasExited tells whether the child pid has exited (and waits to be reaped), without
// reaping it; an error (ECHILD) when pid is not a child of this process, or was reaped.
func hasExited(pid int) (bool, error) {
	var info [32]int32 // siginfo_t (128 bytes); the kernel sets si_signo, first, to SIGCHLD when it has exited, else 0
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPid, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOHANG|wNoWait, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return false, errno
		}
		return info[0] == int32(syscall.SIGCHLD), nil
	}
}
