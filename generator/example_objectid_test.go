package generator_test

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

func ExampleNewObjectID() {
	// A generator with a fixed process value and clock, for a reproducible
	// example; production code uses generator.NewObjectID() or
	// types.NewObjectID().
	clock := generatortest.NewFakeClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	g, err := generator.NewObjectID(
		generator.WithClock(clock),
		generator.WithWorkerID(42),
		generator.WithCounterStart(0),
	)
	if err != nil {
		panic(err)
	}
	id := g.Next()
	fmt.Println(id, id.Timestamp())
	fmt.Printf("process %x, counter %d\n", id.ProcessUnique(), id.Counter())
	// Output:
	// 6b02a100000000002a000000 2026-11-22 08:00:00 +0000 UTC
	// process 000000002a, counter 0
}
