package publicid_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// A key ring for the examples. Never put a real one in code: read it from
// a secret store, a file or an environment variable.
const keys = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

func Example() {
	users, err := publicid.New[types.Snowflake]("user", keys)
	if err != nil {
		log.Fatal(err)
	}
	s, err := users.Encode(1541815603606036480)
	if err != nil {
		log.Fatal(err) // a zero or negative Snowflake
	}
	id, err := users.Decode(s)
	fmt.Println(s, id, err)
	// Output:
	// user_1fsgakmpaz5ahr 1541815603606036480 <nil>
}

// Encode takes only IDs a key column holds; Decode returns only such IDs.
func ExampleCodec_Encode() {
	users, _ := publicid.New[types.Snowflake]("user", keys)
	_, err := users.Encode(0)
	fmt.Println(errors.Is(err, types.ErrZeroID))
	_, err = users.Encode(-1)
	fmt.Println(errors.Is(err, types.ErrInvalidSnowflake))
	// Output:
	// true
	// true
}

// Neighbouring IDs give unrelated public IDs.
func Example_neighbours() {
	users, err := publicid.New[types.Snowflake]("user", keys)
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range []types.Snowflake{1541815603606036480, 1541815603606036481} {
		s, err := users.Encode(id)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s)
	}
	// Output:
	// user_1fsgakmpaz5ahr
	// user_13bmqzs82hzx32
}

// A public ID of another type, or any other text, is an error.
func ExampleCodec_Decode() {
	users, _ := publicid.New[types.Snowflake]("user", keys)
	orders, _ := publicid.New[types.Snowflake]("order", keys)
	order, _ := orders.Encode(42)
	_, err := users.Decode(order)
	fmt.Println(errors.Is(err, publicid.ErrInvalid), errors.Is(err, publicid.ErrWrongPrefix))
	_, err = users.Decode("user_1I3bmqzs82hzx3")
	fmt.Println(err)
	// Output:
	// true true
	// publicid: invalid public ID "user_1I3bmqzs82hzx3": want only 0-9 and a-z without i, l, o, u
}

// Rotation: a new key goes first in the ring and encodes; the old one
// still decodes the public IDs it made.
func Example_rotation() {
	before, _ := publicid.New[types.ObjectID]("order", keys)
	old, err := before.Encode(types.MustParseObjectID("632c6d93d65f74baeb22a2c9"))
	if err != nil {
		log.Fatal(err)
	}

	ring := "2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8," + keys
	orders, err := publicid.New[types.ObjectID]("order", ring)
	if err != nil {
		log.Fatal(err)
	}
	id, err := orders.Decode(old)
	fmt.Println(old, id, err)
	s, _ := orders.Encode(id)
	fmt.Println(s)
	// Output:
	// order_10fn4bqt3pbrxm3mk59bp 632c6d93d65f74baeb22a2c9 <nil>
	// order_21z2p8mnnvz5bs9qt390v
}

// The TypeID form of a UUID's public ID, which TypeID libraries parse. Its
// first digit names the key, so every key of the ring decodes its own.
func ExampleEncodeTypeID() {
	users, err := publicid.New[types.UUID]("user", keys)
	if err != nil {
		log.Fatal(err)
	}
	s, err := publicid.EncodeTypeID(users, types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde"))
	if err != nil {
		log.Fatal(err)
	}
	id, err := publicid.DecodeTypeID(users, s)
	fmt.Println(s, id, err)
	// Output:
	// user_11tmbvs6drqbp1w3h6mevxxhaw 0190a3c2-5b7e-7def-8a12-3456789abcde <nil>
}
