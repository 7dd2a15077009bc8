package generator

// WithCounterStart is withCounterStart, for the tests of counter
// wrap-around.
var WithCounterStart = withCounterStart
