package main

import "syscall"

// hogSysProcAttr makes the kernel kill a CPU hog when the thread that started it dies (Pdeathsig, Linux only;
// cpuHog also watches its parent pid, as the signal follows the thread, not the process).
func hogSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
