//go:build race

package rangesplit_test

// raceEnabled: the model and the generators' fake clocks run on one
// goroutine, so the race detector finds nothing in the million-insert
// runs and only makes them about 20 times slower; they run without it.
const raceEnabled = true
