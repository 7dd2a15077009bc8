//go:build !race

package kubelease

const raceEnabled = false
