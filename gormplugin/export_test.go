package gormplugin

// SetFillInPlace turns the in-place fill on or off, for benchmarks that
// measure it beside the reflect path; it returns a func that restores it.
func SetFillInPlace(on bool) (restore func()) {
	old := fillInPlace
	fillInPlace = on
	return func() { fillInPlace = old }
}
