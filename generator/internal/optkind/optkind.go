// Package optkind lets package node tell which settings a Snowflake option
// sets, so that node.NewSnowflake can refuse those its lease owns, without
// making option kinds a public API: only packages under generator/ can
// import it. Package generator sets Of in its init.
package optkind

// Kind is the setting an option sets.
type Kind uint8

const (
	Other       Kind = iota // any setting not listed below, or a nil option
	Layout                  // generator.WithLayout
	Clock                   // generator.WithClock
	BorrowAhead             // generator.WithBorrowAhead
)

// Of returns the Kind of opt, a generator.SnowflakeOption.
var Of func(opt any) Kind
