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
	)
	if err != nil {
		panic(err)
	}
	id := g.Next() // the counter starts at a random value
	fmt.Println(id.Timestamp())
	fmt.Printf("process %x\n", id.ProcessUnique())
	// Output:
	// 2026-11-22 08:00:00 +0000 UTC
	// process 000000002a
}
