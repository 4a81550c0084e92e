//go:build !linux

package main

import "syscall"

// hogSysProcAttr has no parent-death signal outside Linux: cpuHog's parent-pid watch ends the hog.
func hogSysProcAttr() *syscall.SysProcAttr { return nil }
