package generatortest_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

// A test drives a generator's time by hand: IDs carry the clock's time, and
// a clock set back beyond the backward tolerance makes Next fail.
func ExampleFakeClock() {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clk := generatortest.NewFakeClock(start)
	g, err := generator.NewSnowflake(7, generator.WithClock(clk))
	if err != nil {
		panic(err)
	}

	id := g.MustNext()
	p, _ := g.Layout().Decompose(id)
	fmt.Println(p.Time, p.Node, p.Sequence)

	clk.Add(time.Second)
	p, _ = g.Layout().Decompose(g.MustNext())
	fmt.Println(p.Time)

	clk.Set(start) // one second back, beyond the 10 ms tolerance
	_, err = g.Next()
	fmt.Println(errors.Is(err, generator.ErrClockMovedBackwards))
	// Output:
	// 2026-01-02 03:04:05 +0000 UTC 7 0
	// 2026-01-02 03:04:06 +0000 UTC
	// true
}
