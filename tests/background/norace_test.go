//go:build !race

package background_test

const raceEnabled = false
