package types_test

import (
	"fmt"

	"github.com/idkit-go/idkit/types"
)

// A Snowflake in two scatter forms, and back. The bit-reversed key of an
// ID whose sequence is 0 is below 2^51; the shard:4 key keeps every bit
// but the top 4.
func ExampleForm() {
	id := types.Snowflake(1946618112823218176)
	for _, f := range []types.Form{types.BitReversed(), types.ShardBits(4)} {
		key, _ := f.Snowflake(id)
		back, _ := f.OrderedSnowflake(key)
		fmt.Println(f, key, back == id)
	}
	// Output:
	// reversed 1523966563967084 true
	// shard:4 2523078865126641664 true
}

func ExampleParseForm() {
	f, err := types.ParseForm("shard:8")
	fmt.Println(f, f.ShardBits(), err)
	_, err = types.ParseForm("shard:20")
	fmt.Println(err)
	// Output:
	// shard:8 8 <nil>
	// idkit: invalid configuration: scatter form shard:20: shard bits 20 not in [1, 16]
}
