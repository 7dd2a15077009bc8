//go:build race

package publicid_test

// raceEnabled is true under the race detector, which slows the
// single-goroutine loops of the rotation test about tenfold.
const raceEnabled = true
