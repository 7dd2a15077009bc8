//go:build race

package background_test

// The race detector slows making an ID tenfold, so a pause of the
// scheduler covers a larger share of the IDs: the timing test only logs.
const raceEnabled = true
