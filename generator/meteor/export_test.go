package meteor

// WithSeed is withSeed, for reproducible tests.
var WithSeed = withSeed
