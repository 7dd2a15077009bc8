//go:build !race

package etcdlease_test

const raceEnabled = false
