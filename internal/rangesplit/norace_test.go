//go:build !race

package rangesplit_test

const raceEnabled = false
