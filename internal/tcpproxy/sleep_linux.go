package tcpproxy

import (
	"syscall"
	"time"
)

// sleep waits d in the kernel (nanosleep): Go's timers wake a goroutine up
// to a millisecond late when the runtime waits for the network with
// nothing else to run, which would turn a 250 µs delay into 1 ms or more.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
