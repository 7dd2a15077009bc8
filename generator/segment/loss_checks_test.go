package segment_test

import "testing"

func checkDeleted(t *testing.T, err error)              {}
func checkSetBack(t *testing.T, err error)              {}
func checkFailover(t *testing.T, after int, err error)  {}
func checkSplit(t *testing.T, err error)                {}
func checkRefused(t *testing.T, name string, err error) { t.Fatal(err) }
