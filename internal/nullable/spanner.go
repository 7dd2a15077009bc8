package nullable

// EncodeSpanner returns null (a typed nil the Spanner client sends as NULL
// of the column's type) when not valid, else id.EncodeSpanner().
func EncodeSpanner[T interface{ EncodeSpanner() (any, error) }](id T, valid bool, null any) (any, error) {
	if !valid {
		return null, nil
	}
	return id.EncodeSpanner()
}

// DecodeSpanner sets NULL when src is the Spanner client's NULL (see
// [IsSpannerNull]), else decodes src into id and sets valid.
func DecodeSpanner[T any, P interface {
	*T
	DecodeSpanner(src any) error
}](id *T, valid *bool, src any) error {
	if IsSpannerNull(src) {
		setNull(id, valid)
		return nil
	}
	if err := P(id).DecodeSpanner(src); err != nil {
		return err
	}
	*valid = true
	return nil
}

// IsSpannerNull reports whether src is how the Spanner client passes NULL
// to a Decoder: a nil *string (a nil *float64 or *bool for FLOAT64 and
// BOOL columns), or nil.
func IsSpannerNull(src any) bool {
	switch v := src.(type) {
	case nil:
		return true
	case *string:
		return v == nil
	case *float64:
		return v == nil
	case *bool:
		return v == nil
	}
	return false
}
