//go:build !race

package publicid_test

const raceEnabled = false
