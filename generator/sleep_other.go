//go:build !linux

package generator

import "time"

// shortSleep sleeps for d with time.Sleep; the caller yields for the rest.
func shortSleep(d time.Duration) { time.Sleep(d) }
