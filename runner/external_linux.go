package runner

import "syscall"

// dieWithParent asks the kernel to SIGKILL the agent when the thread that started it exits — webbench killed
// or crashed — so no agent outlives the run (prctl PR_SET_PDEATHSIG, Linux; see SysProcAttr.Pdeathsig).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
