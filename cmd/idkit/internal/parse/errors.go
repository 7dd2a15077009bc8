package parse

import "errors"

// Sentinel errors. Every failure of a function in this package wraps one of
// them; test with [errors.Is].
var (
	// ErrID is wrapped when a string is neither an ObjectID nor a Snowflake.
	ErrID = errors.New("parse: not an ID")

	// ErrKind is wrapped when a kind name is neither objectid nor
	// snowflake.
	ErrKind = errors.New("parse: bad kind")

	// ErrLayout is wrapped when a layout specification is malformed or
	// describes a layout that generator.NewLayout rejects.
	ErrLayout = errors.New("parse: bad layout")

	// ErrTime is wrapped when a time argument is in none of the accepted
	// forms.
	ErrTime = errors.New("parse: bad time")
)
