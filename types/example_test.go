package types_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idkit-go/idkit/types"
)

func ExampleParseObjectID() {
	id, err := types.ParseObjectID("632c6d93d65f74baeb22a2c9")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.Timestamp())
	fmt.Printf("%x %d\n", id.ProcessUnique(), id.Counter())

	_, err = types.ParseObjectID("not-an-id")
	fmt.Println(errors.Is(err, types.ErrInvalidObjectID))
	// Output:
	// 2022-09-22 14:13:39 +0000 UTC
	// d65f74baeb 2269897
	// true
}

func ExampleNewObjectID() {
	a := types.NewObjectID()
	b := types.NewObjectID()
	fmt.Println(a != b, a.Compare(b) < 0, len(a.Hex()))
	// Output: true true 24
}

func ExampleObjectIDFromTime() {
	// Bounds for "created on 2022-09-22 (UTC)" as a primary-key range.
	from := types.ObjectIDFromTime(time.Date(2022, 9, 22, 0, 0, 0, 0, time.UTC))
	to := types.ObjectIDFromTime(time.Date(2022, 9, 23, 0, 0, 0, 0, time.UTC))
	id := types.MustParseObjectID("632c6d93d65f74baeb22a2c9")
	fmt.Println(from, to)
	fmt.Println(id.Compare(from) >= 0 && id.Compare(to) < 0)
	// Output:
	// 632ba5800000000000000000 632cf7000000000000000000
	// true
}

func ExampleSnowflake_UnmarshalJSON() {
	type order struct {
		ID   types.Snowflake `json:"id"`
		Item string          `json:"item"`
	}
	b, _ := json.Marshal(order{ID: 1541815603606036480, Item: "book"})
	fmt.Println(string(b))

	// Decoding accepts the string or a bare number.
	var o order
	_ = json.Unmarshal([]byte(`{"id":1541815603606036480}`), &o)
	fmt.Println(o.ID)
	// Output:
	// {"id":"1541815603606036480","item":"book"}
	// 1541815603606036480
}

func ExampleNullObjectID() {
	var parent types.NullObjectID
	_ = parent.Scan(nil) // SQL NULL
	v, _ := parent.Value()
	fmt.Println(parent.Valid, v)

	var id types.ObjectID
	err := id.Scan(nil) // NULL into a non-nullable ID is an error
	fmt.Println(errors.Is(err, types.ErrNull))
	// Output:
	// false <nil>
	// true
}

func ExampleSnowflake_UnmarshalGQL() {
	// gqlgen passes a variable as json.Number or string and a literal in the
	// query as int64; all read the same ID.
	var a, b, c types.Snowflake
	_ = a.UnmarshalGQL(json.Number("1541815603606036480"))
	_ = b.UnmarshalGQL("1541815603606036480")
	_ = c.UnmarshalGQL(int64(1541815603606036480))
	fmt.Println(a == b && b == c)

	var out strings.Builder
	a.MarshalGQL(&out) // a GraphQL string, never a number
	fmt.Println(out.String())
	// Output:
	// true
	// "1541815603606036480"
}

func ExampleSnowflake_MarshalBinary() {
	b, _ := types.Snowflake(1541815603606036480).MarshalBinary()
	fmt.Printf("%x\n", b) // big-endian: byte order is ID order

	var s types.Snowflake
	fmt.Println(s.UnmarshalBinary(b), s)
	// Output:
	// 1565a11f6217a000
	// <nil> 1541815603606036480
}

func ExampleNullSnowflake_UnmarshalJSON() {
	var doc struct {
		Parent types.NullSnowflake `json:"parent"`
	}
	// "" and null both mean "no parent": NULL, never a valid zero.
	_ = json.Unmarshal([]byte(`{"parent":""}`), &doc)
	v, err := doc.Parent.Value()
	fmt.Println(doc.Parent.Valid, v, err)

	// A zero ID is never written as a key.
	_, err = types.Snowflake(0).Value()
	fmt.Println(errors.Is(err, types.ErrZeroID))
	// Output:
	// false <nil> <nil>
	// true
}
