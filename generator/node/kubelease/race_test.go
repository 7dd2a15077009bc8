//go:build race

package kubelease

// raceEnabled: the race detector slows the in-process etcd members
// several times over, so timing bounds that hold for a real cluster do
// not hold here.
const raceEnabled = true
