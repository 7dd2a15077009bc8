package spanner_test

import "syscall"

// On Linux the kernel kills the emulator when the test process dies, so a
// test binary that panics or times out leaves no emulator running.
func init() { emulatorAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
