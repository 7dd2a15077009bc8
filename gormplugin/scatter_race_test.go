//go:build race

package gormplugin_test

// Under the race detector TestScatterPartitionsPostgres inserts 100,000
// rows, not 1,000,000: GORM's reflection runs about 10 times slower, and the
// fill of each batch is what the detector watches.
func init() { partitionRows = 100_000 }
