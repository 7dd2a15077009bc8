package meteor_test

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/meteor"
)

func Example() {
	// In production the node ID comes from node.Disposable (new on every
	// start); the clock is read here, once.
	clk := generatortest.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	g, err := meteor.New(9, meteor.Default(), generator.WithClock(clk))
	if err != nil {
		panic(err)
	}
	id := g.MustNext()
	p, _ := g.Layout().Decompose(id)
	fmt.Println(p.Time, p.Node, p.Sequence)
	// Output: 2026-01-02 03:04:05 +0000 UTC 9 0
}
