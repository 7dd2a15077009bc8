package sqltypes

import "errors"

// ErrInvalidRange reports a time range that cannot be expressed as a
// primary-key range: a time before 1970 or after 2106 for ObjectIDs (their
// 32-bit seconds), or an end time at or after a Snowflake layout's end. The
// underlying error (for Snowflake, one wrapping
// [github.com/idkit-go/idkit/generator.ErrTimeOverflow]) is wrapped too.
var ErrInvalidRange = errors.New("sqltypes: invalid time range")
