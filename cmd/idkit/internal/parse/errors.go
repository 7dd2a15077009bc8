package parse

import "errors"

// Sentinel errors. Every failure of a function in this package wraps one of
// them; test with [errors.Is]. Their texts are what the idkit command
// prints, so they carry no package prefix.
var (
	// ErrID is wrapped when a string is neither an ObjectID, a Snowflake nor a
	// UUID.
	ErrID = errors.New("not an ID")

	// ErrKind is wrapped when a kind name is neither objectid nor
	// snowflake.
	ErrKind = errors.New("bad kind")

	// ErrLayout is wrapped when a layout specification is malformed or
	// describes a layout that generator.NewLayout rejects.
	ErrLayout = errors.New("bad layout")

	// ErrTime is wrapped when a time argument is in none of the accepted
	// forms.
	ErrTime = errors.New("bad time")
)
