package types_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/types"
)

func ExampleUUID() {
	id := types.MustParseUUID("0190A3C2-5B7E-7DEF-8A12-3456789ABCDE")
	fmt.Println(id, id.Time())

	b, _ := json.Marshal(struct {
		ID types.UUID `json:"id"`
	}{id})
	fmt.Println(string(b))

	_, err := types.ParseUUID("not-a-uuid")
	fmt.Println(errors.Is(err, types.ErrInvalidUUID))
	// Output:
	// 0190a3c2-5b7e-7def-8a12-3456789abcde 2024-07-11 21:45:42.014 +0000 UTC
	// {"id":"0190a3c2-5b7e-7def-8a12-3456789abcde"}
	// true
}

func ExampleNewUUIDv7() {
	a, b := types.NewUUIDv7(), types.NewUUIDv7()
	// Bounds for "made in the last minute" as a primary-key range.
	from := types.UUIDv7FromTime(time.Now().Add(-time.Minute))
	fmt.Println(bytes.Compare(a[:], b[:]) < 0, bytes.Compare(from[:], a[:]) < 0, a[6]>>4)
	// Output: true true 7
}
