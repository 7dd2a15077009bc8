package meteor

import "errors"

// Sentinel errors returned by this package. Errors carry detail by wrapping
// one of these; test for them with [errors.Is].
var (
	// ErrInvalidLayout reports a layout whose bit widths or epoch are out of
	// range (see [LayoutSpec]), or use of the zero [Layout].
	ErrInvalidLayout = errors.New("meteor: invalid layout")

	// ErrInvalidOption reports an unusable option, such as a nil clock.
	ErrInvalidOption = errors.New("meteor: invalid option")

	// ErrNodeOutOfRange reports a node ID that is negative or does not fit
	// the layout's node field. It is never masked to fit.
	ErrNodeOutOfRange = errors.New("meteor: node id out of range")

	// ErrTimeOverflow reports a start time outside the layout's range, or a
	// generator whose time part has run to the end of its field (it drifted
	// there by sustained issuing, or started too close to the end).
	ErrTimeOverflow = errors.New("meteor: time out of layout range")

	// ErrInvalidID reports an ID that does not fit a layout.
	ErrInvalidID = errors.New("meteor: id does not fit layout")
)
