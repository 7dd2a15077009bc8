//go:build !linux

package tcpproxy

import "time"

func sleep(d time.Duration) { time.Sleep(d) }
