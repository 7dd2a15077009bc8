//go:build race

package main

// raceEnabled: the race detector slows the etcd members that an etcd run
// starts in the test process far below a real server's pace.
const raceEnabled = true
