//go:build !linux

package runner

import "syscall"

// dieWithParent does nothing outside Linux (no PR_SET_PDEATHSIG): an agent may outlive a killed webbench.
func dieWithParent(*syscall.SysProcAttr) {}
