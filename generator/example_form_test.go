package generator_test

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/types"
)

// A generator that returns shard:4 keys: their top 4 bits, the shard,
// differ from ID to ID; each key turns back into the ordered ID, whose
// time, node and sequence decode as usual.
func ExampleWithForm() {
	clock := generatortest.NewFakeClock(time.Date(2024, 1, 2, 3, 4, 5, 678_000_000, time.UTC))
	g, err := generator.NewSnowflake(34, generator.WithClock(clock), generator.WithForm(types.ShardBits(4)))
	if err != nil {
		panic(err)
	}
	for range 3 {
		key, err := g.Next()
		if err != nil {
			panic(err)
		}
		id, err := g.Form().OrderedSnowflake(key)
		if err != nil {
			panic(err)
		}
		p, err := g.Layout().Decompose(id)
		if err != nil {
			panic(err)
		}
		fmt.Println(key, key>>59, id, p.Time.Format(time.RFC3339Nano), p.Sequence)
	}
	// Output:
	// 2318479652785627136 4 1742018900482203648 2024-01-02T03:04:05.678Z 0
	// 1165558148178780161 2 1742018900482203649 2024-01-02T03:04:05.678Z 1
	// 4624322661999321090 8 1742018900482203650 2024-01-02T03:04:05.678Z 2
}
